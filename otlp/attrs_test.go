package otlp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

// lookupScan is the lookup the converter had before lists were indexed,
// kept as the reference: it scans every list, and the whole list, for
// every name.
func lookupScan(lists *[3][]keyValue, name string) (*anyValue, error) {
	if name == "" {
		return nil, nil
	}
	for li, list := range lists {
		var found *anyValue
		for i := range list {
			if list[i].Key != name {
				continue
			}
			if found != nil {
				return nil, fmt.Errorf("attribute %q appears twice in the %s attributes", name, [...]string{"span", "scope", "resource"}[li])
			}
			found = &list[i].Value
		}
		if found == nil {
			continue
		}
		kind, err := found.variant()
		if err != nil {
			return nil, err
		}
		if kind == "" {
			return nil, nil
		}
		return found, nil
	}
	return nil, nil
}

// lookupResult is what one lookup gave: the entry found, as
// "level[index]", and the error.
type lookupResult struct {
	Name  string
	Found string
	Err   string
}

// describe names the entry v points at in lists.
func describe(lists *[3][]keyValue, v *anyValue) string {
	if v == nil {
		return "none"
	}
	for li, list := range lists {
		for i := range list {
			if &list[i].Value == v {
				return fmt.Sprintf("%s[%d]", levelNames[li], i)
			}
		}
	}
	return "outside the lists"
}

// attrGen writes random attribute lists whose keys come from a small
// alphabet, so that a name is often absent, often once and often twice in
// a list, with values of every kind a lookup tells apart.
type attrGen struct {
	r    *rand.Rand
	keys []string
}

func (g *attrGen) value() anyValue {
	switch g.r.IntN(6) {
	case 0:
		return anyValue{} // empty: reads as absent, and stops the lookup
	case 1:
		return anyValue{IntValue: json.RawMessage(`7`)}
	case 2:
		return anyValue{StringValue: json.RawMessage(`"x"`), BoolValue: json.RawMessage(`true`)} // two variants: an error
	}
	return anyValue{StringValue: json.RawMessage(`"v"`)}
}

// list returns a list of up to about 3×indexMin entries, short and long
// alike; a share of its keys, from none to all, come from the alphabet and
// the rest are keys no lookup asks for.
func (g *attrGen) list() []keyValue {
	var n int
	switch g.r.IntN(3) {
	case 0:
		n = g.r.IntN(indexMin + 1)
	case 1:
		n = indexMin + 1 + g.r.IntN(4)
	default:
		n = g.r.IntN(3 * indexMin)
	}
	share := [...]int{0, 1, 5, 20, 100}[g.r.IntN(5)]
	list := make([]keyValue, n)
	for i := range list {
		key := fmt.Sprintf("other.%d", i)
		if g.r.IntN(100) < share {
			key = g.keys[g.r.IntN(len(g.keys))]
		}
		list[i] = keyValue{Key: key, Value: g.value()}
	}
	return list
}

// randomMapping maps each ledger field to a name from keys, or to none;
// fields share names now and then, and error.type too.
func randomMapping(r *rand.Rand, keys []string) Mapping {
	var m Mapping
	for _, f := range ledgerFields {
		if r.IntN(5) > 0 {
			*m.attr(f) = keys[r.IntN(len(keys))]
		}
	}
	return m
}

// TestLookupAgrees holds the indexed lookup to lookupScan on random lists
// at the span, scope and resource level, indexed and not: the same entry
// found, or the same error, for every name the mapping asks for.
func TestLookupAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := &attrGen{r: r, keys: []string{"a", "b", "c", "error.type", "a.b"}}
	// How often each outcome came up, from an indexed list or not, to show
	// that the lists exercise them all.
	outcomes := map[string]int{}
	var n names
	for trial := range 10000 {
		m := randomMapping(r, g.keys)
		n.update(&m)
		lists := [3][]keyValue{g.list(), g.list(), g.list()}
		var span, scope, res attrList
		scope.reset(lists[1], &n, true)
		res.reset(lists[2], &n, true)
		// As convertSpan does: the span's list is indexed only after the
		// lookup of the type, here now and then.
		span.reset(lists[0], &n, false)
		ls := levels{&span, &scope, &res}

		var want, got []lookupResult
		ask := func(slot int, name string) {
			wv, werr := lookupScan(&lists, name)
			gv, gerr := ls.lookup(slot, name)
			want = append(want, lookupResult{Name: name, Found: describe(&lists, wv), Err: errString(werr)})
			got = append(got, lookupResult{Name: name, Found: describe(&lists, gv), Err: errString(gerr)})
			outcomes[outcome(&lists, gv, gerr, &ls)]++
		}
		for i := range ledgerFields {
			if i == 1 && r.IntN(2) == 0 {
				span.index(&n)
			}
			ask(n.field[i], n.attr[i])
		}
		ask(n.errorType, "error.type")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("trial %d, mapping %+v, lists %+v: lookups (-scan +indexed):\n%s", trial, m, lists, diff)
		}
	}
	for _, o := range []string{"found in span", "found in scope", "found in resource", "twice", "none"} {
		for _, how := range []string{"scanned", "indexed"} {
			if k := o + ", " + how; outcomes[k] < 100 {
				t.Errorf("only %d lookups gave %q: the lists test too little (%v)", outcomes[k], k, outcomes)
			}
		}
	}
	t.Logf("outcomes: %v", outcomes)
	if outcomes["two variants"] < 100 {
		t.Errorf("only %d lookups found a value of two variants (%v)", outcomes["two variants"], outcomes)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// outcome classifies a lookup for TestLookupAgrees's coverage check, with
// whether the list that decided it was indexed.
func outcome(lists *[3][]keyValue, v *anyValue, err error, ls *levels) string {
	how := func(l *attrList) string {
		if l.indexed {
			return "indexed"
		}
		return "scanned"
	}
	switch {
	case err != nil && strings.Contains(err.Error(), "twice"):
		for li, name := range levelNames {
			if strings.Contains(err.Error(), "the "+name+" attributes") {
				return "twice, " + how(ls[li])
			}
		}
	case err != nil:
		return "two variants"
	case v == nil:
		return "none, " + how(ls[0])
	}
	for li, list := range lists {
		for i := range list {
			if &list[i].Value == v {
				return "found in " + levelNames[li] + ", " + how(ls[li])
			}
		}
	}
	return "?"
}

// otlpGen writes random export lines of several resources, scopes and
// spans whose attribute lists are short or long. Each list holds each
// mapped key with some chance, and again with the line's chance of
// duplicates; a line's values are all valid or, with its noise, some not.
type otlpGen struct {
	r          *rand.Rand
	dup, noise int // chances in 100, for the line being written
}

// keyChance is the chance in 100 that a list of the level holds the key.
func keyChance(level, key string) int {
	switch {
	case level == "span" && key == "effect.record":
		return 85
	case level == "span" && key == "effect.operation_id":
		return 60
	case key == "effect.record":
		return 5
	}
	return 20
}

func (g *otlpGen) value(key string) string {
	if g.r.IntN(100) < g.noise {
		return [...]string{`{}`, `{"boolValue":true}`, `{"stringValue":"nope"}`}[g.r.IntN(3)]
	}
	switch key {
	case "effect.record":
		return `{"stringValue":"` + [...]string{"attempt", "attempt", "attempt", "attempt", "attempt", "effect"}[g.r.IntN(6)] + `"}`
	case "effect.attempt":
		return `{"intValue":"` + fmt.Sprint(1+g.r.IntN(3)) + `"}`
	case "effect.result":
		return `{"stringValue":"` + [...]string{"success", "error", "timeout"}[g.r.IntN(3)] + `"}`
	case "error.type":
		return `{"stringValue":"` + [...]string{"timeout", "refused"}[g.r.IntN(2)] + `"}`
	}
	return `{"stringValue":"v` + fmt.Sprint(g.r.IntN(5)) + `"}`
}

func (g *otlpGen) list(level string, keys []string) string {
	n := g.r.IntN(3 * indexMin)
	if g.r.IntN(3) == 0 {
		n = g.r.IntN(4)
	}
	var attrs []string
	for i := range n {
		attrs = append(attrs, fmt.Sprintf(`{"key":"other.%d","value":{"stringValue":"x"}}`, i))
	}
	for _, key := range keys {
		for copies := 0; copies == 0 && g.r.IntN(100) < keyChance(level, key) || copies == 1 && g.r.IntN(100) < g.dup; copies++ {
			attrs = append(attrs, `{"key":"`+key+`","value":`+g.value(key)+`}`)
		}
	}
	g.r.Shuffle(len(attrs), func(i, j int) { attrs[i], attrs[j] = attrs[j], attrs[i] })
	return "[" + strings.Join(attrs, ",") + "]"
}

func (g *otlpGen) export(keys []string) string {
	g.dup = [...]int{0, 0, 2, 10}[g.r.IntN(4)]
	g.noise = [...]int{0, 0, 3}[g.r.IntN(3)]
	var res []string
	for range 1 + g.r.IntN(3) {
		var scopes []string
		for range 1 + g.r.IntN(3) {
			var spans []string
			for range g.r.IntN(4) {
				spans = append(spans, fmt.Sprintf(`{"spanId":"%016x","endTimeUnixNano":"1795942800123456789","status":{"code":%d},"attributes":%s}`,
					1+g.r.IntN(1<<20), g.r.IntN(3), g.list("span", keys)))
			}
			scopes = append(scopes, `{"scope":{"attributes":`+g.list("scope", keys)+`},"spans":[`+strings.Join(spans, ",")+`]}`)
		}
		res = append(res, `{"resource":{"attributes":`+g.list("resource", keys)+`},"scopeSpans":[`+strings.Join(scopes, ",")+`]}`)
	}
	return `{"resourceSpans":[` + strings.Join(res, ",") + `]}`
}

// TestConvertIndexAgrees converts random lines with long attribute lists,
// in several resources and scopes, with a Converter and with one that
// scans every list: the records, the counters and any error must be the
// same. It checks that the indexes are those of the span's own lists.
func TestConvertIndexAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g := &otlpGen{r: r}
	keys := []string{"effect.record", "effect.operation_id", "effect.scope", "effect.ref", "effect.attempt", "effect.result", "error.type"}
	mappings := []Mapping{DefaultMapping(), DefaultMapping(), DefaultMapping()}
	mappings[1].Scope = "effect.ref"     // two fields, one attribute
	mappings[2].EffectRef = "error.type" // a mapped attribute that is error.type
	type outcome struct {
		Records        []audit.Record
		Err            string
		Spans, Skipped int
	}
	convert := func(c *Converter, line []byte) outcome {
		var o outcome
		spans, skipped := c.Spans, c.Skipped
		err := c.Convert(line, audit.Position{Line: 1}, func(rec *audit.Record) { o.Records = append(o.Records, rec.Clone()) })
		o.Err = errString(err)
		o.Spans, o.Skipped = c.Spans-spans, c.Skipped-skipped
		return o
	}
	converted, failed, records := 0, 0, 0
	// The indexed converter lives across lines and mappings, to check that
	// its slots follow the mapping and that nothing of a line's lists
	// outlives the line; the reference is new for each line.
	indexed := &Converter{}
	for i := range 4000 {
		m := mappings[i%len(mappings)]
		indexed.Mapping = m
		scanned := &Converter{Mapping: m, noIndex: true}
		line := []byte(g.export(keys))
		want, got := convert(scanned, line), convert(indexed, line)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Convert(%s) with mapping %+v (-scanned +indexed):\n%s", line, m, diff)
		}
		if want.Err == "" {
			converted++
			records += len(want.Records)
		} else {
			failed++
		}
	}
	t.Logf("%d lines converted (%d records), %d failed", converted, records, failed)
	if converted < 400 || failed < 400 || records < 1000 {
		t.Errorf("%d lines converted (%d records), %d failed: the generator tests too little", converted, records, failed)
	}
}

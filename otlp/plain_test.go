package otlp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

// exportGen writes random OTLP/JSON exports of the shapes the converter
// reads. Plain ones name members exactly and give each a value of its type;
// noisy ones also hold what the plain decoder must give up on: names in
// another case or escaped, nulls, values of the wrong type, several
// variants in one AnyValue. Both have escapes, non-ASCII, numbers as
// strings and as numbers, white space, and members the converter ignores.
type exportGen struct {
	r     *rand.Rand
	noisy bool
}

func (g *exportGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

// key writes a member name, in noisy exports now and then in another case
// or with an escape, which encoding/json still matches.
func (g *exportGen) key(name string) string {
	if g.noisy {
		switch g.r.IntN(8) {
		case 0:
			return `"` + strings.ToUpper(name) + `"`
		case 1:
			return `"` + strings.ToUpper(name[:1]) + name[1:] + `"`
		case 2:
			return `"` + strings.Replace(name, name[:1], fmt.Sprintf(`\u%04x`, name[0]), 1) + `"`
		}
	}
	return `"` + name + `"`
}

func (g *exportGen) str() string {
	return g.pick(`"op-1"`, `"attempt"`, `"effect"`, `"timeout"`, `"x\"y"`, `"\u00e9\ud83d\ude00"`, `""`, `"a\nb"`,
		`"\u0000"`, `" 17"`, `"17"`, `"-3"`, `"1e3"`, `"99999999999999999999"`, `"2026-11-29T09:00:00Z"`, `"deadline exceeded"`,
		`"\ud800\udc00"`, `"\uDBFF\uDFFFx"`, `"a\ud83d\ude00"`, `"\ud83d\ude00\u0041"`, `"\/\b\f\r\t"`, `"é\u00e9"`, `"é"`, `"😀 op"`)
}

func (g *exportGen) scalar() string {
	return g.pick(g.str(), g.str(), `17`, `-3`, `0`, `1.5`, `1e3`, `-0.5E+7`, `true`, `false`, `null`, `[]`, `{}`, `[1,"a"]`,
		`{"a":{"b":[null]}}`, `[ 1 , { "x" : "\u00e9" } ]`, `1795942800123456789`, `99999999999999999999`)
}

// value is a scalar for a member the converter reads: never null in a
// plain export.
func (g *exportGen) value() string {
	for {
		if v := g.scalar(); g.noisy || v != "null" {
			return v
		}
	}
}

// object writes an object of the members, shuffled; noisy ones drop some,
// make some null or of another type, and give a name twice now and then.
// Any object may hold a member the converter ignores.
func (g *exportGen) object(members map[string]func() string) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(members)) { // in an order the seed decides
		value := members[name]
		n := 7
		if g.noisy {
			n = g.r.IntN(9)
		}
		switch n {
		case 0:
			continue
		case 1:
			parts = append(parts, g.key(name)+`:null`)
		case 2:
			parts = append(parts, g.key(name)+`:`+g.scalar())
		case 3:
			parts = append(parts, g.key(name)+`:`+value(), g.key(name)+`:`+value())
		default:
			parts = append(parts, g.key(name)+g.pick(`:`, ` : `, "\t:\r\n")+value())
		}
	}
	if g.r.IntN(4) == 0 {
		name := g.pick(`"other"`, `"spanIdentity"`, `""`)
		if g.noisy {
			name = g.pick(name, `"x\"y"`, `"é"`)
		}
		parts = append(parts, name+`:`+g.scalar())
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return "{" + strings.Join(parts, g.pick(",", ", ")) + "}"
}

func (g *exportGen) list(n int, elem func() string) string {
	var parts []string
	for range g.r.IntN(n + 1) {
		if g.noisy && g.r.IntN(10) == 0 {
			parts = append(parts, g.pick("null", "1", `"x"`, "[]"))
		} else {
			parts = append(parts, elem())
		}
	}
	return "[" + strings.Join(parts, g.pick(",", " , ")) + "]"
}

func (g *exportGen) anyValue() string {
	variants := map[string]func() string{}
	if g.noisy {
		for _, v := range anyValueNames {
			if g.r.IntN(4) == 0 {
				variants[v] = g.scalar
			}
		}
	}
	if len(variants) == 0 {
		variants[g.pick("stringValue", "stringValue", "stringValue", "intValue", "boolValue", "arrayValue")] = g.value
	}
	return g.object(variants)
}

func (g *exportGen) attributes() string {
	if g.r.IntN(3) > 0 {
		// What a span that converts carries, then anything.
		return `[{"key":"effect.record","value":{"stringValue":` + g.pick(`"attempt"`, `"effect"`) + `}},` +
			`{"key":"effect.operation_id","value":{"stringValue":` + g.pick(`"op-1"`, `"op-é"`, `"op\"1"`) + `}},` +
			`{"key":"effect.ref","value":{"stringValue":` + g.str() + `}},` +
			`{"key":"effect.attempt","value":{"intValue":` + g.pick(`"2"`, `2`, `" 2"`) + `}},` +
			`{"key":"effect.idempotency_key","value":{"stringValue":` + g.str() + `}}]`
	}
	return g.list(6, func() string {
		return g.object(map[string]func() string{
			"key": func() string {
				return g.pick(`"effect.record"`, `"effect.operation_id"`, `"effect.attempt_id"`, `"effect.idempotency_key"`,
					`"effect.scope"`, `"effect.payload_hash"`, `"effect.result"`, `"effect.ref"`, `"effect.observed_at"`,
					`"effect.attempt"`, `"error.type"`, `"other"`, `"effect.\u0072ef"`)
			},
			"value": g.anyValue,
		})
	})
}

func (g *exportGen) export() string {
	span := func() string {
		return g.object(map[string]func() string{
			"spanId": func() string {
				return g.pick(`"00f067aa0ba902b7"`, `"00F067AA0BA902B7"`, `""`, `"00f067aa0ba902b"`, `"00f067aa0ba902\u0062\u0037"`)
			},
			"endTimeUnixNano": func() string {
				return g.pick(`"1795942800123456789"`, `1795942800123456789`, `"0"`, `0`, `"17959428001234567\u0038\u0039"`, g.value())
			},
			"attributes": g.attributes,
			"status": func() string {
				return g.object(map[string]func() string{
					"code": func() string {
						return g.pick(`0`, `1`, `2`, `"2"`, `"STATUS_CODE_ERROR"`, `3`, g.value())
					},
					"message": func() string { return g.pick(g.str(), `"context deadline exceeded"`, `"time\u006fut"`) },
				})
			},
		})
	}
	attrs := func() string { return g.object(map[string]func() string{"attributes": g.attributes}) }
	scope := func() string {
		members := map[string]func() string{"scope": attrs, "spans": func() string { return g.list(3, span) }}
		if g.r.IntN(4) == 0 { // the name before OTLP 0.15
			members["instrumentationLibrary"] = attrs
		}
		return g.object(members)
	}
	resource := func() string {
		members := map[string]func() string{"resource": attrs, "scopeSpans": func() string { return g.list(2, scope) }}
		if g.r.IntN(4) == 0 {
			members["instrumentationLibrarySpans"] = func() string { return g.list(2, scope) }
		}
		return g.object(members)
	}
	top := map[string]func() string{"resourceSpans": func() string { return g.list(2, resource) }}
	if g.r.IntN(8) == 0 { // another signal's export, or a line that holds both
		other := g.pick("resourceMetrics", "resourceLogs")
		top[other] = func() string { return g.pick(`[]`, `[{"scopeMetrics":[{"metrics":[{"name":"x"}]}]}]`, `[ {} ]`) }
		if g.r.IntN(2) == 0 {
			delete(top, "resourceSpans")
		}
	}
	return g.pick("", " ") + g.object(top) + g.pick("", " \t")
}

// checkPlain decodes line with d and, if d takes it, with json.Unmarshal,
// and fails unless both give the same request. It reports whether d took
// the line.
func checkPlain(t *testing.T, d *plainDecoder, line []byte) bool {
	t.Helper()
	var got request
	if !d.decode(line, &got) {
		return false
	}
	var want request
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("plain decoder took %q; json.Unmarshal: %v", line, err)
	}
	if !reflect.DeepEqual(want, got) { // as cmp.Diff does, but faster
		t.Fatalf("decoding %q (-json.Unmarshal +plain):\n%s", line, cmp.Diff(want, got))
	}
	return true
}

// TestPlainAgrees decodes random exports with one plainDecoder, reused as
// Convert reuses it, and holds each it takes to json.Unmarshal. It checks
// that the decoder takes every plain export, and that it gives up on some
// noisy ones and takes others, so that both sides are tested.
func TestPlainAgrees(t *testing.T) {
	g := &exportGen{r: rand.New(rand.NewPCG(3, 4))}
	var d plainDecoder
	var plain, noisyTaken, noisyLeft int
	for i := range 20000 {
		g.noisy = i%2 == 1
		line := []byte(g.export())
		took := checkPlain(t, &d, line)
		switch {
		case !g.noisy && !took:
			t.Fatalf("plain decoder gave up on the plain export %s", line)
		case !g.noisy:
			plain++
		case took:
			noisyTaken++
		default:
			noisyLeft++
		}
	}
	if noisyTaken < 100 || noisyLeft < 1000 {
		t.Errorf("of the noisy exports, %d taken and %d left to json.Unmarshal: the generator tests too little", noisyTaken, noisyLeft)
	}
	t.Logf("%d plain exports; of the noisy, %d taken, %d left", plain, noisyTaken, noisyLeft)
}

// TestPlainGivesUp lists lines the plain decoder must leave to
// json.Unmarshal, one for each reason.
func TestPlainGivesUp(t *testing.T) {
	deep := `{"resourceSpans":[{"other":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}]}`
	for name, line := range map[string]string{
		"name in another case":       `{"ResourceSpans":[]}`,
		"name in another case, deep": `{"resourceSpans":[{"scopeSpans":[{"spans":[{"SpanId":"00f067aa0ba902b7"}]}]}]}`,
		"escaped name":               `{"resource\u0053pans":[]}`,
		"escaped unknown name":       `{"resourceSpans":[],"\u0078":1}`,
		"non-ASCII name":             `{"resourceSpans":[],"ſcope":1}`,
		"name twice":                 `{"resourceSpans":[],"resourceSpans":[]}`,
		"name twice, deep":           `{"resourceSpans":[{"resource":{},"resource":{}}]}`,
		"spans twice":                `{"resourceSpans":[{"scopeSpans":[{"spans":[],"spans":[]}]}]}`,
		"span attributes twice":      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[],"attributes":[]}]}]}]}`,
		"scope attributes twice":     `{"resourceSpans":[{"scopeSpans":[{"scope":{"attributes":[],"attributes":[]}}]}]}`,
		"null list":                  `{"resourceSpans":null}`,
		"null other signal":          `{"resourceLogs":null}`,
		"legacy name twice":          `{"resourceSpans":[{"instrumentationLibrarySpans":[],"instrumentationLibrarySpans":[]}]}`,
		"null element":               `{"resourceSpans":[null]}`,
		"null string":                `{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":null}]}]}]}`,
		"null raw value":             `{"resourceSpans":[{"scopeSpans":[{"spans":[{"endTimeUnixNano":null}]}]}]}`,
		"list of another type":       `{"resourceSpans":{}}`,
		"element of another type":    `{"resourceSpans":[[]]}`,
		"object of another type":     `{"resourceSpans":[{"resource":[]}]}`,
		"number for a string":        `{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":7}]}]}]}`,
		"too deep":                   deep,
		"not an object":              `[]`,
		"trailing data":              `{"resourceSpans":[]} x`,
		"two objects":                `{"resourceSpans":[]}{}`,
		"cut short":                  `{"resourceSpans":[`,
		"bad number":                 `{"resourceSpans":[],"x":01}`,
		"bad fraction":               `{"resourceSpans":[],"x":1.}`,
		"bad exponent":               `{"resourceSpans":[],"x":1e}`,
		"bare minus":                 `{"resourceSpans":[],"x":-}`,
		"bad literal":                `{"resourceSpans":[],"x":nul}`,
		"bad escape":                 `{"resourceSpans":[],"x":"\x"}`,
		"short unicode escape":       `{"resourceSpans":[],"x":"\u12"}`,
		"lone surrogate escape":      `{"resourceSpans":[],"x":"\ud800"}`,
		"control character":          "{\"resourceSpans\":[],\"x\":\"a\tb\"}",
		"trailing comma":             `{"resourceSpans":[1,],"x":1}`,
		"missing colon":              `{"resourceSpans" []}`,
		"empty":                      ``,
	} {
		t.Run(name, func(t *testing.T) {
			var d plainDecoder
			var req request
			if d.decode([]byte(line), &req) {
				t.Errorf("plain decoder took %q", line)
			}
		})
	}
}

// TestPlainTakes lists lines the plain decoder must take, each as
// json.Unmarshal decodes it.
func TestPlainTakes(t *testing.T) {
	for name, line := range map[string]string{
		"empty object":           `{}`,
		"empty list":             `{"resourceSpans":[]}`,
		"white space":            " \t{ \"resourceSpans\" :\r\n[ { \"scopeSpans\" : [ ] } ] }\n",
		"raw values kept":        `{"resourceSpans":[{"scopeSpans":[{"spans":[{"endTimeUnixNano": [ 1 , "\u0041" ] ,"status":{"code": "2" ,"message":"x"}}]}]}]}`,
		"every variant":          `{"resourceSpans":[{"resource":{"attributes":[{"key":"k","value":{"stringValue":"\ud800\udc00","intValue":-1.5e+3,"boolValue":true,"doubleValue":false,"arrayValue":{},"kvlistValue":[],"bytesValue":"QQ=="}}]}}]}`,
		"escaped strings":        `{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"\u0030\ud800\udc00","attributes":[{"key":"a\"b\n"}],"status":{"message":"\"x\""}}]}]}]}`,
		"unknown members":        `{"x":{"y":[null,true,false,0,-0.0,1E-2,"\\\/"]},"resourceSpans":[{"scopeSpans":[],"schemaUrl":"é"}],"z":null}`,
		"non-ASCII values":       `{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"é😀","attributes":[{"key":"ключ","value":{}}]}]}]}]}`,
		"name twice, unknown":    `{"resourceSpans":[],"x":1,"x":2}`,
		"names of other types":   `{"resourceSpans":[{"spans":1,"attributes":2,"key":3}]}`,
		"other signals kept raw": `{"resourceMetrics":[ {"scopeMetrics":[]} ],"resourceLogs":[]}`,
		"legacy names":           `{"resourceSpans":[{"instrumentationLibrarySpans":[{"instrumentationLibrary":{"attributes":[{"key":"k"}]},"spans":[{"spanId":"00f067aa0ba902b7"}]}]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var d plainDecoder
			if !checkPlain(t, &d, []byte(line)) {
				t.Errorf("plain decoder gave up on %q", line)
			}
		})
	}
}

// TestPlainLetsGoOfLargeLines decodes a line of many spans and then a
// small one: the decoder must not keep the large line's lists.
func TestPlainLetsGoOfLargeLines(t *testing.T) {
	var d plainDecoder
	large := []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{}` + strings.Repeat(`,{"attributes":[{"key":"k","value":{}}]}`, 20000) + `]}]}]}`)
	if !checkPlain(t, &d, large) {
		t.Fatal("plain decoder gave up on the large line")
	}
	if held := cap(d.kvs) * int(unsafe.Sizeof(keyValue{})); held <= maxSlabBytes {
		t.Fatalf("the large line's attributes take %d bytes, not more than %d: the test tests nothing", held, maxSlabBytes)
	}
	if !checkPlain(t, &d, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{}]}]}]}`)) {
		t.Fatal("plain decoder gave up on the small line")
	}
	spans := cap(d.spans) * int(unsafe.Sizeof(span{}))
	kvs := cap(d.kvs) * int(unsafe.Sizeof(keyValue{}))
	if spans > maxSlabBytes || kvs > maxSlabBytes {
		t.Errorf("after a small line the decoder holds %d bytes of spans and %d of attributes; want at most %d", spans, kvs, maxSlabBytes)
	}
}

// TestConvertersAgree converts random exports with a Converter and with one
// that decodes every line with json.Unmarshal: the records, the counters
// and any error must be the same. Lines go through the strict parser
// first, as in the pipeline.
func TestConvertersAgree(t *testing.T) {
	g := &exportGen{r: rand.New(rand.NewPCG(8, 9))}
	fast := &Converter{Mapping: DefaultMapping()}
	std := &Converter{Mapping: DefaultMapping(), stdOnly: true}
	converted, failed := 0, 0
	for i := range 20000 {
		g.noisy = i%2 == 1
		line := []byte(g.export())
		var p ndjson.Parser
		if _, err := p.Parse(line); err != nil {
			continue // a member name given twice: the pipeline refuses the line first
		}
		wantErr := compareConverters(t, fast, std, line)
		if wantErr == "" {
			converted++
		} else {
			failed++
		}
	}
	if converted < 1000 || failed < 1000 {
		t.Errorf("%d lines converted and %d failed: the generator tests too little", converted, failed)
	}
}

// compareConverters converts line with both and fails unless they agree;
// it returns the error, "" for none.
func compareConverters(t *testing.T, fast, std *Converter, line []byte) string {
	t.Helper()
	convert := func(c *Converter) ([]audit.Record, string, int, int) {
		spans, skipped := c.Spans, c.Skipped
		var recs []audit.Record
		err := c.Convert(line, audit.Position{Line: 1}, func(r *audit.Record) { recs = append(recs, r.Clone()) })
		if err != nil {
			return recs, err.Error(), c.Spans - spans, c.Skipped - skipped
		}
		return recs, "", c.Spans - spans, c.Skipped - skipped
	}
	gotRecs, gotErr, gotSpans, gotSkipped := convert(fast)
	wantRecs, wantErr, wantSpans, wantSkipped := convert(std)
	if gotErr != wantErr {
		t.Fatalf("Convert(%q): error %q; with json.Unmarshal: %q", line, gotErr, wantErr)
	}
	if !reflect.DeepEqual(wantRecs, gotRecs) {
		t.Fatalf("Convert(%q): records (-json.Unmarshal +converter):\n%s", line, cmp.Diff(wantRecs, gotRecs))
	}
	if gotSpans != wantSpans || gotSkipped != wantSkipped {
		t.Fatalf("Convert(%q): %d spans, %d skipped; with json.Unmarshal: %d, %d", line, gotSpans, gotSkipped, wantSpans, wantSkipped)
	}
	return wantErr
}

// TestErrorsOutliveLine checks that an error from Convert holds nothing of
// the line: the plain decoder's strings alias it, and the pipeline reuses
// the line's buffer once the line is done.
func TestErrorsOutliveLine(t *testing.T) {
	for name, line := range map[string]string{
		"type":         export("", "", spanJSON(`{}`, str("effect.record", "nope"), op1)),
		"span id":      strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), "00f067aa0ba902b7", "00f067aa0ba902bz", 1),
		"int value":    export("", "", spanJSON(`{}`, isAttempt, op1, num("effect.attempt", `"x1"`))),
		"end time":     strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), `"1795942800123456789"`, `"17x"`, 1),
		"status code":  export("", "", spanJSON(`{"code":"NOPE"}`, isAttempt, op1)),
		"variant":      export("", "", spanJSON(`{}`, isAttempt, `{"key":"effect.operation_id","value":{"boolValue":true}}`)),
		"no operation": export("", "", spanJSON(`{}`, isAttempt)),
	} {
		t.Run(name, func(t *testing.T) {
			buf := []byte(line)
			c := &Converter{Mapping: DefaultMapping()}
			err := c.Convert(buf, audit.Position{Line: 1}, func(*audit.Record) {})
			if err == nil {
				t.Fatalf("Convert(%s) took the line", line)
			}
			msg := err.Error()
			var spanID string
			var se *SpanError
			if asSpanError(err, &se) {
				spanID = se.SpanID
			}
			for i := range buf {
				buf[i] = 'x'
			}
			if got := err.Error(); got != msg {
				t.Errorf("after the line changed, the error reads %q; it read %q", got, msg)
			}
			if se != nil && se.SpanID != spanID {
				t.Errorf("after the line changed, the span id is %q; it was %q", se.SpanID, spanID)
			}
		})
	}
}

func asSpanError(err error, se **SpanError) bool {
	e, ok := err.(*SpanError)
	*se = e
	return ok
}

// TestUnquote holds unquote to json.Unmarshal on JSON values of every kind.
func TestUnquote(t *testing.T) {
	for _, raw := range []string{`"abc"`, `""`, `"é😀"`, `"a\"b"`, `"\u0041"`, `"\ud800"`, `"a\\"`, `17`, `null`, `[]`, `{}`, `true`, `" 1 "`} {
		t.Run(raw, func(t *testing.T) {
			got, gotOK := unquote(json.RawMessage(raw))
			var want string
			wantOK := json.Unmarshal([]byte(raw), &want) == nil
			if got != want || gotOK != wantOK {
				t.Errorf("unquote(%s) = %q, %v; json.Unmarshal: %q, %v", raw, got, gotOK, want, wantOK)
			}
		})
	}
}

// FuzzPlainAgrees decodes arbitrary lines with the plain decoder: whatever
// it takes, json.Unmarshal must take and decode alike. Lines the strict
// parser accepts are also converted both ways, as TestConvertersAgree does.
func FuzzPlainAgrees(f *testing.F) {
	g := &exportGen{r: rand.New(rand.NewPCG(1, 2))}
	for i := range 20 {
		g.noisy = i%2 == 1
		f.Add([]byte(g.export()))
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"00f067aa0ba902b7","status":{"code":2}}]}]}]}`))
	f.Add([]byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":"k","value":{"intValue":"1","stringValue":"x"}}]}}]}`))
	if data, err := os.ReadFile(filepath.Join("testdata", "four-operations.otlp.jsonl")); err == nil {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) > 0 {
				f.Add(line)
			}
		}
	}
	// Each input is decoded between two exports, with one decoder, as
	// lines are: what one line leaves in the decoder must not change the
	// next.
	g.noisy = false
	export := []byte(g.export())
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) {
			return // Convert refuses the line before decoding it
		}
		var d plainDecoder
		checkPlain(t, &d, export)
		checkPlain(t, &d, line)
		if !checkPlain(t, &d, export) {
			t.Fatalf("plain decoder gave up on %s after %q", export, line)
		}
		var p ndjson.Parser
		if _, err := p.Parse(line); err == nil {
			compareConverters(t, &Converter{Mapping: DefaultMapping()}, &Converter{Mapping: DefaultMapping(), stdOnly: true}, line)
		}
	})
}

package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/gzip"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/input"
)

const before = `{"schemaVersion":1,"operations":[
{"operationId":"op-same","label":"duplicate","findings":[]},
{"operationId":"op-worse","label":"healthy","findings":[]},
{"operationId":"op-worse-finding","label":"duplicate","findings":[]},
{"operationId":"op-fixed","label":"uncertain","findings":[{"code":"missing-key"}]},
{"operationId":"op-gone","label":"key-conflict","findings":[]},
{"operationId":"op-gone-healthy","label":"healthy","findings":[]},
{"operationId":"op-better","label":"key-conflict","findings":[]}
]}`

func TestTransitions(t *testing.T) {
	b, err := Load("before.json", strings.NewReader(before))
	if err != nil {
		t.Fatal(err)
	}
	failOn := []string{"duplicate", "key-conflict", "uncertain", "shared-key"}
	now := []audit.Operation{
		{OperationID: "op-same", Label: audit.Duplicate},
		{OperationID: "op-worse", Label: audit.Duplicate},
		{OperationID: "op-worse-finding", Label: audit.Duplicate, Findings: []audit.Finding{{Code: "shared-key"}}},
		{OperationID: "op-fixed", Label: audit.Healthy},
		{OperationID: "op-better", Label: audit.Duplicate},
		{OperationID: "op-brand-new", Label: audit.Uncertain},
		{OperationID: "op-new-healthy", Label: audit.Healthy},
	}
	c := b.Compare(failOn)
	got := map[string]string{}
	anew := map[string]string{}
	for i := range now {
		now[i].FailsAnew = "stale" // Mark sets it, whatever it held
		c.Mark(&now[i])
		got[now[i].OperationID] = now[i].Baseline
		if now[i].FailsAnew != "" {
			anew[now[i].OperationID] = now[i].FailsAnew
		}
	}
	// What a listed operation fails on anew, where it failed on other
	// names before; a new operation fails on all of its own.
	wantAnew := map[string]string{"op-worse": "duplicate", "op-worse-finding": "shared-key", "op-better": "duplicate"}
	if diff := cmp.Diff(wantAnew, anew); diff != "" {
		t.Errorf("fails anew (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"op-same":          audit.BaselineUnchanged,
		"op-worse":         audit.BaselineNew,
		"op-worse-finding": audit.BaselineNew,
		"op-fixed":         audit.BaselineResolved,
		"op-better":        audit.BaselineNew, // key-conflict → duplicate fails on a name it did not fail on
		"op-brand-new":     audit.BaselineNew,
		"op-new-healthy":   audit.BaselineNew,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if !c.Failed() {
		t.Error("Failed() = false, want true: op-worse fails anew")
	}
	if diff := cmp.Diff([]string{"op-fixed", "op-gone"}, c.Resolved()); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
}

func TestNothingNewPasses(t *testing.T) {
	b, err := Load("before.json", strings.NewReader(before))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Compare([]string{"duplicate", "key-conflict", "uncertain"})
	for _, op := range []audit.Operation{{OperationID: "op-same", Label: audit.Duplicate}, {OperationID: "op-fixed", Label: audit.Uncertain}} {
		c.Mark(&op)
		if op.Baseline != audit.BaselineUnchanged {
			t.Errorf("%s: %s, want unchanged", op.OperationID, op.Baseline)
		}
	}
	if c.Failed() {
		t.Error("Failed() = true with nothing new")
	}
}

// loadErrorTests are documents Load refuses, and the whole of what its
// error says.
var loadErrorTests = []struct{ in, want string }{
	{`not json`, "b.json: not a JSON report: the document is not a JSON object"},
	{`{"schemaVersion":2,"operations":[]}`, "b.json: schemaVersion 2; want 1 (a report of effectaudit audit --format json)"},
	{`{"schemaVersion":1,"operations":[{"label":"healthy"}]}`, "b.json: not a JSON report: operation 1 has no operationId"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a"},{"operationId":null}]}`, "b.json: not a JSON report: operation 2 has no operationId"},
	{``, "b.json: not a JSON report: the file is empty"},
	{"{\"schemaVersion\":1,\"operations\":[]} \n\t{}", "b.json: not a JSON report: something follows the report"},
	{"{\"operationId\":\"op-1\",\"label\":\"healthy\"}\n{\"operationId\":\"op-2\"}\n", "b.json: not a JSON report: more than one JSON document, as in NDJSON; --baseline takes the report of audit --format json or --write-baseline"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a"}`, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a`, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"operations":[]`, "b.json: not a JSON report: unexpected EOF"},
	// Cut short where a value should come: not taken for a value of
	// the wrong type.
	{`{"schemaVersion": `, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"operations": `, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"operations":[`, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"operations":[{"operationId": `, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a","findings": `, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a","findings":[`, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a","findings":[{"code":`, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"summary":{"x":[1,`, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"summary":{"x":-`, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"summary":{"x":tr`, "b.json: not a JSON report: unexpected EOF"},
	{`{"schemaVersion":1,"summary":{"x":01`, `b.json: not a JSON report: invalid number "01" at offset 34, near "ary\":{\"x\":01"`},
	{`[]`, "b.json: not a JSON report: the document is not a JSON object"},
	{"\x1f\x8b\x08\x00", "b.json: not a JSON report: the document is not a JSON object"},
	{`{"schemaVersion":1,"operations":{}}`, "b.json: not a JSON report: operations is not a list"},
	{`{"schemaVersion":1,"operations":"all"}`, "b.json: not a JSON report: operations is not a list"},
	{`{"schemaVersion":1,"operations":[],"operations":[]}`, `b.json: not a JSON report: member "operations" given twice`},
	{`{"schemaVersion":"1","operations":[]}`, "b.json: not a JSON report: schemaVersion is not a number"},
	{`{"schemaVersion":1,"operations":[{"operationId":7}]}`, "b.json: not a JSON report: operation 1: operationId is not a string"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a"},7]}`, "b.json: not a JSON report: operation 2 is missing or not an object"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a"},]}`, "b.json: not a JSON report: operation 2 is missing or not an object"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a","label":false}]}`, "b.json: not a JSON report: operation 1: label is not a string"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a","findings":{}}]}`, "b.json: not a JSON report: operation 1: findings is not a list"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a","findings":[1]}]}`, "b.json: not a JSON report: operation 1: a finding is missing or not an object"},
	{`{"schemaVersion":1,"operations":[{"operationId":"a","findings":[{"code":[]}]}]}`, "b.json: not a JSON report: operation 1: a finding's code is not a string"},
	// Syntax errors quote what is around them, control characters
	// escaped, on one line; one at the very end is not a document cut
	// short.
	{`{"schemaVersion":1 "operations":[]}`, `b.json: not a JSON report: invalid character '"' after an object member at offset 19, near "ersion\":1 \"operation"`},
	{`{"schemaVersion":1,"summary":{"x":tru},"operations":[]}`, `b.json: not a JSON report: invalid character '}' in literal true at offset 37, near "\":{\"x\":tru},\"operati"`},
	{`{"schemaVersion":1,"operations":[{"operationId":"a` + "\x01" + `"}]}`, `b.json: not a JSON report: invalid JSON: control character 0x01 in string at offset 50, near "tionId\":\"a\x01\"}]}"`},
	{"{\"schemaVersion\":1,\"x\":\"\x1b]0;title\x07\n\",\"operations\":[]}", `b.json: not a JSON report: invalid JSON: control character 0x1b in string at offset 24, near "n\":1,\"x\":\"\x1b]0;title\a"`},
	{"{\"schemaVersion\":1,\"operations\":[],}\n", `b.json: not a JSON report: invalid character '}' looking for a member name at offset 35, near "tions\":[],}\n"`},
	{`{"operations":[]}`, "b.json: no schemaVersion: --baseline takes the report of audit --format json or --write-baseline, not NDJSON or a ledger"},
	{`{"operationId":"op-1","label":"healthy"}`, "b.json: no schemaVersion: --baseline takes the report of audit --format json or --write-baseline, not NDJSON or a ledger"},
	{`{"schemaVersion":2,"operations":[]}`, "b.json: schemaVersion 2; want 1 (a report of effectaudit audit --format json)"},
	{`{"schemaVersion":1}`, "b.json: not a JSON report: no operations; --baseline takes the report of audit --format json or --write-baseline"},
	{`{"schemaVersion":1,"summary":{"operations":0}}`, "b.json: not a JSON report: no operations; --baseline takes the report of audit --format json or --write-baseline"},
	{`{"schemaVersion":2}`, "b.json: schemaVersion 2; want 1 (a report of effectaudit audit --format json)"},
}

func TestLoadErrors(t *testing.T) {
	for _, tt := range loadErrorTests {
		_, err := Load("b.json", strings.NewReader(tt.in))
		if err == nil {
			t.Errorf("Load(%q) = nil error, want %q", tt.in, tt.want)
			continue
		}
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("Load(%q) error (-want +got):\n%s", tt.in, diff)
		}
		if err != nil && strings.ContainsFunc(err.Error(), unicode.IsControl) {
			t.Errorf("Load(%q) error %q holds a control character", tt.in, err)
		}
	}
}

// TestLoadSkipsOtherMembers checks that a report's other members, nested
// or not, and an operation's other members are read past, wherever they
// stand, and that names the gate never takes are kept out.
func TestLoadSkipsOtherMembers(t *testing.T) {
	doc := `{"summary":{"operations":[{"operationId":"not-this"}],"labels":{"healthy":1}},
	"operations":[{"reason":"[not { a } list]","operationId":"op-1","findings":[{"message":"x","code":"made-up"},{"code":"missing-key"}],"label":"healthy","extra":[[{}]]},
	{"operationId":"op-2","label":"no-such-label"}],
	"invalid":[{"input":"a","line":1,"error":"e"}],"schemaVersion":1}`
	b, err := Load("b.json", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"op-1", "op-2"}, idList(b)); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]nameSet{b.bit("healthy") | b.bit("missing-key"), 0}, b.names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// TestMarksMatchModel compares the comparison with a model of it, written
// with lists of names, on random baselines and reports: ids listed twice,
// names unknown to the gate, every gate.
func TestMarksMatchModel(t *testing.T) {
	gateNames := audit.GateNames()
	all := append(slices.Clone(gateNames), "made-up-code")
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 3))
		someNames := func() []string {
			out := []string{all[r.IntN(len(audit.Labels()))]}
			for range r.IntN(3) {
				out = append(out, all[len(audit.Labels())+r.IntN(len(all)-len(audit.Labels()))])
			}
			return out
		}
		var doc strings.Builder
		doc.WriteString(`{"schemaVersion":1,"operations":[`)
		before := map[string][]string{}
		var order []string
		for i := range r.IntN(12) {
			id := fmt.Sprintf("op-%d", r.IntN(10))
			names := someNames()
			if i > 0 {
				doc.WriteString(",")
			}
			fmt.Fprintf(&doc, `{"operationId":%q,"label":%q,"findings":[`, id, names[0])
			for j, code := range names[1:] {
				if j > 0 {
					doc.WriteString(",")
				}
				fmt.Fprintf(&doc, `{"code":%q}`, code)
			}
			doc.WriteString("]}")
			if _, ok := before[id]; !ok {
				order = append(order, id)
			}
			before[id] = names // the last one listed holds
		}
		doc.WriteString("]}")
		var failOn []string
		for _, n := range gateNames {
			if r.IntN(3) == 0 {
				failOn = append(failOn, n)
			}
		}
		b, err := Load("b.json", strings.NewReader(doc.String()))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		c := b.Compare(failOn)

		matched := func(names []string) []string {
			var out []string
			for _, n := range names {
				if slices.Contains(failOn, n) && !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
			return out
		}
		seen, resolved := map[string]bool{}, map[string]bool{}
		wantFailed := false
		for range r.IntN(12) {
			names := someNames()
			op := audit.Operation{OperationID: fmt.Sprintf("op-%d", r.IntN(14)), Label: audit.Label(names[0])}
			for _, code := range names[1:] {
				if code != "made-up-code" { // an audit raises only its own codes
					op.Findings = append(op.Findings, audit.Finding{Code: code})
				}
			}
			var codes []string
			for _, f := range op.Findings {
				codes = append(codes, f.Code)
			}
			now := matched(append([]string{string(op.Label)}, codes...))
			was, ok := before[op.OperationID]
			var want string
			switch {
			case !ok:
				want = audit.BaselineNew
			case len(now) > 0 && slices.ContainsFunc(now, func(n string) bool { return !slices.Contains(matched(was), n) }):
				want = audit.BaselineNew
			case len(now) == 0 && len(matched(was)) > 0:
				want = audit.BaselineResolved
			default:
				want = audit.BaselineUnchanged
			}
			wantFailed = wantFailed || want == audit.BaselineNew && len(now) > 0
			seen[op.OperationID] = true
			resolved[op.OperationID] = want == audit.BaselineResolved

			again := op
			c.Annotate(&again)
			c.Mark(&op)
			if op.Baseline != want || again.Baseline != want {
				t.Fatalf("seed %d: %s %v marked %s, annotated %s; want %s (baseline %s, gate %v)",
					seed, op.OperationID, names, op.Baseline, again.Baseline, want, doc.String(), failOn)
			}
		}
		wantResolved := []string{}
		for _, id := range order {
			if len(matched(before[id])) > 0 && (!seen[id] || resolved[id]) {
				wantResolved = append(wantResolved, id)
			}
		}
		if diff := cmp.Diff(wantResolved, c.Resolved()); diff != "" {
			t.Fatalf("seed %d: resolved (-want +got):\n%s", seed, diff)
		}
		if c.Failed() != wantFailed {
			t.Fatalf("seed %d: Failed() = %v; want %v", seed, c.Failed(), wantFailed)
		}
	}
}

func TestGateNamesFit(t *testing.T) {
	if n := len(audit.GateNames()); n > 32 {
		t.Fatalf("%d gate names do not fit in the 32 bits of names", n)
	}
}

// modelLoad reads the first JSON value of doc with encoding/json and says
// what Load should make of it: ok is false when doc is no report, and
// checked false when the model cannot tell (a member name given twice,
// which encoding/json's maps hide).
func modelLoad(doc []byte) (ids []string, sets map[string][]string, ok, checked bool) {
	doc = bytes.TrimPrefix(doc, []byte(bom)) // Load skips it
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, nil, false, true
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, false, true // something follows the report
	}
	report, isObject := top.(map[string]any)
	if !isObject {
		return nil, nil, false, true
	}
	if repeatsName(doc) || !utf8.Valid(doc) {
		// Maps hide the first of two members, and encoding/json reads
		// invalid UTF-8 as U+FFFD where Load refuses it, as the ledger
		// reader does. No report of effectaudit holds either.
		return nil, nil, false, false
	}
	if v, ok := report["schemaVersion"].(json.Number); !ok || v.String() != "1" {
		return nil, nil, false, true // an int, as the struct decoder took it
	}
	sets = map[string][]string{}
	ops, present := report["operations"]
	list, isList := ops.([]any)
	if !present || ops != nil && !isList {
		return nil, nil, false, true // a report has the member, if only as null
	}
	str := func(v any) (string, bool) {
		if v == nil {
			return "", true
		}
		s, ok := v.(string)
		return s, ok
	}
	for _, e := range list {
		o, isObject := e.(map[string]any)
		if e != nil && !isObject {
			return nil, nil, false, true
		}
		id, ok1 := str(o["operationId"])
		label, ok2 := str(o["label"])
		if !ok1 || !ok2 || id == "" {
			return nil, nil, false, true
		}
		names := []string{label}
		findings, isList := o["findings"].([]any)
		if o["findings"] != nil && !isList {
			return nil, nil, false, true
		}
		for _, f := range findings {
			fo, isObject := f.(map[string]any)
			if f != nil && !isObject {
				return nil, nil, false, true
			}
			code, ok := str(fo["code"])
			if !ok {
				return nil, nil, false, true
			}
			names = append(names, code)
		}
		if _, dup := sets[id]; !dup {
			ids = append(ids, id)
		}
		sets[id] = names
	}
	return ids, sets, true, true
}

// repeatsName reports whether an object of doc's first value has two
// members of one name.
func repeatsName(doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var open []map[string]bool // names so far of each open object; nil for arrays
	expectName := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			open = append(open, map[string]bool{})
			expectName = true
			continue
		case json.Delim('['):
			open = append(open, nil)
		case json.Delim('}'), json.Delim(']'):
			open = open[:len(open)-1]
			if len(open) == 0 {
				return false
			}
		default:
			if name, ok := tok.(string); ok && expectName {
				if open[len(open)-1][name] {
					return true
				}
				open[len(open)-1][name] = true
				expectName = false
				continue
			}
			if len(open) == 0 {
				return false
			}
		}
		// After a value, a name comes next in an object.
		expectName = open[len(open)-1] != nil
	}
}

// FuzzLoad checks Load against encoding/json on arbitrary documents: it
// never panics, it refuses what is not a report, and it reads every report
// encoding/json reads, to the same operations and names.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(before))
	f.Add([]byte(`{"schemaVersion":1,"summary":{"a":[1,2.5e3,true,null,"x\n"]},"operations":[null,{"operationId":"a","findings":null,"label":null}],"invalid":[]}`))
	f.Add([]byte(`{"schemaVersion":1,"operations":[{"operationId":"a"}]} trailing`))
	f.Add([]byte(`{"schemaVersion":1.0,"operations":[]}` + "\n"))
	f.Add([]byte(`{"schemaVersion":1,"operations":[],}`))
	f.Add([]byte(`{"schemaVersion":1,"summary":-01,"operations":[]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		b, err := Load("f.json", bytes.NewReader(doc))
		if err != nil && strings.ContainsFunc(err.Error(), unicode.IsControl) {
			t.Fatalf("Load(%q) error %q holds a control character", doc, err)
		}
		// Read a few bytes at a time, the window slides all the time: the
		// same baseline, or the same error (but for the input it quotes,
		// of which the window holds less).
		slow, slowErr := load("f.json", bytes.NewReader(doc), 1+len(doc)%7)
		unquoted := func(err error) string { s, _, _ := strings.Cut(fmt.Sprint(err), " near "); return s }
		if unquoted(slowErr) != unquoted(err) {
			t.Fatalf("Load(%q) through a small window: error %v; at once: %v", doc, slowErr, err)
		}
		if err == nil && (!slices.Equal(idList(slow), idList(b)) || !slices.Equal(slow.names, b.names)) {
			t.Fatalf("Load(%q) through a small window: %v %v; at once: %v %v", doc, idList(slow), slow.names, idList(b), b.names)
		}
		ids, sets, ok, checked := modelLoad(doc)
		if !checked {
			return
		}
		if ok != (err == nil) {
			t.Fatalf("Load(%q) error %v; encoding/json reads it as a report: %v", doc, err, ok)
		}
		if !ok {
			return
		}
		if diff := cmp.Diff(ids, idList(b), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Load(%q) ids (-encoding/json +Load):\n%s", doc, diff)
		}
		for i, id := range ids {
			var want nameSet
			for _, n := range sets[id] {
				want |= b.bit(n)
			}
			if b.names[i] != want {
				t.Fatalf("Load(%q): %s has names %b; want %b", doc, id, b.names[i], want)
			}
		}
	})
}

// TestLoadAcceptsBOM checks that a report saved with a byte order mark, as
// some editors and shells save text, reads as without it.
func TestLoadAcceptsBOM(t *testing.T) {
	b, err := Load("b.json", strings.NewReader("\xef\xbb\xbf"+before))
	if err != nil {
		t.Fatal(err)
	}
	if b.len() != 7 {
		t.Errorf("%d operations; want 7", b.len())
	}
}

// failingReader returns its data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestLoadReadError checks that a failure to read the report is returned
// as such, wrapped, and not taken for a report cut short.
func TestLoadReadError(t *testing.T) {
	errDisk := errors.New("disk on fire")
	_, err := Load("b.json", &failingReader{data: []byte(before[:40]), err: errDisk})
	if !errors.Is(err, errDisk) {
		t.Fatalf("error %v; want one wrapping %v", err, errDisk)
	}
	if want := "b.json: disk on fire"; err.Error() != want {
		t.Errorf("error %q; want %q", err, want)
	}
	// A failure in the very first read, while a byte order mark is
	// looked for.
	_, err = Load("b.json", &failingReader{data: []byte("{}"), err: errDisk})
	if !errors.Is(err, errDisk) {
		t.Errorf("error %v; want one wrapping %v", err, errDisk)
	}
}

// TestCompressedReportReadToEnd checks that a compressed report is read to
// its end, where a decompressor checks what it read: a small report is
// read whole long before that.
func TestCompressedReportReadToEnd(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte(before)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	load := func(data []byte) error {
		src, err := input.FromReader("b.json.gz", bytes.NewReader(data), -1)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = Load("b.json.gz", src)
		return err
	}
	if err := load(gz.Bytes()); err != nil {
		t.Fatalf("intact: %v", err)
	}
	badSum := bytes.Clone(gz.Bytes())
	badSum[len(badSum)-6] ^= 0xff // in the CRC-32 of the trailer
	for name, data := range map[string][]byte{
		"checksum":  badSum,
		"cut short": gz.Bytes()[:gz.Len()-8],
	} {
		if err := load(data); err == nil {
			t.Errorf("%s: loaded without error", name)
		}
	}
}

// idList returns the baseline's operation ids in order.
func idList(b *Baseline) []string {
	var ids []string
	for i := range b.len() {
		ids = append(ids, string(b.id(int32(i))))
	}
	return ids
}

// TestLoadSplitAnywhere loads every document of TestLoadErrors, and a
// good one, through windows of 1 to 8 bytes: the window slides at almost
// every byte, and the result must be the same, error and all (but for the
// input the error quotes, of which the window may hold less).
func TestLoadSplitAnywhere(t *testing.T) {
	docs := []string{before, `{"schemaVersion":1,"x":nulé}`, `{"schemaVersion":1,"x":falsé}`, `{"schemaVersion":1,"x":"é` + "\x01" + `"}`,
		`{"schemaVersion":1,"operations":[{"operationId":"\u00e9\ud83d\ude00","label":"healthy"}]}`}
	for _, tt := range loadErrorTests {
		docs = append(docs, tt.in)
	}
	unquoted := func(err error) string { s, _, _ := strings.Cut(fmt.Sprint(err), " near "); return s }
	for _, doc := range docs {
		t.Run(doc, func(t *testing.T) {
			want, wantErr := Load("b.json", strings.NewReader(doc))
			for window := 1; window <= 8; window++ {
				got, err := load("b.json", strings.NewReader(doc), window)
				if unquoted(err) != unquoted(wantErr) {
					t.Errorf("through %d bytes: error %v; read at once: %v", window, err, wantErr)
					continue
				}
				if err == nil && (!slices.Equal(idList(got), idList(want)) || !slices.Equal(got.names, want.names)) {
					t.Errorf("through %d bytes: %v %v; read at once: %v %v", window, idList(got), got.names, idList(want), want.names)
				}
			}
		})
	}
}

// TestLoadDepth holds the nesting Load takes to encoding/json's limit.
func TestLoadDepth(t *testing.T) {
	for _, n := range []int{9999, 10000} {
		doc := `{"schemaVersion":1,"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `,"operations":[]}`
		_, err := Load("b.json", strings.NewReader(doc))
		if valid := json.Valid([]byte(doc)); (err == nil) != valid {
			t.Errorf("%d arrays deep: Load error %v; encoding/json takes it: %v", n, err, valid)
		}
	}
}

// TestLoadErrorsStayShort checks that an error quotes a bounded excerpt
// of the input, however long the token it is about.
func TestLoadErrorsStayShort(t *testing.T) {
	long := strings.Repeat("1", 1<<20)
	for name, doc := range map[string]string{
		"continuation bytes": `{"schemaVersion":1` + strings.Repeat("\x80", 1<<20) + `}`,
		"a long bad number":  `{"schemaVersion":1,"x":0` + long + `}`,
		"a long version":     `{"schemaVersion":` + long + `,"operations":[]}`,
		"a long string":      `{"schemaVersion":1,"x":"` + long + "\x01" + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load("b.json", strings.NewReader(doc))
			if err == nil || len(err.Error()) > 200 {
				t.Errorf("error of %d bytes: %.300v", len(fmt.Sprint(err)), err)
			}
		})
	}
}

// TestHashClash checks that two ids whose hashes collide are both found,
// each with its own names.
func TestHashClash(t *testing.T) {
	b := &Baseline{gates: audit.GateNames(), seed: maphash.MakeSeed(), index: map[uint64]int32{}}
	b.add("op-a", b.bit("healthy"))
	b.index[maphash.String(b.seed, "op-b")] = 0 // op-a holds op-b's hash, as in a collision
	// As the reader does, add ids from a buffer that is then reused.
	buf := []byte("op-b")
	b.add(unsafe.String(unsafe.SliceData(buf), len(buf)), b.bit("duplicate"))
	copy(buf, "op-z")
	if _, ok := b.clash["op-b"]; !ok {
		t.Fatal("op-b is not among the clashes")
	}
	b.add("op-b", b.bit("uncertain")) // listed again: the last names hold
	for id, want := range map[string]nameSet{"op-a": b.bit("healthy"), "op-b": b.bit("uncertain")} {
		i, ok := b.find(id)
		if !ok || b.names[i] != want || string(b.id(i)) != id {
			t.Errorf("find(%q) = %d, %v (names %b, id %q); want names %b", id, i, ok, b.names[i], b.id(i), want)
		}
	}
	if _, ok := b.find("op-c"); ok {
		t.Error("found op-c, never added")
	}
}

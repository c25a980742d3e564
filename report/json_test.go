package report

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

// fullyPopulated returns a report in which every field that belongs to the
// JSON document is set; TestFullyPopulated keeps it that way when the audit
// structs grow.
func fullyPopulated() *audit.Report {
	four := fourOperations()
	absent := syntheticOperation(99, audit.Absent)
	// Messages quote the ledger's strings, so they are as hostile as ids.
	absent.Findings = []audit.Finding{
		{Code: "missing-payload-hash", Message: "2 attempt records carry an idempotencyKey but no payloadHash (first on line 3): drift cannot be checked"},
		{Code: "shared-key", Message: "key \"k\"\\ <b>&amp;\x1b[2J\u2028\xff\t (scope hooks) is carried by 2 operations under one payload hash: one intent split into several identities"},
	}
	absent.Baseline = "new"
	rep := withOperations(four, append(four.OperationList(), absent))
	rep.Summary.Resolved = []string{"op-gone-\x1b\"1"}
	rep.Summary.BlankLines = 2
	rep.Summary.InvalidLines = 2
	rep.Summary.Lines += 4
	rep.Summary.Labels[audit.Absent] = 1
	rep.Summary.Operations++
	rep.Summary.Attempts += absent.Attempts
	for _, f := range absent.Findings {
		rep.Summary.Findings[f.Code]++
	}
	rep.Invalid = []audit.Invalid{
		{Input: "ledger.ndjson", Line: 3, Error: `field "type": "attempts"; want "attempt" or "effect"`, Pos: audit.Position{Line: 3}},
		{Input: "-", Line: 14, Error: "invalid JSON: unexpected end of line", Pos: audit.Position{Input: 1, Line: 14}},
	}
	return rep
}

// hostile returns a report whose every input string is hostile to a JSON
// encoder or a terminal.
func hostile() *audit.Report {
	var ctl strings.Builder
	for c := range 0x20 {
		ctl.WriteByte(byte(c))
	}
	strs := []string{
		ctl.String(),
		`quote " backslash \ slash /`,
		"html <script>&amp;</script>",
		"separators \u2028 \u2029 and DEL \x7f",
		"invalid \xff\xfe utf-8 \xe6\x97 \xed\xa0\x80",
		"bidi \u202e override \u2066 isolate",
		"esc \x1b[31m red \x1b]0;title\x07",
		"replacement \uFFFD and emoji 🙂 and BOM \uFEFF",
		"",
	}
	ops := make([]audit.Operation, len(strs))
	for i, s := range strs {
		op := syntheticOperation(i, audit.Labels()[i%len(audit.Labels())])
		op.OperationID = s
		op.Reason = "reason: " + s
		op.Results = resultsOf(map[string]int{s: 1, s + "2": 2, "timeout": 3})
		op.EffectRefs = []string{s, "ref"}
		op.IdempotencyKeys = []string{s}
		op.PayloadHashes = []string{"sha256:" + s}
		op.FirstObservedAt = &strs[i]
		op.Findings = []audit.Finding{
			{Code: "missing-key", Message: "message: " + s},
			{Code: s, Message: s},
		}
		ops[i] = op
	}
	rep := reportOf(ops)
	for _, s := range strs {
		rep.Invalid = append(rep.Invalid, audit.Invalid{Input: s, Line: 7, Error: "error: " + s})
	}
	rep.Summary.InvalidLines = len(rep.Invalid)
	return rep
}

// document is the json report as plain data: audit.Report with its
// operations as a list, which encoding/json can encode as the reference for
// the hand-written encoder. TestDocumentShape keeps it in step with
// audit.Report.
type document struct {
	SchemaVersion int               `json:"schemaVersion"`
	Summary       audit.Summary     `json:"summary"`
	Operations    []audit.Operation `json:"operations"`
	Invalid       []audit.Invalid   `json:"invalid"`
}

func documentOf(rep *audit.Report) *document {
	return &document{rep.SchemaVersion, rep.Summary, rep.OperationList(), rep.Invalid}
}

// TestDocumentShape checks that document has the fields of audit.Report,
// in order, plus the operations.
func TestDocumentShape(t *testing.T) {
	names := func(typ reflect.Type) []string {
		var out []string
		for i := range typ.NumField() {
			if f := typ.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				out = append(out, f.Tag.Get("json"))
			}
		}
		return out
	}
	var want []string
	for _, name := range names(reflect.TypeFor[audit.Report]()) {
		if name == "invalid" {
			want = append(want, "operations")
		}
		want = append(want, name)
	}
	if diff := cmp.Diff(want, names(reflect.TypeFor[document]())); diff != "" {
		t.Errorf("document fields (-audit.Report +document):\n%s", diff)
	}
}

// stdJSON is what encoding/json writes for the report.
func stdJSON(t testing.TB, rep *audit.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(documentOf(rep)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// stdNDJSON is what encoding/json writes for each operation, one per line.
func stdNDJSON(t testing.TB, rep *audit.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, op := range rep.OperationList() {
		if err := enc.Encode(&op); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestJSONParity(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  *audit.Report
	}{
		{"four operations", fourOperations()},
		{"fully populated", fullyPopulated()},
		{"empty", emptyReport()},
		{"hostile strings", hostile()},
		{"many", manyOperations(500, 3)},
	} {
		t.Run(tc.name+"/json", func(t *testing.T) {
			got := printReport(t, "json", Options{}, tc.rep)
			if diff := cmp.Diff(string(stdJSON(t, tc.rep)), string(got)); diff != "" {
				t.Errorf("json differs from encoding/json (-want +got):\n%s", diff)
			}
		})
		t.Run(tc.name+"/ndjson", func(t *testing.T) {
			got := printReport(t, "ndjson", Options{}, tc.rep)
			if diff := cmp.Diff(string(stdNDJSON(t, tc.rep)), string(got)); diff != "" {
				t.Errorf("ndjson differs from encoding/json (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFullyPopulated fails when a field of the JSON document is zero or
// empty everywhere in fullyPopulated, so a field added to the audit structs
// must be set there, and then TestJSONParity fails until the encoder writes
// it.
func TestFullyPopulated(t *testing.T) {
	set := map[string]bool{} // field path → set somewhere
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), path+"[]")
			}
		case reflect.Struct:
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if !f.IsExported() || f.Tag.Get("json") == "-" {
					continue
				}
				p, fv := path+"."+f.Name, v.Field(i)
				isSet := !fv.IsZero()
				if k := fv.Kind(); k == reflect.Slice || k == reflect.Map {
					isSet = fv.Len() > 0
				}
				set[p] = set[p] || isSet
				walk(fv, p)
			}
		}
	}
	walk(reflect.ValueOf(documentOf(fullyPopulated())), "Report")
	for path, ok := range set {
		if !ok {
			t.Errorf("%s is zero or empty throughout fullyPopulated", path)
		}
	}
}

// TestJSONNeverNull checks that nil lists and maps print as [] and {}, where
// encoding/json would print null.
func TestJSONNeverNull(t *testing.T) {
	rep := audit.NewReport(audit.Summary{}, []audit.Operation{{OperationID: "op-1", Label: audit.Uncertain}}, nil)
	for _, tc := range []struct {
		format, want string
	}{
		{"json", `{
  "schemaVersion": 1,
  "summary": {
    "lines": 0,
    "blankLines": 0,
    "records": 0,
    "invalidLines": 0,
    "attempts": 0,
    "effectObservations": 0,
    "operations": 0,
    "labels": {},
    "findings": {}
  },
  "operations": [
    {
      "operationId": "op-1",
      "label": "uncertain",
      "reason": "",
      "nextAction": "",
      "attempts": 0,
      "results": {},
      "effectObservations": 0,
      "distinctEffects": 0,
      "effectRefs": [],
      "idempotencyKeys": [],
      "payloadHashes": [],
      "firstObservedAt": null,
      "lastObservedAt": null,
      "findings": []
    }
  ],
  "invalid": []
}
`},
		{"ndjson", `{"operationId":"op-1","label":"uncertain","reason":"","nextAction":"","attempts":0,"results":{},"effectObservations":0,"distinctEffects":0,"effectRefs":[],"idempotencyKeys":[],"payloadHashes":[],"firstObservedAt":null,"lastObservedAt":null,"findings":[]}
`},
	} {
		t.Run(tc.format, func(t *testing.T) {
			got := printReport(t, tc.format, Options{}, rep)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("empty report", func(t *testing.T) {
		got := string(printReport(t, "json", Options{}, &audit.Report{}))
		for _, want := range []string{`"operations": []`, `"invalid": []`, `"labels": {}`, `"findings": {}`} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %s:\n%s", want, got)
			}
		}
		if n := len(printReport(t, "ndjson", Options{}, &audit.Report{})); n != 0 {
			t.Errorf("ndjson of an empty report has %d bytes; want none", n)
		}
	})
}

// TestJSONHostile decodes what was printed for hostile strings: the output
// must be valid JSON, and every string must come back as it went in, with
// invalid UTF-8 replaced by U+FFFD byte by byte.
func TestJSONHostile(t *testing.T) {
	rep := hostile()
	t.Run("json", func(t *testing.T) {
		out := printReport(t, "json", Options{}, rep)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON:\n%s", out)
		}
		var got document
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(valid(documentOf(rep)), &got, ignorePositions); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
	t.Run("ndjson", func(t *testing.T) {
		out := printReport(t, "ndjson", Options{}, rep)
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		want := valid(documentOf(rep))
		if len(lines) != len(want.Operations) {
			t.Fatalf("%d lines for %d operations", len(lines), len(want.Operations))
		}
		for i, line := range lines {
			var got audit.Operation
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if diff := cmp.Diff(want.Operations[i], got, ignorePositions); diff != "" {
				t.Errorf("line %d round trip (-want +got):\n%s", i+1, diff)
			}
		}
	})
}

var ignorePositions = cmp.FilterPath(func(p cmp.Path) bool {
	f, ok := p.Last().(cmp.StructField)
	return ok && (f.Name() == "First" || f.Name() == "Pos")
}, cmp.Ignore())

// valid returns doc with its strings as a JSON decoder gives them back: each
// invalid UTF-8 byte replaced by U+FFFD.
func valid(rep *document) *document {
	fix := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r)
			i += size
		}
		return b.String()
	}
	fixAll := func(list []string) []string {
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = fix(s)
		}
		return out
	}
	out := *rep
	out.Summary.Findings = make(map[string]int, len(rep.Summary.Findings))
	for k, n := range rep.Summary.Findings {
		out.Summary.Findings[fix(k)] += n
	}
	out.Operations = make([]audit.Operation, len(rep.Operations))
	for i, op := range rep.Operations {
		op.OperationID, op.Reason, op.NextAction = fix(op.OperationID), fix(op.Reason), fix(op.NextAction)
		results := make(map[string]int, len(op.Results))
		for _, r := range op.Results {
			results[fix(r.Result)] += r.Attempts
		}
		op.Results = resultsOf(results)
		op.EffectRefs, op.IdempotencyKeys, op.PayloadHashes = fixAll(op.EffectRefs), fixAll(op.IdempotencyKeys), fixAll(op.PayloadHashes)
		if op.FirstObservedAt != nil {
			op.FirstObservedAt = ptr(fix(*op.FirstObservedAt))
		}
		if op.LastObservedAt != nil {
			op.LastObservedAt = ptr(fix(*op.LastObservedAt))
		}
		findings := make([]audit.Finding, len(op.Findings))
		for i, f := range op.Findings {
			findings[i] = audit.Finding{Code: fix(f.Code), Message: fix(f.Message)}
		}
		op.Findings = findings
		out.Operations[i] = op
	}
	out.Invalid = make([]audit.Invalid, len(rep.Invalid))
	for i, inv := range rep.Invalid {
		inv.Input, inv.Error = fix(inv.Input), fix(inv.Error)
		out.Invalid[i] = inv
	}
	return &out
}

func BenchmarkJSON(b *testing.B) {
	for _, format := range []string{"json", "ndjson"} {
		b.Run(format, func(b *testing.B) {
			rep := manyOperations(100_000, 10)
			p, err := New(format, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(printReport(b, format, Options{}, rep))))
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Print(io.Discard, rep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncodeOperation is the encoder alone, on operations already
// rendered, as the JSON report (indented) and NDJSON (compact) write them.
func BenchmarkEncodeOperation(b *testing.B) {
	ops := []audit.Operation{syntheticOperation(1, audit.Healthy), syntheticOperation(2, audit.Uncertain), syntheticOperation(3, audit.KeyConflict)}
	for _, indent := range []bool{true, false} {
		b.Run(map[bool]string{true: "indented", false: "compact"}[indent], func(b *testing.B) {
			e := &encoder{indent: indent, open: []int{1, 1}} // as in the report's operations array
			for b.Loop() {
				e.buf = e.buf[:0]
				for i := range 300 {
					e.operation(&ops[i%len(ops)])
				}
			}
			b.SetBytes(int64(len(e.buf)))
		})
	}
}

// BenchmarkEncodingJSON is the reference: encoding/json on the same report.
func BenchmarkEncodingJSON(b *testing.B) {
	rep := manyOperations(100_000, 10)
	doc := documentOf(rep)
	b.SetBytes(int64(len(stdJSON(b, rep))))
	b.ReportAllocs()
	for b.Loop() {
		enc := json.NewEncoder(io.Discard)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppendStringEveryByte puts every byte value, and the two-byte and
// three-byte forms JSON escapes, at every offset of plain strings of every
// length up to a few words, so that it lands in every word of the
// eight-byte fast path and in its tail, and compares with encoding/json.
func TestAppendStringEveryByte(t *testing.T) {
	plain := "abcdefghijklmnopqrstuvwxyz0123"
	var specials []string
	for b := range 256 {
		specials = append(specials, string([]byte{byte(b)}))
	}
	specials = append(specials, "\u2028", "\u2029", "é", "\xe2\x80")
	for _, sp := range specials {
		for n := 0; n <= len(plain); n++ {
			for at := 0; at <= n; at++ {
				s := plain[:at] + sp + plain[at:n]
				if got, want := string(appendString(nil, s)), stdString(t, s); got != want {
					t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
}

// stdString is s as encoding/json encodes it, without HTML escaping.
func stdString(t *testing.T, s string) string {
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(want.String(), "\n")
}

// FuzzAppendString holds appendString to encoding/json, appending to a
// buffer that may have room to spare or none.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "a longer plain string", "quote\" and \\", "\x00\x1f\x7f", "é\u2028\xff", "sixteen  bytes!!"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, spare int) {
		dst := make([]byte, 2, 2+max(0, spare%64))
		dst[0], dst[1] = 'x', ':'
		got := appendString(dst, s)
		if want := "x:" + stdString(t, s); string(got) != want {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// TestNewline checks indentation at every depth, within the precomputed
// indentation and past it.
func TestNewline(t *testing.T) {
	for depth := range len(indentation) {
		e := &encoder{indent: true}
		e.newline(depth)
		if want := "\n" + strings.Repeat("  ", depth); string(e.buf) != want {
			t.Errorf("newline(%d) = %q, want %q", depth, e.buf, want)
		}
	}
}

// resultsOf returns the counts of m in order of result names.
func resultsOf(m map[string]int) audit.Results {
	r := audit.Results{}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		r = append(r, audit.ResultCount{Result: name, Attempts: m[name]})
	}
	return r
}

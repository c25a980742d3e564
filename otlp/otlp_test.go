package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/fieldmap"
	"github.com/effectaudit/effectaudit/fixtures"
	"github.com/effectaudit/effectaudit/ndjson"
)

// conformanceDir holds the shared OTLP conformance files, beside the
// repository.
var conformanceDir = filepath.Join("..", "..", "shared", "conformance", "otlp")

func readConformance(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(conformanceDir, name))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("conformance file %s not found in %s; the shared conformance data is not checked out beside the repository", name, conformanceDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// converted is what converting some input gave.
type converted struct {
	records        []audit.Record
	spans, skipped int
}

// convertAll reads input as the CLI does (NDJSON lines), converts every
// line with c, and fails the test on any error.
func convertAll(t *testing.T, c *Converter, input []byte) converted {
	t.Helper()
	r := ndjson.NewReader(bytes.NewReader(input))
	var out converted
	for {
		line, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading: %v", err)
		}
		if !Looks(line.Members) {
			t.Fatalf("line %d does not look like OTLP", line.Line)
		}
		err = c.Convert(line.Raw, audit.Position{Line: line.Line}, func(rec *audit.Record) {
			out.records = append(out.records, rec.Clone())
		})
		if err != nil {
			t.Fatalf("line %d: %v", line.Line, err)
		}
	}
	out.spans, out.skipped = c.Spans, c.Skipped
	return out
}

func TestConformance(t *testing.T) {
	t.Run("file exporter jsonl", func(t *testing.T) {
		data := readConformance(t, "specification-file-exporter-traces.jsonl")
		c := &Converter{Mapping: DefaultMapping()}
		got := convertAll(t, c, data)
		if n := bytes.Count(data, []byte("\n")); n != 4 {
			t.Fatalf("%d lines, want 4", n)
		}
		// Their spans carry no effect.record: all are skipped and counted.
		if diff := cmp.Diff(converted{spans: 8, skipped: 8}, got, cmp.AllowUnexported(converted{})); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	for _, tt := range []struct {
		name  string
		spans int
	}{
		{"opentelemetry-proto-examples-trace.json", 1},
		{"countconnector-traces-input.json", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := readConformance(t, tt.name)
			var compact bytes.Buffer
			if err := json.Compact(&compact, data); err != nil {
				t.Fatal(err)
			}
			c := &Converter{Mapping: DefaultMapping()}
			got := convertAll(t, c, compact.Bytes())
			if diff := cmp.Diff(converted{spans: tt.spans, skipped: tt.spans}, got, cmp.AllowUnexported(converted{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("selected", func(t *testing.T) {
		// Selected through a mapping, the upstream span (upper-case hex ids)
		// reaches Decode, whose verdict on its type names the span.
		data := readConformance(t, "opentelemetry-proto-examples-trace.json")
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatal(err)
		}
		m := DefaultMapping()
		fm, err := fieldmap.Parse([]string{"type=my.span.attr", "operationId=service.name"})
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(fm)
		c := &Converter{Mapping: m}
		err = c.Convert(compact.Bytes(), audit.Position{Line: 1}, func(*audit.Record) { t.Error("emitted a record") })
		want := `span "EEE19B7EC3C1B174" (resourceSpans[0].scopeSpans[0].spans[0]): field "type" (from attribute "my.span.attr"): "some value"; want "attempt" or "effect"`
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant    %s", err, want)
		}
	})
}

// sortRecords orders records for comparison, whatever the line layout.
func sortRecords(recs []audit.Record) {
	slices.SortFunc(recs, func(a, b audit.Record) int {
		return strings.Compare(a.OperationID+"\x00"+a.Type.String()+"\x00"+a.ObservedAt.String(),
			b.OperationID+"\x00"+b.Type.String()+"\x00"+b.ObservedAt.String())
	})
}

func decodeLedger(t *testing.T, data []byte) []audit.Record {
	t.Helper()
	r := ndjson.NewReader(bytes.NewReader(data))
	var d audit.Decoder
	var recs []audit.Record
	for {
		line, err := r.Read()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		rec, err := d.Decode(line.Members, audit.Position{Line: line.Line})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// opSummary is what the tests check of an operation's report.
type opSummary struct {
	Label    audit.Label
	Attempts int
}

// auditOps runs records through the audit and returns its verdicts.
func auditOps(t *testing.T, recs []audit.Record) map[string]opSummary {
	t.Helper()
	a := audit.New(nil)
	for i := range recs {
		a.Add(&recs[i])
	}
	out := map[string]opSummary{}
	err := a.Report().Operations(func(o *audit.Operation) error {
		out[o.OperationID] = opSummary{o.Label, o.Attempts}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFourOperations(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "four-operations.otlp.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	c := &Converter{Mapping: DefaultMapping()}
	got := convertAll(t, c, data)
	if got.spans != 13 || got.skipped != 1 {
		t.Errorf("spans %d, skipped %d; want 13 and 1 (the HTTP server span)", got.spans, got.skipped)
	}

	// The records match the ledger fixture field for field, except that
	// attempt ids are span ids here and every record of a line shares its
	// position.
	want := decodeLedger(t, fixtures.FourOperations)
	gotRecs := slices.Clone(got.records)
	sortRecords(want)
	sortRecords(gotRecs)
	if diff := cmp.Diff(want, gotRecs, cmpopts.IgnoreFields(audit.Record{}, "AttemptID", "Pos")); diff != "" {
		t.Errorf("records (-ledger fixture +OTLP):\n%s", diff)
	}
	for _, r := range got.records {
		if r.AttemptID == "" || len(r.AttemptID) != 16 {
			t.Errorf("%s %s at %s: attemptId %q, want a span id", r.OperationID, r.Type, r.ObservedAt, r.AttemptID)
		}
	}

	want2 := map[string]opSummary{
		"op-ticket-42":  {audit.Healthy, 2},
		"op-webhook-77": {audit.Duplicate, 2},
		"op-vm-5":       {audit.KeyConflict, 2},
		"op-email-3":    {audit.Uncertain, 2},
	}
	if diff := cmp.Diff(want2, auditOps(t, got.records)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestExecuteTool maps GenAI execute_tool spans. gen_ai.tool.call.id is new
// on every retry, so it is not an operation id: mapped to operationId it
// turns one operation's two attempts into two operations of one attempt
// each, and the retry disappears. A stable attribute keeps them together.
func TestExecuteTool(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "four-operations.otlp.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	tool := lines[1] // the mail agent's execute_tool send_email spans
	if !bytes.Contains(tool, []byte(`"gen_ai.operation.name","value":{"stringValue":"execute_tool"}`)) {
		t.Fatal("line 2 of the fixture holds no execute_tool span")
	}

	type op = opSummary
	tests := []struct {
		name  string
		specs []string
		want  map[string]op
	}{
		{"default mapping", nil, map[string]op{"op-email-3": {audit.Uncertain, 2}}},
		{"stable: conversation id", []string{"operationId=gen_ai.conversation.id"}, map[string]op{"conv_5f0c2a9e41d7": {audit.Uncertain, 2}}},
		{"escaped dots mean the same key", []string{`operationId=gen_ai\.conversation\.id`}, map[string]op{"conv_5f0c2a9e41d7": {audit.Uncertain, 2}}},
		{"unstable: tool call id", []string{"operationId=gen_ai.tool.call.id"}, map[string]op{
			"call_7Qm2rXk9LhT0": {audit.Uncertain, 1},
			"call_Vx81pNe3GdWq": {audit.Uncertain, 1},
		}},
		{"attempt id from the tool call", []string{"attemptId=gen_ai.tool.call.id"}, map[string]op{"op-email-3": {audit.Uncertain, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, err := fieldmap.Parse(tt.specs)
			if err != nil {
				t.Fatal(err)
			}
			m := DefaultMapping()
			m.Apply(fm)
			c := &Converter{Mapping: m}
			var recs []audit.Record
			if err := c.Convert(tool, audit.Position{Line: 2}, func(r *audit.Record) { recs = append(recs, r.Clone()) }); err != nil {
				t.Fatal(err)
			}
			got := auditOps(t, recs)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("operations (-want +got):\n%s", diff)
			}
			for _, r := range recs {
				if r.Result != "timeout" {
					t.Errorf("result %q, want timeout from the status", r.Result)
				}
			}
		})
	}
}

// export builds an OTLP/JSON line: one resource with resourceAttrs, one
// scope with scopeAttrs, and the given spans (JSON objects).
func export(resourceAttrs, scopeAttrs string, spans ...string) string {
	return `{"resourceSpans":[{"resource":{"attributes":[` + resourceAttrs + `]},"scopeSpans":[{"scope":{"name":"test","attributes":[` +
		scopeAttrs + `]},"spans":[` + strings.Join(spans, ",") + `]}]}]}`
}

// str and num write attributes.
func str(k, v string) string { return `{"key":"` + k + `","value":{"stringValue":"` + v + `"}}` }
func num(k, v string) string { return `{"key":"` + k + `","value":{"intValue":` + v + `}}` }

// spanJSON writes a span with id 00f067aa0ba902b7, end time
// 2026-11-29T09:00:00.123456789Z, the attributes and the status given.
func spanJSON(status string, attrs ...string) string {
	return `{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7","name":"call",` +
		`"startTimeUnixNano":"1795942790000000000","endTimeUnixNano":"1795942800123456789",` +
		`"attributes":[` + strings.Join(attrs, ",") + `],"status":` + status + `}`
}

// Attributes every test span needs.
var (
	isAttempt = str("effect.record", "attempt")
	isEffect  = str("effect.record", "effect")
	op1       = str("effect.operation_id", "op-1")
)

func TestConvert(t *testing.T) {
	end := mustInstant(t, "2026-11-29T09:00:00.123456789Z")
	attempt := func(r audit.Record) audit.Record {
		r.Type, r.Pos = audit.Attempt, audit.Position{Input: 1, Line: 3}
		if r.OperationID == "" {
			r.OperationID = "op-1"
		}
		if r.AttemptID == "-" {
			r.AttemptID = ""
		} else if r.AttemptID == "" {
			r.AttemptID = "00f067aa0ba902b7"
		}
		if !r.HasObservedAt {
			r.ObservedAt, r.HasObservedAt = end, true
		}
		return r
	}
	tests := []struct {
		name string
		line string
		want []audit.Record
	}{
		{"status OK", export("", "", spanJSON(`{"code":1}`, isAttempt, op1)), []audit.Record{attempt(audit.Record{Result: "success"})}},
		{"status OK by name", export("", "", spanJSON(`{"code":"STATUS_CODE_OK"}`, isAttempt, op1)), []audit.Record{attempt(audit.Record{Result: "success"})}},
		{"status ERROR", export("", "", spanJSON(`{"code":2,"message":"HTTP 503"}`, isAttempt, op1)), []audit.Record{attempt(audit.Record{Result: "error"})}},
		{"status ERROR by name", export("", "", spanJSON(`{"code":"STATUS_CODE_ERROR"}`, isAttempt, op1)), []audit.Record{attempt(audit.Record{Result: "error"})}},
		{"status ERROR timeout message", export("", "", spanJSON(`{"code":2,"message":"read: connection TIMEOUT"}`, isAttempt, op1)), []audit.Record{attempt(audit.Record{Result: "timeout"})}},
		{"status ERROR deadline message", export("", "", spanJSON(`{"code":2,"message":"context Deadline exceeded"}`, isAttempt, op1)), []audit.Record{attempt(audit.Record{Result: "timeout"})}},
		{"status ERROR error.type", export("", "", spanJSON(`{"code":2}`, isAttempt, op1, str("error.type", "java.net.SocketTimeoutException"))), []audit.Record{attempt(audit.Record{Result: "timeout"})}},
		{"status ERROR error.type not a string", export("", "", spanJSON(`{"code":2}`, isAttempt, op1, num("error.type", "1"))), []audit.Record{attempt(audit.Record{Result: "error"})}},
		{"status UNSET", export("", "", spanJSON(`{"code":0}`, isAttempt, op1)), []audit.Record{attempt(audit.Record{})}},
		{"status absent", export("", "", spanJSON(`{}`, isAttempt, op1)), []audit.Record{attempt(audit.Record{})}},
		{"result attribute wins over status", export("", "", spanJSON(`{"code":2,"message":"timed out"}`, isAttempt, op1, str("effect.result", "connection_reset"))), []audit.Record{attempt(audit.Record{Result: "connection_reset"})}},
		{
			"effect: no result or attempt id from the span",
			export("", "", spanJSON(`{"code":2,"message":"timeout"}`, isEffect, op1, str("effect.ref", "ticket-1"))),
			[]audit.Record{{Type: audit.Effect, OperationID: "op-1", EffectRef: "ticket-1", Result: "present", ObservedAt: end, HasObservedAt: true, Pos: audit.Position{Input: 1, Line: 3}}},
		},
		{"attempt id attribute wins", export("", "", spanJSON(`{}`, isAttempt, op1, str("effect.attempt_id", "att-1"))), []audit.Record{attempt(audit.Record{AttemptID: "att-1"})}},
		{
			"upper-case span id is lower-cased",
			strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), "00f067aa0ba902b7", "00F067AA0BA902B7", 1),
			[]audit.Record{attempt(audit.Record{})},
		},
		{"empty span id gives no attempt id", strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), "00f067aa0ba902b7", "", 1), []audit.Record{attempt(audit.Record{AttemptID: "-"})}},
		{
			"end time as a number",
			strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), `"1795942800123456789"`, `1795942800123456789`, 1),
			[]audit.Record{attempt(audit.Record{})},
		},
		{
			"no end time, no observedAt",
			strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), `"endTimeUnixNano":"1795942800123456789",`, ``, 1),
			[]audit.Record{{Type: audit.Attempt, OperationID: "op-1", AttemptID: "00f067aa0ba902b7", Pos: audit.Position{Input: 1, Line: 3}}},
		},
		{
			"observedAt attribute wins over the end time",
			export("", "", spanJSON(`{}`, isAttempt, op1, str("effect.observed_at", "2026-11-29T10:00:00+01:00"))),
			[]audit.Record{attempt(audit.Record{ObservedAt: mustInstant(t, "2026-11-29T09:00:00Z"), HasObservedAt: true})},
		},
		{"attempt as a string intValue", export("", "", spanJSON(`{}`, isAttempt, op1, num("effect.attempt", `"3"`))), []audit.Record{attempt(audit.Record{AttemptNumber: 3})}},
		{"attempt as a number intValue", export("", "", spanJSON(`{}`, isAttempt, op1, num("effect.attempt", `3`))), []audit.Record{attempt(audit.Record{AttemptNumber: 3})}},
		{
			"intValue for a string field is its decimal text",
			export("", "", spanJSON(`{}`, isAttempt, num("effect.operation_id", `"0042"`), num("effect.idempotency_key", `-7`))),
			[]audit.Record{attempt(audit.Record{OperationID: "42", IdempotencyKey: "-7"})},
		},
		{
			"span over scope over resource",
			export(str("effect.scope", "resource")+","+str("effect.payload_hash", "sha256:r")+","+str("effect.idempotency_key", "k-r"),
				str("effect.scope", "scope")+","+str("effect.payload_hash", "sha256:s"),
				spanJSON(`{}`, isAttempt, op1, str("effect.scope", "span"))),
			[]audit.Record{attempt(audit.Record{Scope: "span", PayloadHash: "sha256:s", IdempotencyKey: "k-r"})},
		},
		{
			"type from the resource selects every span",
			export(isAttempt, "", spanJSON(`{}`, op1)),
			[]audit.Record{attempt(audit.Record{})},
		},
		{
			"empty AnyValue is absent, and hides the scope's value",
			export("", str("effect.scope", "scope"), spanJSON(`{}`, isAttempt, op1, `{"key":"effect.scope","value":{}}`)),
			[]audit.Record{attempt(audit.Record{})},
		},
		{"escapes survive", export("", "", spanJSON(`{}`, isAttempt, op1, str("effect.idempotency_key", `k\"1\\\u0007`))), []audit.Record{attempt(audit.Record{IdempotencyKey: "k\"1\\\a"})}},
		{
			"escaped strings of several spans stay apart",
			export("", "", spanJSON(`{}`, isAttempt, op1, str("effect.idempotency_key", `a\u00e9\"`)),
				spanJSON(`{}`, isAttempt, op1, str("effect.idempotency_key", `b\\\n`))),
			[]audit.Record{attempt(audit.Record{IdempotencyKey: "aé\""}), attempt(audit.Record{IdempotencyKey: "b\\\n"})},
		},
		{"all-zero span id is no id", strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), "00f067aa0ba902b7", "0000000000000000", 1), []audit.Record{attempt(audit.Record{AttemptID: "-"})}},
		{
			`"" attributes take the span's defaults, as absent ones do`,
			export("", "", spanJSON(`{"code":2,"message":"deadline exceeded"}`, isAttempt, op1,
				str("effect.attempt_id", ""), str("effect.observed_at", ""), str("effect.result", ""))),
			[]audit.Record{attempt(audit.Record{Result: "timeout"})},
		},
		{
			`"" on the span hides the scope's value, as an empty AnyValue does`,
			export("", str("effect.result", "success"), spanJSON(`{"code":2}`, isAttempt, op1, str("effect.result", ""))),
			[]audit.Record{attempt(audit.Record{Result: "error"})},
		},
		{
			`"" result of an effect is present`,
			export("", "", spanJSON(`{}`, isEffect, op1, str("effect.ref", "ticket-1"), str("effect.result", ""))),
			[]audit.Record{{Type: audit.Effect, OperationID: "op-1", EffectRef: "ticket-1", Result: "present", ObservedAt: end, HasObservedAt: true, Pos: audit.Position{Input: 1, Line: 3}}},
		},
		{
			"legacy instrumentationLibrarySpans",
			`{"resourceSpans":[{"instrumentationLibrarySpans":[{"instrumentationLibrary":{"name":"tools","attributes":[` + str("effect.scope", "lib") + `]},"spans":[` +
				spanJSON(`{"code":1}`, isAttempt, op1) + `]}]}]}`,
			[]audit.Record{attempt(audit.Record{Result: "success", Scope: "lib"})},
		},
		{
			"legacy instrumentationLibrarySpans when scopeSpans is empty",
			`{"resourceSpans":[{"scopeSpans":[],"instrumentationLibrarySpans":[{"spans":[` + spanJSON(`{"code":1}`, isAttempt, op1) + `]}]}]}`,
			[]audit.Record{attempt(audit.Record{Result: "success"})},
		},
		{
			"scopeSpans wins over instrumentationLibrarySpans, which may double it",
			`{"resourceSpans":[{"scopeSpans":[{"spans":[` + spanJSON(`{"code":1}`, isAttempt, op1) + `]}],` +
				`"instrumentationLibrarySpans":[{"spans":[` + spanJSON(`{"code":2}`, isAttempt, op1) + `]}]}]}`,
			[]audit.Record{attempt(audit.Record{Result: "success"})},
		},
		{"a metrics export holds no span", `{"resourceMetrics":[{"resource":{},"scopeMetrics":[{"metrics":[{"name":"calls"}]}]}]}`, nil},
		{"a logs export holds no span", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"x"}}]}]}]}`, nil},
		{"null resourceLogs", `{"resourceLogs":null}`, nil},
		{"spans without effect.record are skipped", export("", "", spanJSON(`{}`, op1), spanJSON(`{}`)), nil},
		{"empty resourceSpans", `{"resourceSpans":[]}`, nil},
		{"null resourceSpans", `{"resourceSpans":null}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Converter{Mapping: DefaultMapping()}
			var got []audit.Record
			err := c.Convert([]byte(tt.line), audit.Position{Input: 1, Line: 3}, func(r *audit.Record) { got = append(got, r.Clone()) })
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if c.Spans-c.Skipped != len(got) {
				t.Errorf("spans %d - skipped %d != %d records", c.Spans, c.Skipped, len(got))
			}
		})
	}
}

func mustInstant(t *testing.T, s string) audit.Instant {
	t.Helper()
	i, err := audit.ParseInstant(s)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func TestConvertErrors(t *testing.T) {
	const where = `span "00f067aa0ba902b7" (resourceSpans[0].scopeSpans[0].spans[0]): `
	tests := []struct {
		name string
		line string
		err  string
	}{
		{"boolValue for a string field", export("", "", spanJSON(`{}`, isAttempt, `{"key":"effect.operation_id","value":{"boolValue":true}}`)),
			where + `field "operationId" (from attribute "effect.operation_id"): boolValue true; want a stringValue (or an intValue)`},
		{"doubleValue for a string field", export("", "", spanJSON(`{}`, isAttempt, op1, `{"key":"effect.scope","value":{"doubleValue":1.5}}`)),
			where + `field "scope" (from attribute "effect.scope"): doubleValue 1.5; want a stringValue (or an intValue)`},
		{"arrayValue for a string field", export("", "", spanJSON(`{}`, isAttempt, op1, `{"key":"effect.ref","value":{"arrayValue":{"values":[{"stringValue":"a"}]}}}`)),
			where + `field "effectRef" (from attribute "effect.ref"): arrayValue {"values":[{"stringValue":"a"}]}; want a stringValue (or an intValue)`},
		{"kvlistValue for a string field", export("", "", spanJSON(`{}`, isAttempt, op1, `{"key":"effect.payload_hash","value":{"kvlistValue":{"values":[]}}}`)),
			where + `field "payloadHash" (from attribute "effect.payload_hash"): kvlistValue {"values":[]}; want a stringValue (or an intValue)`},
		{"bytesValue for a string field", export("", "", spanJSON(`{}`, isAttempt, op1, `{"key":"effect.idempotency_key","value":{"bytesValue":"a2V5"}}`)),
			where + `field "idempotencyKey" (from attribute "effect.idempotency_key"): bytesValue "a2V5"; want a stringValue (or an intValue)`},
		{"white space in a quoted value", export("", "", spanJSON(`{}`, isAttempt, op1, "{\"key\":\"effect.scope\",\"value\":{\"arrayValue\":{\"values\":[\r]}}}")),
			where + `field "scope" (from attribute "effect.scope"): arrayValue {"values":[ ]}; want a stringValue (or an intValue)`},
		{"doubleValue for attempt", export("", "", spanJSON(`{}`, isAttempt, op1, `{"key":"effect.attempt","value":{"doubleValue":2.0}}`)),
			where + `field "attempt" (from attribute "effect.attempt"): doubleValue 2.0; want an intValue`},
		{"stringValue for attempt, refused by Decode", export("", "", spanJSON(`{}`, isAttempt, op1, str("effect.attempt", "2"))),
			where + `field "attempt" (from attribute "effect.attempt"): want an integer ≥ 1, got string "2"`},
		{"attempt 0, refused by Decode", export("", "", spanJSON(`{}`, isAttempt, op1, num("effect.attempt", "0"))),
			where + `field "attempt" (from attribute "effect.attempt"): want an integer ≥ 1, got number 0`},
		{"intValue not an integer", export("", "", spanJSON(`{}`, isAttempt, op1, num("effect.attempt", `"1.5"`))),
			where + `field "attempt" (from attribute "effect.attempt"): intValue "1.5" is not a 64-bit integer`},
		{"intValue out of range", export("", "", spanJSON(`{}`, isAttempt, num("effect.operation_id", `99999999999999999999`))),
			where + `field "operationId" (from attribute "effect.operation_id"): intValue 99999999999999999999 is not a 64-bit integer`},
		{"two variants", export("", "", spanJSON(`{}`, isAttempt, `{"key":"effect.operation_id","value":{"stringValue":"a","intValue":"1"}}`)),
			where + `field "operationId" (from attribute "effect.operation_id"): the value holds both stringValue and intValue`},
		{"stringValue not a string", export("", "", spanJSON(`{}`, isAttempt, `{"key":"effect.operation_id","value":{"stringValue":1}}`)),
			where + `field "operationId" (from attribute "effect.operation_id"): stringValue 1 is not a string`},
		{"key twice on the span", export("", "", spanJSON(`{}`, isAttempt, op1, str("effect.operation_id", "op-2"))),
			where + `field "operationId" (from attribute "effect.operation_id"): attribute "effect.operation_id" appears twice in the span attributes`},
		{"key twice on the resource", export(str("effect.scope", "a")+","+str("effect.scope", "b"), "", spanJSON(`{}`, isAttempt, op1)),
			where + `field "scope" (from attribute "effect.scope"): attribute "effect.scope" appears twice in the resource attributes`},
		{"missing operation id", export("", "", spanJSON(`{}`, isAttempt)),
			where + `field "operationId" (from attribute "effect.operation_id"): missing or empty`},
		{"empty operation id", export("", "", spanJSON(`{}`, isAttempt, str("effect.operation_id", ""))),
			where + `field "operationId" (from attribute "effect.operation_id"): missing or empty`},
		{"effect without ref", export("", "", spanJSON(`{}`, isEffect, op1)),
			where + `field "effectRef" (from attribute "effect.ref"): missing or empty on a present effect`},
		{"effect with a bad result", export("", "", spanJSON(`{}`, isEffect, op1, str("effect.result", "Absent"))),
			where + `field "result" (from attribute "effect.result"): "Absent" on an effect; want "present" or "absent"`},
		{"bad type", export("", "", spanJSON(`{}`, str("effect.record", "Attempt"), op1)),
			where + `field "type" (from attribute "effect.record"): "Attempt"; want "attempt" or "effect"`},
		{"bad observedAt attribute", export("", "", spanJSON(`{}`, isAttempt, op1, str("effect.observed_at", "2026-11-29 09:00:00Z"))),
			where + `field "observedAt" (from attribute "effect.observed_at"): "2026-11-29 09:00:00Z": `},
		{"bad end time", strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), `"1795942800123456789"`, `"soon"`, 1),
			where + `field "observedAt" (from endTimeUnixNano): "soon" is not a time in nanoseconds`},
		{"end time past 2262", strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), `"1795942800123456789"`, `"18446744073709551615"`, 1),
			where + `field "observedAt" (from endTimeUnixNano): "18446744073709551615" is past the year 2262`},
		{"bad status code", export("", "", spanJSON(`{"code":3}`, isAttempt, op1)),
			where + `field "result" (from status): code 3; want 0, 1, 2 or STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR`},
		{"bad span id", strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), "00f067aa0ba902b7", "not-a-span-id", 1),
			`span "not-a-span-id" (resourceSpans[0].scopeSpans[0].spans[0]): spanId: "not-a-span-id" is not 16 hex digits`},
		{"a long span id is clipped", strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), "00f067aa0ba902b7", strings.Repeat("x", 100), 1),
			`span "` + strings.Repeat("x", 32) + `…" (resourceSpans[0].scopeSpans[0].spans[0]): spanId: "` + strings.Repeat("x", 32) + `…" is not 16 hex digits`},
		{"span id of 16 characters not all hex", strings.Replace(export("", "", spanJSON(`{}`, isAttempt, op1)), "00f067aa0ba902b7", "00f067aa0ba902bz", 1),
			`span "00f067aa0ba902bz" (resourceSpans[0].scopeSpans[0].spans[0]): spanId: "00f067aa0ba902bz" is not 16 hex digits`},
		{"a legacy span's place", `{"resourceSpans":[{"instrumentationLibrarySpans":[{"spans":[` + spanJSON(`{}`, isAttempt) + `]}]}]}`,
			`span "00f067aa0ba902b7" (resourceSpans[0].instrumentationLibrarySpans[0].spans[0]): field "operationId" (from attribute "effect.operation_id"): missing or empty`},
		{"no span id in the message when there is none", strings.Replace(export("", "", spanJSON(`{}`, isAttempt)), "00f067aa0ba902b7", "", 1),
			`resourceSpans[0].scopeSpans[0].spans[0]: field "operationId" (from attribute "effect.operation_id"): missing or empty`},
		{"not JSON", `{"resourceSpans":`, `OTLP/JSON: unexpected end of JSON input`},
		{"not an export", `{"traces":[]}`, `not an OTLP export: no resourceSpans, resourceMetrics or resourceLogs member`},
		{"resourceMetrics not an array", `{"resourceMetrics":{"scopeMetrics":[]}}`, `OTLP/JSON: resourceMetrics: got {"scopeMetrics":[]}, want an array`},
		{"resourceLogs not an array", `{"resourceLogs":5}`, `OTLP/JSON: resourceLogs: got 5, want an array`},
		{"resourceMetrics not an array beside spans", `{"resourceSpans":[],"resourceMetrics":{}}`, `OTLP/JSON: resourceMetrics: got {}, want an array`},
		{"resourceLogs not an array beside spans", `{"resourceSpans":[{"scopeSpans":[]}],"resourceLogs":5}`, `OTLP/JSON: resourceLogs: got 5, want an array`},
		{"resourceSpans not an array", `{"resourceSpans":{}}`, `OTLP/JSON: resourceSpans: got object, want an array`},
		{"span id not a string", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":7}]}]}]}`, `OTLP/JSON: resourceSpans.scopeSpans.spans.spanId: got number, want a string`},
		{"attributes not an array", `{"resourceSpans":[{"resource":{"attributes":{}}}]}`, `OTLP/JSON: resourceSpans.resource.attributes: got object, want an array`},
		{"invalid UTF-8", "{\"resourceSpans\":[],\"x\":\"\xff\"}", `OTLP/JSON: invalid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Converter{Mapping: DefaultMapping()}
			err := c.Convert([]byte(tt.line), audit.Position{Line: 1}, func(r *audit.Record) {
				t.Errorf("emitted %+v from a line that fails", *r)
			})
			if err == nil {
				t.Fatalf("Convert succeeded, want %s", tt.err)
			}
			if !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("error:\n got %s\nwant %s", err, tt.err)
			}
			// A line that fails as a whole counts no span; one whose spans
			// fail counts them, as neither skipped nor converted.
			failed := 0
			if ses, ok := err.(*SpanErrors); ok {
				failed = ses.Count
			}
			if c.Spans-c.Skipped != failed {
				t.Errorf("a failed line counted %d spans, %d skipped, with %d spans failing", c.Spans, c.Skipped, failed)
			}
			var se *SpanError
			if errors.As(err, &se) {
				var fe *audit.FieldError
				if strings.Contains(tt.err, `field "`) && !errors.As(err, &fe) {
					t.Errorf("%T does not unwrap to *audit.FieldError", err)
				}
			}
		})
	}
}

func TestConverterCounts(t *testing.T) {
	c := &Converter{Mapping: DefaultMapping()}
	lines := []string{
		export("", "", spanJSON(`{}`, isAttempt, op1), spanJSON(`{}`)),
		export("", "", spanJSON(`{}`, isAttempt)), // its span fails: counted
		`{"resourceSpans":{}}`,                    // fails as a whole: not counted
		export("", "", spanJSON(`{}`), spanJSON(`{}`)),
	}
	n := 0
	for i, l := range lines {
		_ = c.Convert([]byte(l), audit.Position{Line: i + 1}, func(*audit.Record) { n++ })
	}
	if c.Spans != 5 || c.Skipped != 3 || n != 1 {
		t.Errorf("spans %d, skipped %d, records %d; want 5, 3, 1", c.Spans, c.Skipped, n)
	}
}

// TestConvertPartial checks that a bad span does not drop the other spans
// of its line (a batch of unrelated operations): they convert, and the
// line's error names the bad ones, the first few of a long list.
func TestConvertPartial(t *testing.T) {
	good := spanJSON(`{"code":1}`, isAttempt, op1)
	bad := spanJSON(`{}`, isAttempt) // no operation id
	const missing = `: field "operationId" (from attribute "effect.operation_id"): missing or empty`
	at := func(i int) string {
		return fmt.Sprintf(`span "00f067aa0ba902b7" (resourceSpans[0].scopeSpans[0].spans[%d])`, i) + missing
	}
	// The second line of the review's batch.jsonl: op-A's second effect,
	// and an unrelated attempt without an operation id.
	batch := `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[{"spanId":"00000000000000e2","endTimeUnixNano":"1795942805120000000","attributes":[{"key":"effect.record","value":{"stringValue":"effect"}},{"key":"effect.operation_id","value":{"stringValue":"op-A"}},{"key":"effect.ref","value":{"stringValue":"charge-2"}}]},{"spanId":"00000000000000b9","endTimeUnixNano":"1795942805120000000","attributes":[{"key":"effect.record","value":{"stringValue":"attempt"}}],"status":{"code":1}}]}]}]}`
	type result struct {
		Records []string // operation id and type of each record
		Err     string
		Count   int // SpanErrors.Count
		Spans   int
		Skipped int
	}
	many := make([]string, 10000)
	for i := range many {
		many[i] = bad
	}
	tests := []struct {
		name string
		line string
		want result
	}{
		{"a good span, then a bad one", export("", "", good, bad),
			result{[]string{"op-1 attempt"}, at(1), 1, 2, 0}},
		{"bad, skipped, good, bad", export("", "", bad, spanJSON(`{}`), good, bad),
			result{[]string{"op-1 attempt"}, "2 invalid spans: " + at(0) + "; " + at(3), 2, 4, 1}},
		{"the first three of five bad spans", export("", "", bad, bad, good, bad, bad, bad),
			result{[]string{"op-1 attempt"}, "5 invalid spans: " + at(0) + "; " + at(1) + "; " + at(3) + "; and 2 more", 5, 6, 0}},
		{"10,000 bad spans", export("", "", append(many, good)...),
			result{[]string{"op-1 attempt"}, "10000 invalid spans: " + at(0) + "; " + at(1) + "; " + at(2) + "; and 9997 more", 10000, 10001, 0}},
		{"the review's batch", batch,
			result{[]string{"op-A effect"}, `span "00000000000000b9" (resourceSpans[0].scopeSpans[0].spans[1])` + missing, 1, 2, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Converter{Mapping: DefaultMapping()}
			var got result
			err := c.Convert([]byte(tt.line), audit.Position{Line: 1}, func(r *audit.Record) {
				got.Records = append(got.Records, r.OperationID+" "+r.Type.String())
			})
			var ses *SpanErrors
			if !errors.As(err, &ses) {
				t.Fatalf("error %v (%T), want a *SpanErrors", err, err)
			}
			got.Err, got.Count, got.Spans, got.Skipped = err.Error(), ses.Count, c.Spans, c.Skipped
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var se *SpanError
			if !errors.As(err, &se) || se.Err == nil {
				t.Errorf("%v does not unwrap to a *SpanError", err)
			}
		})
	}
}

func TestLooks(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{`{"resourceSpans":[]}`, true},
		{`{"x":1,"resourceSpans":null}`, true},
		{`{"resource\u0053pans":[]}`, true},
		{`{"type":"attempt","operationId":"op"}`, false},
		{`{"resourceLogs":[]}`, true},
		{`{"resourceMetrics":[{"scopeMetrics":[]}]}`, true},
		{`{"resourceMetrics":[],"type":"attempt","operationId":"op"}`, false},
		{`{"resourceProfiles":[]}`, false},
		{`{"traces":[]}`, false},
		{`{"ResourceSpans":[]}`, false},
		{`{"x":{"resourceSpans":[]}}`, false},
		// A ledger record may carry any unknown member.
		{`{"type":"attempt","operationId":"op","resourceSpans":[]}`, false},
		{`{"resourceSpans":[],"operationId":"op"}`, false},
		{`{"resourceSpans":[],"type":"effect"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var p ndjson.Parser
			members, err := p.Parse([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if got := Looks(members); got != tt.want {
				t.Errorf("Looks = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLooksLong(t *testing.T) {
	tests := []struct {
		name, prefix string
		want         bool
	}{
		{"an export", `{"resourceSpans":[{"resource":`, true},
		{"spaced", " \t{ \t\"resourceSpans\" : [", true},
		{"a long ledger record naming it", `{"type":"attempt","x":"` + strings.Repeat("a", 100) + `","resourceSpans":[`, false},
		{"logs", `{"resourceLogs":[`, true},
		{"metrics, spaced", `{ "resourceMetrics" : [ {`, true},
		{"metrics, an object as the value", `{"resourceMetrics":{`, false},
		{"profiles", `{"resourceProfiles":[`, false},
		{"a record with the member as an unknown field", `{"resourceSpans":null,"type":"attempt","operationId":"op-1"`, false},
		{"cut before the value", `{"resourceSpans":`, false},
		{"an object as the value", `{"resourceSpans":{`, false},
		{"an array", `["resourceSpans"`, false},
		{"nothing", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LooksLong([]byte(tt.prefix)); got != tt.want {
				t.Errorf("LooksLong(%q) = %v, want %v", tt.prefix, got, tt.want)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		binary bool
	}{
		{"ledger", `{"type":"attempt"}` + "\n", false},
		{"otlp json", `{"resourceSpans":[]}`, false},
		{"bom and space", "\ufeff \r\n\t{", false},
		{"empty", "", false},
		{"blank", " \n\n", false},
		{"text that is not JSON", "hello, world\n{}\n", false},
		{"array", "[1,2]\n", false},
		{"utf-8 text", "é{}\n", false},
		{"character cut at the end", "\xc3", false},
		{"length prefix", "\x00\x00\x01\x2a\x0a\xa6\x02\x0a\x24", true},
		{"length prefix then zstd", "\x00\x00\x00\x40\x28\xb5\x2f\xfd", true},
		{"large length prefix", "\x01\x00\x00\x00\x0a", true},
		{"protobuf", "\x0a\xa6\x02\x0a\x24\x0a\x0c", true},
		{"protobuf, short first length", "\x0a\x20\x0a\x1e\x0a\x0c", true},
		{"nul later on", "abc\x00", true},
		{"invalid utf-8", "\xff\xfe{", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Sniff([]byte(tt.prefix))
			if got := err != nil; got != tt.binary {
				t.Fatalf("Sniff(%q) = %v, want binary %v", tt.prefix, err, tt.binary)
			}
			if err != nil && !errors.Is(err, ErrBinary) {
				t.Errorf("error %v is not ErrBinary", err)
			}
		})
	}
	// It names what writes frames, for the user who has format: json
	// already, and what to do.
	want := "OTLP protobuf and length-prefixed frames are not supported (the collector's file exporter writes frames, not lines, with format: proto and with compression: zstd, even with format: json); configure it with format: json and no compression, and compress the whole file with gzip or zstd instead if need be"
	if ErrBinary.Error() != want {
		t.Errorf("ErrBinary = %q, want %q", ErrBinary, want)
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		want  Mapping
	}{
		{"nothing", nil, DefaultMapping()},
		{"flat key", []string{"operationId=gen_ai.conversation.id"}, func() Mapping {
			m := DefaultMapping()
			m.OperationID = "gen_ai.conversation.id"
			return m
		}()},
		{"escaped dots", []string{`effectRef=provider\.object_id`, "type=app.record", "attempt=http.request.resend_count"}, func() Mapping {
			m := DefaultMapping()
			m.EffectRef, m.Type, m.Attempt = "provider.object_id", "app.record", "http.request.resend_count"
			return m
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, err := fieldmap.Parse(tt.specs)
			if err != nil {
				t.Fatal(err)
			}
			got := DefaultMapping()
			got.Apply(fm)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mapping (-want +got):\n%s", diff)
			}
		})
	}
	got := DefaultMapping()
	got.Apply(nil)
	if diff := cmp.Diff(DefaultMapping(), got); diff != "" {
		t.Errorf("Apply(nil) changed the mapping (-want +got):\n%s", diff)
	}
	// Every ledger field has an attribute, and the names do not collide.
	seen := map[string]string{}
	m := DefaultMapping()
	for _, f := range audit.Fields() {
		a := m.attr(f)
		if a == nil || *a == "" {
			t.Errorf("no default attribute for %s", f)
			continue
		}
		if other, dup := seen[*a]; dup {
			t.Errorf("%s and %s both read %q", f, other, *a)
		}
		seen[*a] = f
	}
}

// TestConvertFourBadSpans checks the count past the bad spans a line's
// error names: exactly one more is "; and 1 more".
func TestConvertFourBadSpans(t *testing.T) {
	bad := spanJSON(`{}`, isAttempt) // no operation id
	at := func(i int) string {
		return fmt.Sprintf(`span "00f067aa0ba902b7" (resourceSpans[0].scopeSpans[0].spans[%d]): field "operationId" (from attribute "effect.operation_id"): missing or empty`, i)
	}
	c := &Converter{Mapping: DefaultMapping()}
	err := c.Convert([]byte(export("", "", bad, bad, bad, bad)), audit.Position{Line: 1}, func(*audit.Record) {})
	if err == nil {
		t.Fatal("Convert accepted four bad spans")
	}
	want := "4 invalid spans: " + at(0) + "; " + at(1) + "; " + at(2) + "; and 1 more"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

package otlp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

// FuzzConvert converts arbitrary lines. Properties: nothing panics; a line
// that fails as a whole emits nothing and counts nothing; any other line
// emits one record per selected span that does not fail, each a valid
// record; Sniff and Looks cope with anything.
func FuzzConvert(f *testing.F) {
	f.Add([]byte(export("", "", spanJSON(`{"code":2,"message":"timeout"}`, isAttempt, op1))))
	f.Add([]byte(export(str("effect.scope", "r"), str("effect.scope", "s"), spanJSON(`{}`, isEffect, op1, str("effect.ref", "x")), spanJSON(`{}`))))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"","attributes":[{"key":"effect.record","value":{"intValue":"1"}}]}]}]}]}`))
	f.Add([]byte(`{"resourceSpans":null}`))
	f.Add([]byte(`{"resourceMetrics":[{"scopeMetrics":[]}]}`))
	f.Add([]byte(`{"resourceSpans":[{"instrumentationLibrarySpans":[{"instrumentationLibrary":{},"spans":[{"spanId":"0000000000000000"}]}]}]}`))
	f.Add([]byte(export("", "", spanJSON(`{}`, isAttempt, op1), spanJSON(`{}`, isAttempt), spanJSON(`{}`, isAttempt, str("effect.operation_id", "")))))
	f.Add([]byte("\x00\x00\x01\x2a\x0a\xa6\x02"))
	if data, err := os.ReadFile(filepath.Join("testdata", "four-operations.otlp.jsonl")); err == nil {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) > 0 {
				f.Add(line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		_ = Sniff(line)
		var p ndjson.Parser
		if members, err := p.Parse(line); err == nil {
			_ = Looks(members)
		}
		c := &Converter{Mapping: DefaultMapping()}
		var recs []audit.Record
		err := c.Convert(line, audit.Position{Line: 1}, func(r *audit.Record) { recs = append(recs, r.Clone()) })
		failed := 0
		if err != nil {
			ses, ok := err.(*SpanErrors)
			if !ok {
				if len(recs) != 0 || c.Spans != 0 || c.Skipped != 0 {
					t.Fatalf("failed line emitted %d records, counted %d spans, %d skipped", len(recs), c.Spans, c.Skipped)
				}
				return
			}
			if ses.Count == 0 || len(ses.Errs) != min(ses.Count, maxSpanErrors) {
				t.Fatalf("%d span errors kept of %d", len(ses.Errs), ses.Count)
			}
			failed = ses.Count
		}
		if len(recs) != c.Spans-c.Skipped-failed {
			t.Fatalf("%d records from %d spans with %d skipped and %d failed", len(recs), c.Spans, c.Skipped, failed)
		}
		for _, r := range recs {
			if r.Type != audit.Attempt && r.Type != audit.Effect || r.OperationID == "" {
				t.Fatalf("invalid record %+v", r)
			}
		}
	})
}

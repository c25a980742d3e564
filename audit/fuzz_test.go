package audit

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/ndjson"
)

// readAll parses and decodes input as the CLI does, returning the valid
// records (with their raw lines) and the line counts.
func readAll(t *testing.T, input []byte) (recs []Record, raws [][]byte, lines, blank, invalid int) {
	t.Helper()
	r := ndjson.NewReader(bytes.NewReader(input))
	var d Decoder
	for {
		line, err := r.Read()
		if err == io.EOF {
			break
		}
		var pe *ndjson.ParseError
		if errors.As(err, &pe) {
			invalid++
			continue
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		rec, err := d.Decode(line.Members, Position{Line: line.Line})
		if err != nil {
			invalid++
			continue
		}
		recs = append(recs, rec.Clone())
		raws = append(raws, bytes.Clone(line.Raw))
	}
	return recs, raws, r.Lines(), r.BlankLines(), invalid
}

// FuzzAudit checks the properties of the whole audit on arbitrary input:
// it never panics, every line is accounted for, and neither the order of
// records nor their split across inputs changes what the report says of
// any operation.
func FuzzAudit(f *testing.F) {
	seeds := []string{
		`{"type":"attempt","operationId":"op-1","attemptId":"a1","idempotencyKey":"k","payloadHash":"h1","result":"timeout","observedAt":"2026-11-29T10:00:00Z"}
{"type":"effect","operationId":"op-1","effectRef":"r1"}
{"type":"attempt","operationId":"op-2","attemptId":"a1","idempotencyKey":"k","payloadHash":"h2"}
{"type":"effect","operationId":"op-3","result":"absent","observedAt":"2026-11-29T10:00:00+01:00"}
{"type":"attempt","operationId":"op-3","observedAt":"2026-11-29T09:00:00Z"}`,
		`{"type":"attempt","operationId":"o","attemptId":"2","observedAt":"2026-11-29T10:00:09Z"}
{"type":"attempt","operationId":"o","attemptId":"1","result":"success","observedAt":"2026-11-29T10:00:05Z"}
{"type":"attempt","operationId":"o","attemptId":"2","result":"timeout","observedAt":"2026-11-29T10:00:04Z"}`,
		"{\"type\":\"effect\",\"operationId\":\"op\\u002d1\",\"effectRef\":\"r\"}\r\n\n[1]\n{\"type\":\"effect\"}",
		"\xef\xbb\xbf{}\n{\"a\":1,\"a\":2}\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, input []byte, seed uint64) {
		recs, _, lines, blank, invalid := readAll(t, input)
		if lines != blank+len(recs)+invalid {
			t.Fatalf("lines %d != blank %d + records %d + invalid %d", lines, blank, len(recs), invalid)
		}
		a := New(testPolicy{})
		for i := range recs {
			a.Add(&recs[i])
		}
		a.AddLines(lines, blank, len(recs))
		want := a.Report()
		s := want.Summary
		if s.Records != len(recs) || s.Lines != lines {
			t.Fatalf("summary %+v does not account for %d records of %d lines", s, len(recs), lines)
		}
		total := 0
		for _, n := range s.Labels {
			total += n
		}
		if total != s.Operations || s.Operations != len(want.OperationList()) {
			t.Fatalf("label counts %v do not add up to %d operations", s.Labels, s.Operations)
		}

		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		shuffled := append([]Record(nil), recs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		split := rng.IntN(len(shuffled) + 1)
		b := New(testPolicy{})
		for i := range shuffled {
			if i >= split {
				shuffled[i].Pos.Input = 1 // the rest comes from a second input
			}
			b.Add(&shuffled[i])
		}
		if diff := cmp.Diff(factsOf(want), factsOf(b.Report())); diff != "" {
			t.Errorf("operations changed by shuffling and splitting (-ordered +shuffled):\n%s", diff)
		}
	})
}

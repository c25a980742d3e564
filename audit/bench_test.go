package audit

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkAudit measures the rules alone: folding decoded records into an
// Auditor the way the command does (HashRecord, AddHashed) and judging every
// operation, on records shaped like a trace
// export (three records per operation, one key, one hash, one effect).
func BenchmarkAudit(b *testing.B) {
	const ops = 20000
	recs := make([]Record, 0, 3*ops)
	for i := range ops {
		id := fmt.Sprintf("op-%08x-%07d", uint32(i)*2654435761, i)
		key := fmt.Sprintf("idem-%016x", i)
		hash := fmt.Sprintf("sha256:%064x", i)
		when := Instant{Sec: 1764410400 + int64(i)}
		recs = append(recs,
			Record{Type: Attempt, OperationID: id, AttemptID: "att-1", IdempotencyKey: key, Scope: "stripe", PayloadHash: hash,
				Result: "timeout", ObservedAt: when, HasObservedAt: true, Pos: Position{Line: 3 * i}},
			Record{Type: Attempt, OperationID: id, AttemptID: "att-2", IdempotencyKey: key, Scope: "stripe", PayloadHash: hash,
				Result: "success", ObservedAt: Instant{Sec: when.Sec + 30}, HasObservedAt: true, Pos: Position{Line: 3*i + 1}},
			Record{Type: Effect, OperationID: id, EffectRef: fmt.Sprintf("ticket-%d", i), Result: "present",
				ObservedAt: Instant{Sec: when.Sec + 31}, HasObservedAt: true, Pos: Position{Line: 3*i + 2}},
		)
	}
	b.SetBytes(ledgerBytes(b, recs)) // MB/s of the ledger the records were read from
	b.ReportAllocs()
	b.ReportMetric(float64(len(recs)), "records/op")
	hashes := make([]RecordHash, len(recs))
	var scratch []byte
	for b.Loop() {
		a := New(nil)
		// As the command does: each record hashed where it is decoded,
		// then added with its hashes.
		for i := range recs {
			hashes[i], scratch = a.HashRecord(&recs[i], scratch)
		}
		a.AddHashed(recs, hashes)
		rep := a.Report()
		if rep.Summary.Labels[Healthy] != ops {
			b.Fatalf("labels %v", rep.Summary.Labels)
		}
	}
}

// ledgerBytes is the size of recs written as ledger NDJSON lines.
func ledgerBytes(b *testing.B, recs []Record) int64 {
	type line struct {
		Type           string `json:"type"`
		OperationID    string `json:"operationId"`
		AttemptID      string `json:"attemptId,omitempty"`
		IdempotencyKey string `json:"idempotencyKey,omitempty"`
		Scope          string `json:"scope,omitempty"`
		PayloadHash    string `json:"payloadHash,omitempty"`
		Result         string `json:"result,omitempty"`
		EffectRef      string `json:"effectRef,omitempty"`
		ObservedAt     string `json:"observedAt,omitempty"`
	}
	var n int64
	for _, r := range recs {
		l := line{OperationID: r.OperationID, AttemptID: r.AttemptID, IdempotencyKey: r.IdempotencyKey, Scope: r.Scope,
			PayloadHash: r.PayloadHash, Result: r.Result, EffectRef: r.EffectRef, Type: "effect"}
		if r.Type == Attempt {
			l.Type = "attempt"
		}
		if r.HasObservedAt {
			l.ObservedAt = r.ObservedAt.String()
		}
		data, err := json.Marshal(l)
		if err != nil {
			b.Fatal(err)
		}
		n += int64(len(data)) + 1
	}
	return n
}

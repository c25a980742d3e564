package audit

import (
	"fmt"
	"testing"
)

// BenchmarkAudit measures the rules alone: folding decoded records into an
// Auditor and judging every operation, on records shaped like a trace
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
	b.ReportAllocs()
	b.ReportMetric(float64(len(recs)), "records/op")
	for b.Loop() {
		a := New(nil)
		for i := range recs {
			a.Add(&recs[i])
		}
		rep := a.Report()
		if rep.Summary.Labels[Healthy] != ops {
			b.Fatalf("labels %v", rep.Summary.Labels)
		}
	}
}

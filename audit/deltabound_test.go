package audit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeltaOfAtItsBounds pins the exact ends of a compact delta. A delta
// counts milliseconds in an int32 whose lowest value, math.MinInt32, is
// noDelta ("never observed"): the deltas run from math.MinInt32+1 to
// math.MaxInt32, and an instant exactly 2^31 ms before the base has none
// (the operation goes wide), or it would read back as never observed.
func TestDeltaOfAtItsBounds(t *testing.T) {
	const ms = stamp(1e6)
	base := stamp(1_772_400_000) * 1e9
	for _, tt := range []struct {
		name string
		s    stamp
		ok   bool
	}{
		{"2^31-1 ms earlier", base - (1<<31-1)*ms, true},
		{"2^31 ms earlier", base - (1<<31)*ms, false},
		{"2^31+1 ms earlier", base - (1<<31+1)*ms, false},
		{"2^31-1 ms later", base + (1<<31-1)*ms, true},
		{"2^31 ms later", base + (1<<31)*ms, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			op := operation{base: base}
			d, ok := op.deltaOf(tt.s)
			if ok != tt.ok {
				t.Fatalf("ok = %v (delta %d), want %v", ok, d, tt.ok)
			}
			if !ok {
				return
			}
			if d == noDelta {
				t.Errorf("delta is noDelta")
			}
			if got := op.stampOf(d); got != tt.s {
				t.Errorf("reads back as %v, want %v", got, tt.s)
			}
		})
	}
}

// TestInstantsAtTheDeltaBound audits two attempts 2^31 ms apart and one
// millisecond either side of it, the later one first, so that the earlier
// one is measured from the later one's base: each is kept, and the span
// reaches the retention finding.
func TestInstantsAtTheDeltaBound(t *testing.T) {
	type observed struct {
		First, Last string
		Findings    []Finding
	}
	const first = "2026-01-01T00:00:00Z"
	for _, tt := range []struct {
		name, later string
		want        observed
	}{
		{
			name:  "2^31-1 ms apart",
			later: "2026-01-25T20:31:23.647Z",
			want: observed{first, "2026-01-25T20:31:23.647Z", []Finding{{"retry-past-retention",
				"attempts under key k span 596h31m23.647s (2026-01-01T00:00:00Z to 2026-01-25T20:31:23.647Z), beyond its 24h0m0s retention"}}},
		},
		{
			name:  "2^31 ms apart",
			later: "2026-01-25T20:31:23.648Z",
			want: observed{first, "2026-01-25T20:31:23.648Z", []Finding{{"retry-past-retention",
				"attempts under key k span 596h31m23.648s (2026-01-01T00:00:00Z to 2026-01-25T20:31:23.648Z), beyond its 24h0m0s retention"}}},
		},
		{
			name:  "2^31+1 ms apart",
			later: "2026-01-25T20:31:23.649Z",
			want: observed{first, "2026-01-25T20:31:23.649Z", []Finding{{"retry-past-retention",
				"attempts under key k span 596h31m23.649s (2026-01-01T00:00:00Z to 2026-01-25T20:31:23.649Z), beyond its 24h0m0s retention"}}},
		},
	} {
		for _, order := range []struct {
			name string
			recs []rec
		}{
			{"later first", []rec{
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: tt.later},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "timeout", when: first},
			}},
			{"earlier first", []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "timeout", when: first},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: tt.later},
			}},
		} {
			t.Run(tt.name+"/"+order.name, func(t *testing.T) {
				records := build(t, order.recs)
				a := New(testPolicy{})
				for i := range records {
					a.Add(&records[i])
				}
				ops := a.Report().OperationList()
				if len(ops) != 1 {
					t.Fatalf("%d operations, want 1", len(ops))
				}
				o := ops[0]
				got := observed{Findings: o.Findings}
				if o.FirstObservedAt != nil {
					got.First = *o.FirstObservedAt
				}
				if o.LastObservedAt != nil {
					got.Last = *o.LastObservedAt
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("operation o (-want +got):\n%s", diff)
				}
			})
		}
	}
}

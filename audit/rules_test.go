package audit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/google/go-cmp/cmp"
)

// at parses an RFC 3339 time for test records; it fails the test on error.
func at(t *testing.T, s string) Instant {
	t.Helper()
	i, err := ParseInstant(s)
	if err != nil {
		t.Fatalf("ParseInstant(%q): %v", s, err)
	}
	return i
}

type rec struct {
	typ                                        RecordType
	op, attempt, key, scope, hash, result, ref string
	when                                       string
}

func build(t *testing.T, recs []rec) []Record {
	t.Helper()
	out := make([]Record, len(recs))
	for i, r := range recs {
		out[i] = Record{
			Type: r.typ, OperationID: r.op, AttemptID: r.attempt, IdempotencyKey: r.key,
			Scope: r.scope, PayloadHash: r.hash, Result: r.result, EffectRef: r.ref,
			Pos: Position{Line: i + 1},
		}
		if r.typ == Effect && r.result == "" {
			out[i].Result = "present"
		}
		if r.when != "" {
			out[i].ObservedAt, out[i].HasObservedAt = at(t, r.when), true
		}
	}
	return out
}

func run(recs []Record) *Report {
	a := New(nil)
	for i := range recs {
		a.Add(&recs[i])
	}
	a.AddLines(len(recs), 0, len(recs))
	return a.Report()
}

// verdict is the part of an operation's report the rules decide.
type verdict struct {
	Op                 string
	Label              Label
	Attempts           int
	EffectObservations int
	DistinctEffects    int
}

func verdicts(rep *Report) []verdict {
	ops := rep.OperationList()
	out := make([]verdict, len(ops))
	for i, o := range ops {
		out[i] = verdict{o.OperationID, o.Label, o.Attempts, o.EffectObservations, o.DistinctEffects}
	}
	return out
}

const (
	A = Attempt
	E = Effect
)

func TestLabels(t *testing.T) {
	tests := []struct {
		name string
		recs []rec
		want []verdict
	}{
		{
			name: "one effect observed twice is healthy",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", key: "k", hash: "h", result: "timeout"},
				{typ: A, op: "op-1", attempt: "a2", key: "k", hash: "h", result: "success"},
				{typ: E, op: "op-1", ref: "ticket-908"},
				{typ: E, op: "op-1", ref: "ticket-908"},
			},
			want: []verdict{{"op-1", Healthy, 2, 2, 1}},
		},
		{
			name: "two effect refs are a duplicate",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", result: "timeout"},
				{typ: E, op: "op-1", ref: "delivery-a"},
				{typ: E, op: "op-1", ref: "delivery-b"},
			},
			want: []verdict{{"op-1", Duplicate, 1, 2, 2}},
		},
		{
			name: "effect refs are case-sensitive",
			recs: []rec{
				{typ: E, op: "op-1", ref: "Ticket-1"},
				{typ: E, op: "op-1", ref: "ticket-1"},
			},
			want: []verdict{{"op-1", Duplicate, 0, 2, 2}},
		},
		{
			name: "two hashes in one operation are a key conflict, even with duplicates",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", hash: "sha256:aa"},
				{typ: A, op: "op-1", attempt: "a2", hash: "sha256:AA"},
				{typ: E, op: "op-1", ref: "r1"},
				{typ: E, op: "op-1", ref: "r2"},
			},
			want: []verdict{{"op-1", KeyConflict, 2, 2, 2}},
		},
		{
			name: "a key reused by another operation with another hash conflicts both",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", key: "k", scope: "s", hash: "h1"},
				{typ: E, op: "op-1", ref: "r1"},
				{typ: A, op: "op-2", attempt: "a1", key: "k", scope: "s", hash: "h2"},
				{typ: E, op: "op-2", ref: "r2"},
				{typ: A, op: "op-3", attempt: "a1", key: "k", scope: "other", hash: "h3"},
				{typ: E, op: "op-3", ref: "r3"},
			},
			want: []verdict{
				{"op-1", KeyConflict, 1, 1, 1},
				{"op-2", KeyConflict, 1, 1, 1},
				{"op-3", Healthy, 1, 1, 1},
			},
		},
		{
			name: "an effect record's key binds too",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", key: "k", hash: "h1"},
				{typ: E, op: "op-1", key: "k", hash: "h2", ref: "r1"},
			},
			want: []verdict{{"op-1", KeyConflict, 1, 1, 1}},
		},
		{
			name: "a key without a hash binds nothing but shares the pair's conflict",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", key: "k"},
				{typ: E, op: "op-1", ref: "r1"},
				{typ: A, op: "op-2", attempt: "a1", key: "k", hash: "h1"},
				{typ: E, op: "op-2", ref: "r2"},
				{typ: A, op: "op-3", attempt: "a1", key: "k", hash: "h2"},
				{typ: E, op: "op-3", ref: "r3"},
			},
			want: []verdict{
				{"op-1", KeyConflict, 1, 1, 1},
				{"op-2", KeyConflict, 1, 1, 1},
				{"op-3", KeyConflict, 1, 1, 1},
			},
		},
		{
			name: "a key without a hash next to a hashed one is no conflict",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", key: "k"},
				{typ: A, op: "op-1", attempt: "a2", key: "k", hash: "h1"},
				{typ: E, op: "op-1", ref: "r1"},
			},
			want: []verdict{{"op-1", Healthy, 2, 1, 1}},
		},
		{
			name: "a scope without a key forms no pair",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", scope: "s", hash: "h1"},
				{typ: E, op: "op-1", ref: "r1"},
				{typ: A, op: "op-2", attempt: "a1", scope: "s", hash: "h2"},
				{typ: E, op: "op-2", ref: "r2"},
			},
			want: []verdict{{"op-1", Healthy, 1, 1, 1}, {"op-2", Healthy, 1, 1, 1}},
		},
		{
			name: "re-exported attempts count once, anonymous ones never merge",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", result: "timeout"},
				{typ: A, op: "op-1", attempt: "a1", result: "success"},
				{typ: A, op: "op-1", result: "timeout"},
				{typ: A, op: "op-1", result: "timeout"},
			},
			want: []verdict{{"op-1", Uncertain, 3, 0, 0}},
		},
		{
			name: "no effect and no absence is uncertain",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", result: "timeout", when: "2026-01-01T10:00:00Z"},
				{typ: A, op: "op-1", attempt: "a2", result: "timeout", when: "2026-01-01T10:00:30Z"},
			},
			want: []verdict{{"op-1", Uncertain, 2, 0, 0}},
		},
		{
			name: "absence after every attempt is absent",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T10:00:00Z"},
				{typ: A, op: "op-1", attempt: "a2", when: "2026-01-01T10:00:30Z"},
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T10:05:00Z"},
			},
			want: []verdict{{"op-1", Absent, 2, 0, 0}},
		},
		{
			name: "absence at the same instant as the last attempt is absent",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T10:00:30.5Z"},
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T11:00:30.500+01:00"},
			},
			want: []verdict{{"op-1", Absent, 1, 0, 0}},
		},
		{
			name: "absence before the last attempt is uncertain",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T10:00:00Z"},
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T10:01:00Z"},
				{typ: A, op: "op-1", attempt: "a2", when: "2026-01-01T10:02:00Z"},
			},
			want: []verdict{{"op-1", Uncertain, 2, 0, 0}},
		},
		{
			name: "time zones are resolved: a later wall clock can be an earlier instant",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T09:30:00Z"},
				// 10:00+02:00 is 08:00Z, before the attempt.
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T10:00:00+02:00"},
			},
			want: []verdict{{"op-1", Uncertain, 1, 0, 0}},
		},
		{
			name: "a later absence rescues an earlier one",
			recs: []rec{
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T09:00:00Z"},
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T09:30:00Z"},
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T09:45:00-00:00"},
			},
			want: []verdict{{"op-1", Absent, 1, 0, 0}},
		},
		{
			name: "an attempt without observedAt makes absence unreliable",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T10:00:00Z"},
				{typ: A, op: "op-1", attempt: "a2"},
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T10:05:00Z"},
			},
			want: []verdict{{"op-1", Uncertain, 2, 0, 0}},
		},
		{
			name: "an untimed re-export of a timed attempt still makes absence unreliable",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T10:00:00Z"},
				{typ: A, op: "op-1", attempt: "a1"},
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T10:05:00Z"},
			},
			want: []verdict{{"op-1", Uncertain, 1, 0, 0}},
		},
		{
			name: "times of any year compare as instants, to the nanosecond",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2300-01-01T00:00:00Z"},
				{typ: E, op: "op-1", result: "absent", when: "2263-01-01T00:00:00Z"},
				{typ: A, op: "op-2", attempt: "a1", when: "1600-01-01T00:00:00Z"},
				{typ: E, op: "op-2", result: "absent", when: "2026-01-01T00:00:00Z"},
				{typ: A, op: "op-3", attempt: "a1", when: "2026-01-01T00:00:00Z"},
				{typ: E, op: "op-3", result: "absent", when: "9999-12-31T23:59:59.999999999-23:59"},
				{typ: A, op: "op-4", attempt: "a1", when: "0000-01-01T00:00:00.000000001+23:59"},
				{typ: E, op: "op-4", result: "absent", when: "0000-01-01T00:00:00+23:59"},
				{typ: A, op: "op-5", attempt: "a1", when: "0000-01-01T00:00:00.000000001+23:59"},
				{typ: E, op: "op-5", result: "absent", when: "0000-01-01T00:00:00.000000001+23:59"},
			},
			want: []verdict{
				{"op-1", Uncertain, 1, 0, 0}, {"op-2", Absent, 1, 0, 0}, {"op-3", Absent, 1, 0, 0},
				{"op-4", Uncertain, 1, 0, 0}, {"op-5", Absent, 1, 0, 0},
			},
		},
		{
			name: "an absence without observedAt proves nothing after attempts",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T10:00:00Z"},
				{typ: E, op: "op-1", result: "absent"},
			},
			want: []verdict{{"op-1", Uncertain, 1, 0, 0}},
		},
		{
			name: "an absence with no attempt records is absent, timed or not",
			recs: []rec{
				{typ: E, op: "op-1", result: "absent"},
				{typ: E, op: "op-2", result: "absent", when: "2026-01-01T10:00:00Z"},
			},
			want: []verdict{{"op-1", Absent, 0, 0, 0}, {"op-2", Absent, 0, 0, 0}},
		},
		{
			name: "an effect beats an absence",
			recs: []rec{
				{typ: A, op: "op-1", attempt: "a1", when: "2026-01-01T10:00:00Z"},
				{typ: E, op: "op-1", result: "absent", when: "2026-01-01T10:05:00Z"},
				{typ: E, op: "op-1", ref: "r1", when: "2026-01-01T10:06:00Z"},
			},
			want: []verdict{{"op-1", Healthy, 1, 1, 1}},
		},
		{
			name: "an effect-only operation is healthy",
			recs: []rec{
				{typ: E, op: "op-1", attempt: "a9", ref: "r1"},
			},
			want: []verdict{{"op-1", Healthy, 0, 1, 1}},
		},
		{
			name: "operations are listed in order of first record",
			recs: []rec{
				{typ: E, op: "op-b", ref: "r1"},
				{typ: A, op: "op-a", attempt: "a1"},
				{typ: A, op: "op-b", attempt: "a1"},
			},
			want: []verdict{{"op-b", Healthy, 1, 1, 1}, {"op-a", Uncertain, 1, 0, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := verdicts(run(build(t, tt.recs)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReasons(t *testing.T) {
	tests := []struct {
		name string
		recs []rec
		want string
	}{
		{
			name: "healthy",
			recs: []rec{{typ: E, op: "o", ref: "ticket-908"}, {typ: E, op: "o", ref: "ticket-908"}},
			want: "2 effect observations resolve to 1 effectRef: ticket-908",
		},
		{
			name: "duplicate",
			recs: []rec{{typ: E, op: "o", ref: "delivery-a"}, {typ: E, op: "o", ref: "delivery-b"}},
			want: "2 effect observations resolve to 2 effectRefs: delivery-a, delivery-b",
		},
		{
			name: "hashes in one operation",
			recs: []rec{{typ: A, op: "o", hash: "h1"}, {typ: A, op: "o", hash: "h2"}},
			want: "2 payload hashes under one operation: h1, h2",
		},
		{
			name: "key shared across operations",
			recs: []rec{{typ: A, op: "o1", key: "k", scope: "s", hash: "h1"}, {typ: A, op: "o2", key: "k", scope: "s", hash: "h2"}},
			want: "key k (scope s) is bound to 2 payload hashes (h1, h2) across 2 operations",
		},
		{
			name: "uncertain names the results",
			recs: []rec{{typ: A, op: "o", attempt: "1", result: "timeout"}, {typ: A, op: "o", attempt: "2", result: "timeout"}},
			want: "2 attempts (timeout ×2), no effect observation and no proof of absence",
		},
		{
			name: "absence too early",
			recs: []rec{
				{typ: A, op: "o", when: "2026-01-01T10:00:00Z"},
				{typ: E, op: "o", result: "absent", when: "2026-01-01T09:00:00Z"},
			},
			want: "latest absent observation (2026-01-01T09:00:00Z) precedes the last attempt (2026-01-01T10:00:00Z)",
		},
		{
			name: "long lists are cut",
			recs: []rec{
				{typ: E, op: "o", ref: "r1"}, {typ: E, op: "o", ref: "r2"}, {typ: E, op: "o", ref: "r3"},
				{typ: E, op: "o", ref: "r4"}, {typ: E, op: "o", ref: "r5"},
			},
			want: "5 effect observations resolve to 5 effectRefs: r1, r2, r3 and 2 more",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := run(build(t, tt.recs))
			if diff := cmp.Diff(tt.want, rep.OperationList()[0].Reason); diff != "" {
				t.Errorf("reason (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReportShape(t *testing.T) {
	recs := build(t, []rec{
		{typ: A, op: "op-1", attempt: "a1", key: "k", scope: "s", hash: "h", result: "timeout", when: "2026-01-01T10:00:00+01:00"},
		{typ: A, op: "op-1", attempt: "a2", key: "k", scope: "s", hash: "h", result: "success", when: "2026-01-01T09:00:05.25Z"},
		{typ: E, op: "op-1", ref: "r1", when: "2026-01-01T09:01:00Z"},
		{typ: A, op: "op-2", attempt: "a1"},
	})
	got := run(recs)
	first, last := "2026-01-01T09:00:00Z", "2026-01-01T09:01:00Z"
	wantSummary := Summary{
		Lines: 4, Records: 4, Attempts: 3, EffectObservations: 1, Operations: 2,
		Labels:   map[Label]int{KeyConflict: 0, Duplicate: 0, Healthy: 1, Absent: 0, Uncertain: 1},
		Findings: newFindingCounts(),
	}
	wantOps := []Operation{
		{
			OperationID: "op-1", Label: Healthy, Reason: "1 effect observation resolves to 1 effectRef: r1",
			NextAction: Healthy.NextAction(), Attempts: 2, Results: Results{{"success", 1}, {"timeout", 1}},
			EffectObservations: 1, DistinctEffects: 1, EffectRefs: []string{"r1"},
			IdempotencyKeys: []string{"k"}, PayloadHashes: []string{"h"},
			FirstObservedAt: &first, LastObservedAt: &last, Findings: []Finding{}, First: Position{Line: 1},
		},
		{
			OperationID: "op-2", Label: Uncertain, Reason: "1 attempt, no effect observation and no proof of absence",
			NextAction: Uncertain.NextAction(), Attempts: 1, Results: Results{},
			EffectRefs: []string{}, IdempotencyKeys: []string{}, PayloadHashes: []string{},
			Findings: []Finding{}, First: Position{Line: 4},
		},
	}
	if got.SchemaVersion != 1 {
		t.Errorf("schemaVersion = %d", got.SchemaVersion)
	}
	if diff := cmp.Diff(wantSummary, got.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantOps, got.OperationList()); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Invalid{}, got.Invalid); diff != "" {
		t.Errorf("invalid (-want +got):\n%s", diff)
	}
}

// TestManyResults checks that results are never folded together, however
// many distinct ones there are.
func TestManyResults(t *testing.T) {
	a := New(nil)
	const n = 70000
	for i := range n {
		r := Record{Type: Attempt, OperationID: "o", AttemptID: fmt.Sprint(i), Result: fmt.Sprintf("r%d", i), Pos: Position{Line: i + 1}}
		a.Add(&r)
	}
	last := Record{Type: Attempt, OperationID: "o", AttemptID: "x", Result: "success", Pos: Position{Line: n + 1}}
	a.Add(&last)
	got := resultMap(t, a.Report().OperationList()[0].Results)
	if len(got) != n+1 || got["success"] != 1 || got["r69999"] != 1 {
		t.Errorf("%d distinct results, success %d; want %d and 1", len(got), got["success"], n+1)
	}
}

// TestMergeMatchesSingle checks that sharding operations across Auditors
// gives the report of one Auditor, including cross-shard key conflicts and
// operations whose times are compact, wide (nanoseconds) and far (the year
// 9999) on either side.
func TestMergeMatchesSingle(t *testing.T) {
	recs := build(t, []rec{
		{typ: A, op: "op-1", attempt: "a1", key: "k", hash: "h1", when: "2026-01-01T00:00:00Z"},
		{typ: A, op: "op-2", attempt: "a1", key: "k", hash: "h2", when: "2026-01-01T00:00:00.000000001Z"},
		{typ: E, op: "op-3", ref: "r", when: "9999-01-01T00:00:00Z"},
		{typ: A, op: "op-4", attempt: "a1", key: "j", hash: "h1"},
		{typ: E, op: "op-1", ref: "r", when: "2026-01-01T00:00:01Z"},
		{typ: A, op: "op-2", attempt: "a2", key: "k", hash: "h2", result: "success", when: "2026-01-01T00:00:00.5Z"},
		{typ: A, op: "op-2", attempt: "a3", key: "k", hash: "h2", when: "9999-12-31T23:59:59Z"},
		{typ: E, op: "op-4", result: "absent", when: "0000-01-01T00:00:00Z"},
		{typ: A, op: "op-1", attempt: "a2", key: "k2", hash: "h1", when: "1600-01-01T00:00:00Z"},
	})
	want := run(recs)
	shards := []*Auditor{New(nil), New(nil)}
	for i := range recs {
		shard := shards[0]
		if id := recs[i].OperationID; id == "op-2" || id == "op-3" {
			shard = shards[1]
		}
		shard.Add(&recs[i])
	}
	shards[0].AddLines(5, 0, 5)
	shards[1].AddLines(4, 0, 4)
	got := Merge(shards...)
	if diff := cmp.Diff(want.Summary, got.Summary); diff != "" {
		t.Errorf("merged summary (-single +merged):\n%s", diff)
	}
	if diff := cmp.Diff(want.OperationList(), got.OperationList()); diff != "" {
		t.Errorf("merged operations (-single +merged):\n%s", diff)
	}
}

// TestResultCountsPastInline drives an operation's results past what its
// inline counts hold (16-bit codes and counts), in every order, and checks
// the counts and their first-seen order against a plain tally.
func TestResultCountsPastInline(t *testing.T) {
	const many = 70000 // past 65535
	for _, tt := range []struct {
		name    string
		results func(add func(string))
	}{
		{"one result counted past 16 bits", func(add func(string)) {
			for range many {
				add("timeout")
			}
			add("success")
		}},
		{"the second inline result overflows", func(add func(string)) {
			add("success")
			for range many {
				add("timeout")
			}
			add("conflict")
			add("success")
		}},
		{"a third result before the overflow", func(add func(string)) {
			add("a")
			add("b")
			add("c")
			for range many {
				add("b")
			}
			add("c")
		}},
		{"thousands of distinct results, indexed", func(add func(string)) {
			for i := range 3000 {
				add(fmt.Sprintf("error %d", i%1000))
			}
		}},
		// 40 results past the index, then the inline timeout past 16 bits,
		// which moves the results; then only known ones, or some new.
		{"results indexed, then an inline count overflows, then none is new", indexedThenOverflow(many, 100, 40, false)},
		{"results indexed, then an inline count overflows", indexedThenOverflow(many, 60, 50, true)},
	} {
		for _, highCodes := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/high codes %v", tt.name, highCodes), func(t *testing.T) {
				testResultCounts(t, highCodes, tt.results)
			})
		}
	}
}

// indexedThenOverflow adds two inline results, 40 more past the index and
// enough timeouts to overflow the inline count, then after errors of
// error i%mod for i below after, and success again if last.
func indexedThenOverflow(many, after, mod int, last bool) func(add func(string)) {
	return func(add func(string)) {
		add("success")
		add("timeout")
		for i := range 40 {
			add(fmt.Sprintf("error %d", i))
		}
		for range many {
			add("timeout")
		}
		for i := range after {
			add(fmt.Sprintf("error %d", i%mod))
		}
		if last {
			add("success")
		}
	}
}

func testResultCounts(t *testing.T, highCodes bool, results func(add func(string))) {
	a := New(nil)
	if highCodes {
		// Result codes past 16 bits: intern many results first,
		// in another operation.
		for i := range 70000 {
			r := Record{Type: Attempt, OperationID: "other", AttemptID: fmt.Sprint(i), Result: fmt.Sprintf("r%d", i)}
			a.Add(&r)
		}
	}
	want := map[string]int{}
	var order []string
	n := 0
	results(func(result string) {
		n++
		r := Record{Type: Attempt, OperationID: "o", AttemptID: fmt.Sprint(n), Result: result, Pos: Position{Line: n}}
		a.Add(&r)
		if want[result] == 0 {
			order = append(order, result)
		}
		want[result]++
	})
	a.AddLines(n, 0, n)
	// Past indexAfter results, every one is indexed at its position, also
	// after the inline results spilled in front of the others.
	for i := range a.ops.len() {
		op := a.opAt(i)
		if a.st.str(op.id) != "o" || op.extra == 0 {
			continue
		}
		x := a.extras.at(int(op.extra - 1))
		if len(x.results) > indexAfter && len(x.resultAt) != len(x.results) {
			t.Errorf("%d results, %d of them indexed", len(x.results), len(x.resultAt))
		}
		for at, rc := range x.results {
			if i, ok := x.resultAt[rc.code]; x.resultAt != nil && (!ok || int(i) != at) {
				t.Errorf("result %d at %d is indexed at %d (%v)", rc.code, at, i, ok)
			}
		}
	}
	rep := a.Report()
	var got []string
	for _, o := range rep.OperationList() {
		if o.OperationID != "o" {
			continue
		}
		if diff := cmp.Diff(want, resultMap(t, o.Results)); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		got = append(got, o.Reason)
	}
	// The reason names the first results seen, in that order.
	var b text
	b.s(fmt.Sprint(n), " attempts (")
	for i, r := range order[:min(len(order), listNamed)] {
		if i > 0 {
			b.s(", ")
		}
		b.s(r)
		if want[r] > 1 {
			b.s(" ×", fmt.Sprint(want[r]))
		}
	}
	if len(order) > listNamed {
		b.s(" and ", fmt.Sprint(len(order)-listNamed), " more")
	}
	b.s("), no effect observation and no proof of absence")
	if diff := cmp.Diff([]string{string(b.b)}, got); diff != "" {
		t.Errorf("reason (-want +got):\n%s", diff)
	}
}

// TestMergedAuditorIsFinal checks that a merged Auditor refuses records and
// a second merge, which would otherwise go wrong quietly: Merge lets go of
// the indexes both need.
func TestMergedAuditorIsFinal(t *testing.T) {
	rec := Record{Type: Attempt, OperationID: "o", AttemptID: "a"}
	for name, misuse := range map[string]func(a *Auditor){
		"Add":      func(a *Auditor) { a.Add(&rec) },
		"AddBatch": func(a *Auditor) { a.AddBatch([]Record{rec}) },
		"Merge":    func(a *Auditor) { Merge(a) },
	} {
		t.Run(name, func(t *testing.T) {
			a := New(nil)
			a.Add(&rec)
			a.Report()
			defer func() {
				if recover() == nil {
					t.Errorf("%s after Merge did not panic", name)
				}
			}()
			misuse(a)
		})
	}
}

// resultMap returns r as a map, checking that r is in order of result names
// with each name once, and that Count agrees.
func resultMap(t *testing.T, r Results) map[string]int {
	t.Helper()
	m := make(map[string]int, len(r))
	for i, c := range r {
		if i > 0 && r[i-1].Result >= c.Result {
			t.Errorf("results out of order: %q before %q", r[i-1].Result, c.Result)
		}
		m[c.Result] = c.Attempts
		if n := r.Count(c.Result); n != c.Attempts {
			t.Errorf("Count(%q) = %d, want %d", c.Result, n, c.Attempts)
		}
	}
	return m
}

// TestOrderWithTies checks the report's order where first positions tie,
// which they do only past what a packed position keeps (here, spans 65536
// and on of one line): by first position, then by id, whether one Auditor
// or several saw the operations, and however many goroutines render them.
func TestOrderWithTies(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var recs []Record
	for i := range 3000 {
		pos := Position{Line: 1 + i/10, Seq: i % 10}
		if r.IntN(3) == 0 {
			pos = Position{Line: 1 + i/500, Seq: 1<<16 + i} // saturates: ties the others of its line
		}
		id := fmt.Sprintf("op-%04d", r.IntN(10000))
		recs = append(recs, Record{Type: Effect, OperationID: id, Result: "present", EffectRef: "r-" + id, Pos: pos})
	}
	slices.SortStableFunc(recs, func(x, y Record) int { return comparePos(x.Pos, y.Pos) })
	single := New(nil)
	shards := []*Auditor{New(nil), New(nil), New(nil)}
	for i := range recs {
		single.Add(&recs[i])
		shards[int(recs[i].OperationID[len(recs[i].OperationID)-1])%3].Add(&recs[i])
	}
	type key struct {
		First packedPos
		ID    string
	}
	var want []key
	for _, o := range single.Report().OperationList() {
		want = append(want, key{pack(o.First), o.OperationID})
	}
	if !slices.IsSortedFunc(want, func(x, y key) int {
		switch {
		case x.First < y.First:
			return -1
		case x.First > y.First:
			return 1
		}
		return strings.Compare(x.ID, y.ID)
	}) {
		t.Errorf("one Auditor's operations are not in order of first position, then id")
	}
	var got []key
	merged := Merge(shards...)
	merged.view.renderers = 3
	for _, o := range merged.OperationList() {
		got = append(got, key{pack(o.First), o.OperationID})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sharded order (-single +sharded):\n%s", diff)
	}
}

// TestSiblingsAddHashed routes records to sibling Auditors by their
// HashRecord, as the pipeline does, adds them with AddHashed, and checks the merged report
// against one Auditor's.
func TestSiblingsAddHashed(t *testing.T) {
	recs := build(t, []rec{
		{typ: A, op: "op-1", attempt: "a1", key: "k", hash: "h1", result: "timeout"},
		{typ: A, op: "op-2", attempt: "a1", key: "k", hash: "h2"},
		{typ: E, op: "op-3", ref: "r"},
		{typ: A, op: "op-1", attempt: "a2", key: "k", hash: "h1", result: "success"},
		{typ: E, op: "op-1", ref: "r"},
		{typ: A, op: "op-4", attempt: "a1", key: "j", hash: "h1"},
	})
	single := New(testPolicy{})
	single.AddBatch(recs)
	first := New(testPolicy{})
	shards := []*Auditor{first, first.Sibling(), first.Sibling()}
	parts := make([][]Record, len(shards))
	hashes := make([][]RecordHash, len(shards))
	var buf []byte
	for _, r := range recs {
		var h RecordHash
		h, buf = first.HashRecord(&r, buf)
		// What the merge looks a pair up by in the other shards.
		if want := first.pairHash(&r); h.Pair != want {
			t.Errorf("HashRecord(%+v).Pair = %#x, want %#x", r, h.Pair, want)
		}
		s := int((h.Op >> 32) % uint64(len(shards)))
		parts[s] = append(parts[s], r)
		hashes[s] = append(hashes[s], h)
	}
	for s, a := range shards {
		if a.Hash("op-1") != first.Hash("op-1") {
			t.Fatalf("sibling %d hashes differently", s)
		}
		a.AddHashed(parts[s], hashes[s])
	}
	want, got := single.Report(), Merge(shards...)
	if diff := cmp.Diff(want.OperationList(), got.OperationList()); diff != "" {
		t.Errorf("operations (-single +siblings):\n%s", diff)
	}
	defer func() {
		if recover() == nil {
			t.Error("AddHashed with too few hashes did not panic")
		}
	}()
	New(nil).AddHashed(recs, nil)
}

// TestPairsWithNULs checks that key pairs whose scope and key hold NULs stay
// apart: ("a\x00b", "c") and ("a", "b\x00c") are two pairs, each bound to
// its own hash, so neither operation is a key conflict.
func TestPairsWithNULs(t *testing.T) {
	recs := build(t, []rec{
		{typ: A, op: "o1", attempt: "1", scope: "a\x00b", key: "c", hash: "h1"},
		{typ: A, op: "o2", attempt: "1", scope: "a", key: "b\x00c", hash: "h2"},
	})
	rep := run(recs)
	for _, o := range rep.OperationList() {
		if o.Label == KeyConflict {
			t.Errorf("%s is a key conflict: %s", o.OperationID, o.Reason)
		}
	}
	if diff := cmp.Diff([]string{"c"}, rep.OperationList()[0].IdempotencyKeys); diff != "" {
		t.Errorf("o1's keys (-want +got):\n%s", diff)
	}
}

// TestKeepInvalid checks that every invalid line is counted whatever is
// kept, that the kept ones come out in input order across parts and past
// a chunk of them, and that a limit keeps the first ones.
func TestKeepInvalid(t *testing.T) {
	const n = 2*chunkSize + 5
	for _, keep := range []int{0, 3, -1} {
		t.Run(fmt.Sprintf("keep %d", keep), func(t *testing.T) {
			parts := []*Auditor{New(nil), New(nil)}
			var want []Invalid
			for i := range n {
				inv := Invalid{Input: "l.ndjson", Line: i + 1, Error: fmt.Sprintf("error %d", i), Pos: Position{Line: i + 1}}
				part := parts[i%7%2] // runs of lines in either part
				part.KeepInvalid(keep)
				part.AddInvalid(inv)
				want = append(want, inv)
			}
			rep := Merge(parts...)
			if rep.Summary.InvalidLines != n {
				t.Errorf("%d invalid lines counted; want %d", rep.Summary.InvalidLines, n)
			}
			switch {
			case keep == 0:
			case keep < 0:
				want = []Invalid{}
			default:
				// Each part keeps its first lines: the first three of the
				// first part and of the second, in input order.
				want = want[:6]
			}
			if diff := cmp.Diff(want, rep.Invalid); diff != "" {
				t.Errorf("invalid lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAttemptIDsCollidingInXXHash checks that two attempt ids whose xxhash
// values are equal (a published collision) are two attempts: attempt ids
// are fingerprinted with a hash seeded for each run, which no ledger can
// be made to collide.
func TestAttemptIDsCollidingInXXHash(t *testing.T) {
	first := "a00725:175:hk7lydsxf:1:1533:10719:6433 1:n:0:cgctagta+ctgatgag"
	second := "a00725:175:hk7lydsxf:3:2443:32606:14622 1:n:0:cgctagta+ctgatgag"
	if xxhash.Sum64String(first) != xxhash.Sum64String(second) {
		t.Fatal("the ids no longer collide in xxhash; the test needs a pair that does")
	}
	recs := build(t, []rec{
		{typ: A, op: "op-1", attempt: first, key: "k1", hash: "h", result: "success", when: "2026-01-01T10:00:00Z"},
		{typ: A, op: "op-1", attempt: second, result: "timeout", when: "2026-01-01T11:00:00Z"},
	})
	op := run(recs).OperationList()[0]
	if op.Attempts != 2 {
		t.Errorf("%d attempts; want 2", op.Attempts)
	}
	var codes []string
	for _, f := range op.Findings {
		codes = append(codes, f.Code)
	}
	if diff := cmp.Diff([]string{"missing-key", "retry-after-success"}, codes); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

package audit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// judgement is what the audit decides for one operation: its label, and
// its findings with their messages.
type judgement struct {
	Label    Label
	Findings []Finding
}

// judge audits recs under testPolicy and returns each operation's
// judgement.
func judge(t *testing.T, recs []rec) map[string]judgement {
	t.Helper()
	records := build(t, recs)
	a := New(testPolicy{})
	for i := range records {
		a.Add(&records[i])
	}
	out := map[string]judgement{}
	for _, o := range a.Report().OperationList() {
		out[o.OperationID] = judgement{o.Label, o.Findings}
	}
	return out
}

// judgeCase is a ledger and the judgement its audit must reach for each
// operation.
type judgeCase struct {
	name string
	recs []rec
	want map[string]judgement
}

// checkJudgements audits each case's records and compares the judgements;
// with reverse, it does so with the records reversed too, for cases whose
// judgements must not depend on their order.
func checkJudgements(t *testing.T, tests []judgeCase, reverse bool) {
	t.Helper()
	type order struct {
		name string
		recs []rec
	}
	for _, tt := range tests {
		orders := []order{{"", tt.recs}}
		if reverse {
			orders = []order{{"/in order", tt.recs}, {"/reversed", reversed(tt.recs)}}
		}
		for _, order := range orders {
			t.Run(tt.name+order.name, func(t *testing.T) {
				if diff := cmp.Diff(tt.want, judge(t, order.recs)); diff != "" {
					t.Errorf("judgements (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// reversed returns recs in reverse order: a fold that keeps the earliest or
// the latest instant must not depend on which record comes first.
func reversed(recs []rec) []rec {
	out := make([]rec, len(recs))
	for i, r := range recs {
		out[len(recs)-1-i] = r
	}
	return out
}

// TestRetryFindingsWithoutAttemptIDs checks the retry findings on attempt
// records without attemptId, each an attempt of its own (SPEC: attemptId
// is only recommended): the latest of them is the last attempt, and those
// that carry a key stretch that key's span.
func TestRetryFindingsWithoutAttemptIDs(t *testing.T) {
	const (
		t0 = "2026-01-01T10:00:00Z"
		t1 = "2026-01-01T10:01:00Z"
	)
	tests := []judgeCase{
		{
			name: "retry-after-success: an anonymous attempt after an anonymous success",
			recs: []rec{
				{typ: A, op: "o", key: "k", hash: "h", result: "success", when: t0},
				{typ: A, op: "o", key: "k", hash: "h", result: "timeout", when: t1},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{
				{"retry-after-success", "an attempt at 2026-01-01T10:01:00Z comes after the success at 2026-01-01T10:00:00Z"},
			}}},
		},
		{
			name: "retry-after-final: an anonymous attempt after an anonymous final result",
			recs: []rec{
				{typ: A, op: "o", key: "k", hash: "h", result: "invalid_arguments", when: t0},
				{typ: A, op: "o", key: "k", hash: "h", result: "timeout", when: t1},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{
				{"retry-after-final", "an attempt at 2026-01-01T10:01:00Z comes after a final result at 2026-01-01T10:00:00Z"},
			}}},
		},
		{
			name: "no retry-after-success: the anonymous success is the latest attempt",
			recs: []rec{
				{typ: A, op: "o", key: "k", hash: "h", result: "timeout", when: t0},
				{typ: A, op: "o", key: "k", hash: "h", result: "success", when: t1},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{}}},
		},
		{
			name: "retry-past-retention: anonymous attempts under one key span more than a day",
			recs: []rec{
				{typ: A, op: "o", key: "k", hash: "h", result: "timeout", when: "2026-01-01T00:00:00Z"},
				{typ: A, op: "o", key: "k", hash: "h", result: "timeout", when: "2026-01-02T01:00:00Z"},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{
				{"retry-past-retention", "attempts under key k span 25h0m0s (2026-01-01T00:00:00Z to 2026-01-02T01:00:00Z), beyond its 24h0m0s retention"},
			}}},
		},
		{
			name: "no retry-past-retention: anonymous attempts under one key within a day",
			recs: []rec{
				{typ: A, op: "o", key: "k", hash: "h", result: "timeout", when: "2026-01-01T00:00:00Z"},
				{typ: A, op: "o", key: "k", hash: "h", result: "timeout", when: "2026-01-01T23:00:00Z"},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{}}},
		},
	}
	checkJudgements(t, tests, true)
}

// TestEarliestAndLatestInstants checks the direction of each instant the
// time findings compare, with two records for each: the first success, the
// first final result, the first effect and the first attempt are the
// earliest of their records, whatever the input order.
func TestEarliestAndLatestInstants(t *testing.T) {
	const (
		t0 = "2026-01-01T10:00:00Z"
		t1 = "2026-01-01T10:01:00Z"
		t2 = "2026-01-01T10:02:00Z"
	)
	tests := []judgeCase{
		{
			name: "retry-after-success: the first of two successes",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t0},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: t1},
				{typ: A, op: "o", attempt: "3", key: "k", hash: "h", result: "success", when: t2},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{
				{"retry-after-success", "an attempt at 2026-01-01T10:02:00Z comes after the success at 2026-01-01T10:00:00Z"},
			}}},
		},
		{
			name: "retry-after-final: the first of two final results",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "invalid_arguments", when: t0},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: t1},
				{typ: A, op: "o", attempt: "3", key: "k", hash: "h", result: "invalid_arguments", when: t2},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{
				{"retry-after-final", "an attempt at 2026-01-01T10:02:00Z comes after a final result at 2026-01-01T10:00:00Z"},
			}}},
		},
		{
			name: "effect-before-attempt: the first of two effects",
			recs: []rec{
				{typ: E, op: "o", ref: "r", when: t0},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t1},
				{typ: E, op: "o", ref: "r", when: t2},
			},
			want: map[string]judgement{"o": {Healthy, []Finding{
				{"effect-before-attempt", "an effect observed at 2026-01-01T10:00:00Z precedes the first attempt at 2026-01-01T10:01:00Z: clock skew or mis-attribution"},
			}}},
		},
		{
			name: "no effect-before-attempt: the first of two attempts comes before the effect",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "timeout", when: t0},
				{typ: E, op: "o", ref: "r", when: t1},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "success", when: t2},
			},
			want: map[string]judgement{"o": {Healthy, []Finding{}}},
		},
	}
	checkJudgements(t, tests, true)
}

// TestRetentionSpanCountsKeyedAttempts checks that a key's span runs over
// the attempts that carried the key, not over every attempt of its
// operation: a keyless retry a day later is missing-key, not a retry past
// the key's retention.
func TestRetentionSpanCountsKeyedAttempts(t *testing.T) {
	tests := []judgeCase{
		{
			name: "a keyless retry a day later",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "timeout", when: "2026-01-01T00:00:00Z"},
				{typ: A, op: "o", attempt: "2", result: "timeout", when: "2026-01-02T01:00:00Z"},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{
				{"missing-key", "1 of 2 attempts carries no idempotencyKey"},
			}}},
		},
		{
			name: "a keyless retry a day earlier",
			recs: []rec{
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: "2026-01-02T01:00:00Z"},
				{typ: A, op: "o", attempt: "1", result: "timeout", when: "2026-01-01T00:00:00Z"},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{
				{"missing-key", "1 of 2 attempts carries no idempotencyKey"},
			}}},
		},
		{
			name: "the keyed attempts alone span more than a day",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "timeout", when: "2026-01-01T00:00:00Z"},
				{typ: A, op: "o", attempt: "2", result: "timeout", when: "2026-01-01T12:00:00Z"},
				{typ: A, op: "o", attempt: "3", key: "k", hash: "h", result: "timeout", when: "2026-01-02T01:00:00Z"},
			},
			want: map[string]judgement{"o": {Uncertain, []Finding{
				{"missing-key", "1 of 3 attempts carries no idempotencyKey"},
				{"retry-past-retention", "attempts under key k span 25h0m0s (2026-01-01T00:00:00Z to 2026-01-02T01:00:00Z), beyond its 24h0m0s retention"},
			}}},
		},
	}
	checkJudgements(t, tests, false)
}

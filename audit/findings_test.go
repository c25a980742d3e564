package audit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/google/go-cmp/cmp"
)

// testPolicy makes invalid_arguments final and keys last a day, two hours in
// scope "short".
type testPolicy struct{}

func (testPolicy) IsFinal(result string) bool { return result == "invalid_arguments" }

func (testPolicy) Retention(scope string) time.Duration {
	if scope == "short" {
		return 2 * time.Hour
	}
	return 24 * time.Hour
}

// codes returns the finding codes of each operation.
func codes(t *testing.T, recs []rec) map[string][]string {
	t.Helper()
	records := build(t, recs)
	a := New(testPolicy{})
	for i := range records {
		a.Add(&records[i])
	}
	rep := a.Report()
	out := map[string][]string{}
	for _, o := range rep.OperationList() {
		for _, f := range o.Findings {
			out[o.OperationID] = append(out[o.OperationID], f.Code)
			if f.Message == "" {
				t.Errorf("%s: finding %s has no message", o.OperationID, f.Code)
			}
		}
	}
	// The summary counts what the operations carry.
	for _, c := range findingCodes {
		n := 0
		for _, cs := range out {
			if slices.Contains(cs, c) {
				n++
			}
		}
		if rep.Summary.Findings[c] != n {
			t.Errorf("summary counts %d %s, operations carry %d", rep.Summary.Findings[c], c, n)
		}
	}
	return out
}

func TestFindings(t *testing.T) {
	const (
		t0 = "2026-11-29T10:00:00Z"
		t1 = "2026-11-29T10:05:00Z"
		t2 = "2026-11-29T10:10:00Z"
	)
	tests := []struct {
		name string
		recs []rec
		want map[string][]string
	}{
		{
			name: "key-churn: a new key per retry",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k1", hash: "h"},
				{typ: A, op: "o", attempt: "2", key: "k2", hash: "h"},
			},
			want: map[string][]string{"o": {"key-churn"}},
		},
		{
			name: "no key-churn: one key in two scopes, or a second key only on an effect",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", scope: "a", hash: "h"},
				{typ: A, op: "o", attempt: "2", key: "k", scope: "b", hash: "h"},
				{typ: E, op: "o", key: "other", hash: "h", ref: "r"},
			},
			want: map[string][]string{},
		},
		{
			name: "missing-key: a retry without a key",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h"},
				{typ: A, op: "o", attempt: "2", hash: "h"},
			},
			want: map[string][]string{"o": {"missing-key"}},
		},
		{
			name: "no missing-key: an attempt exported once with its key and once without",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h"},
				{typ: A, op: "o", attempt: "2", hash: "h"},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h"},
			},
			want: map[string][]string{},
		},
		{
			name: "missing-key: a retry without a key, exported twice",
			recs: []rec{
				{typ: A, op: "o", attempt: "2", hash: "h"},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h"},
				{typ: A, op: "o", attempt: "2", hash: "h"},
			},
			want: map[string][]string{"o": {"missing-key"}},
		},
		{
			name: "missing-key: attempt records without attemptId, one without a key",
			recs: []rec{
				{typ: A, op: "o", key: "k", hash: "h"},
				{typ: A, op: "o", hash: "h"},
			},
			want: map[string][]string{"o": {"missing-key"}},
		},
		{
			name: "no missing-key: a single attempt without a key",
			recs: []rec{{typ: A, op: "o", attempt: "1", hash: "h"}, {typ: E, op: "o", ref: "r"}},
			want: map[string][]string{},
		},
		{
			name: "missing-payload-hash: a key without a hash",
			recs: []rec{{typ: A, op: "o", attempt: "1", key: "k"}},
			want: map[string][]string{"o": {"missing-payload-hash"}},
		},
		{
			name: "no missing-payload-hash: an effect with a key but no hash",
			recs: []rec{{typ: A, op: "o", attempt: "1", key: "k", hash: "h"}, {typ: E, op: "o", key: "k", ref: "r"}},
			want: map[string][]string{},
		},
		{
			name: "shared-key: two operations, one key, one hash",
			recs: []rec{
				{typ: A, op: "o1", attempt: "1", key: "k", scope: "s", hash: "h"},
				{typ: A, op: "o2", attempt: "1", key: "k", scope: "s", hash: "h"},
			},
			want: map[string][]string{"o1": {"shared-key"}, "o2": {"shared-key"}},
		},
		{
			name: "no shared-key: the same key in two scopes",
			recs: []rec{
				{typ: A, op: "o1", attempt: "1", key: "k", scope: "s1", hash: "h"},
				{typ: A, op: "o2", attempt: "1", key: "k", scope: "s2", hash: "h"},
			},
			want: map[string][]string{},
		},
		{
			name: "no shared-key: two hashes make it a key conflict instead",
			recs: []rec{
				{typ: A, op: "o1", attempt: "1", key: "k", hash: "h1"},
				{typ: A, op: "o2", attempt: "1", key: "k", hash: "h2"},
			},
			want: map[string][]string{},
		},
		{
			name: "shared-effect: one effectRef under two operations",
			recs: []rec{
				{typ: A, op: "o1", attempt: "1"}, {typ: E, op: "o1", ref: "charge-1"},
				{typ: A, op: "o2", attempt: "1"}, {typ: E, op: "o2", ref: "charge-1"},
			},
			want: map[string][]string{"o1": {"shared-effect"}, "o2": {"shared-effect"}},
		},
		{
			name: "no shared-effect: refs differ in case",
			recs: []rec{
				{typ: A, op: "o1", attempt: "1"}, {typ: E, op: "o1", ref: "charge-1"},
				{typ: A, op: "o2", attempt: "1"}, {typ: E, op: "o2", ref: "Charge-1"},
			},
			want: map[string][]string{},
		},
		{
			name: "retry-after-success",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", result: "success", when: t0},
				{typ: A, op: "o", attempt: "2", result: "timeout", when: t1},
			},
			want: map[string][]string{"o": {"missing-key", "retry-after-success"}},
		},
		{
			name: "no retry-after-success: the later attempt has no observedAt",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t0},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout"},
			},
			want: map[string][]string{},
		},
		{
			name: "no retry-after-success: the success came last",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "timeout", when: t0},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "success", when: t1},
			},
			want: map[string][]string{},
		},
		{
			name: "no retry-after-success: the success exported twice, the second time later",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t0},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t1},
			},
			want: map[string][]string{},
		},
		{
			name: "no retry-after-success: one attempt, its success exported stamped before its other record",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "timeout", when: t1},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t0},
			},
			want: map[string][]string{},
		},
		{
			name: "no retry-after-final: one attempt, its final result exported stamped before its other record",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "timeout", when: t1},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "invalid_arguments", when: t0},
			},
			want: map[string][]string{},
		},
		{
			name: "retry-after-success: the success is known from a later record of its attempt",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: t0},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t1},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: t2},
			},
			want: map[string][]string{"o": {"retry-after-success"}},
		},
		{
			name: "no retry-after-success: an attempt is observed at its earliest record, not its first in the input",
			recs: []rec{
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: t2},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t1},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: t0},
			},
			want: map[string][]string{},
		},
		{
			name: "retry-after-success: an attempt's earliest record comes after the success, in any order",
			recs: []rec{
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: t2},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: t0},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: t2},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: t1},
			},
			want: map[string][]string{"o": {"retry-after-success"}},
		},
		{
			name: "no retry-after-success: a wide operation's attempts keep their times",
			recs: []rec{
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: "2026-01-01T10:00:09Z"},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: "2026-01-01T10:00:05Z"},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: "2026-01-01T10:00:04.000000001Z"},
			},
			want: map[string][]string{},
		},
		{
			name: "retry-after-success: in a wide operation",
			recs: []rec{
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: "2026-01-01T10:00:09Z"},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: "2026-01-01T10:00:05Z"},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: "2026-01-01T10:00:06.000000001Z"},
			},
			want: map[string][]string{"o": {"retry-after-success"}},
		},
		{
			name: "no retry-after-success: a far operation's attempts keep their times",
			recs: []rec{
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: "2026-01-01T10:00:09Z"},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: "2026-01-01T10:00:05Z"},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: "1600-01-01T10:00:00Z"},
			},
			want: map[string][]string{"o": {"retry-past-retention"}}, // but no retry-after-success
		},
		{
			name: "no retry-past-retention: one attempt re-exported days later",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: "2026-01-01T10:00:00Z"},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: "2026-01-03T10:00:00Z"},
			},
			want: map[string][]string{},
		},
		{
			name: "no retry-past-retention: an attempt dated by its earliest record, which comes last",
			recs: []rec{
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: "2026-01-03T10:00:00Z"},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: "2026-01-01T10:00:00Z"},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: "2026-01-01T11:00:00Z"},
			},
			want: map[string][]string{},
		},
		{
			name: "retry-past-retention: an attempt under a second key is dated by its earliest record",
			recs: []rec{
				{typ: A, op: "o", attempt: "x", key: "k1", hash: "h", when: "2026-01-01T00:00:00Z"},
				{typ: A, op: "o", attempt: "x", key: "k2", hash: "h", when: "2026-01-01T02:00:00Z"},
				{typ: A, op: "o", attempt: "y", key: "k2", hash: "h", when: "2026-01-02T01:00:00Z"},
			},
			want: map[string][]string{"o": {"key-churn", "retry-past-retention"}},
		},
		{
			name: "retry-past-retention: the same, in reverse order",
			recs: []rec{
				{typ: A, op: "o", attempt: "y", key: "k2", hash: "h", when: "2026-01-02T01:00:00Z"},
				{typ: A, op: "o", attempt: "x", key: "k2", hash: "h", when: "2026-01-01T02:00:00Z"},
				{typ: A, op: "o", attempt: "x", key: "k1", hash: "h", when: "2026-01-01T00:00:00Z"},
			},
			want: map[string][]string{"o": {"key-churn", "retry-past-retention"}},
		},
		{
			name: "no retry-past-retention: an attempt under a second key that it carried first",
			recs: []rec{
				{typ: A, op: "o", attempt: "x", key: "k1", hash: "h", when: "2026-01-01T00:00:00Z"},
				{typ: A, op: "o", attempt: "y", key: "k2", hash: "h", when: "2026-01-02T01:00:00Z"},
				{typ: A, op: "o", attempt: "x", when: "2026-01-01T02:00:00Z"},
			},
			want: map[string][]string{"o": {"key-churn"}}, // x carries a key in its first record
		},
		{
			name: "retry-past-retention over centuries does not overflow",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: "1700-01-01T00:00:00Z"},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: "2200-01-01T00:00:00Z"},
			},
			want: map[string][]string{"o": {"retry-past-retention"}},
		},
		{
			name: "retry-after-final",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "invalid_arguments", when: t0},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "timeout", when: t1},
			},
			want: map[string][]string{"o": {"retry-after-final"}},
		},
		{
			name: "no retry-after-final: a retryable result first",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "http_503", when: t0},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", result: "invalid_arguments", when: t1},
			},
			want: map[string][]string{},
		},
		{
			name: "retry-past-retention: attempts under one key span more than the scope keeps it",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", scope: "short", hash: "h", when: "2026-11-29T10:00:00Z"},
				{typ: A, op: "o", attempt: "2", key: "k", scope: "short", hash: "h", when: "2026-11-29T12:00:01Z"},
			},
			want: map[string][]string{"o": {"retry-past-retention"}},
		},
		{
			name: "no retry-past-retention: within the default scope's day, time zones resolved",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: "2026-11-29T10:00:00Z"},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: "2026-11-30T11:00:00+02:00"},
			},
			want: map[string][]string{},
		},
		{
			name: "orphan-effect",
			recs: []rec{{typ: E, op: "o", ref: "r"}},
			want: map[string][]string{"o": {"orphan-effect"}},
		},
		{
			name: "no orphan-effect: only an absence",
			recs: []rec{{typ: E, op: "o", result: "absent"}},
			want: map[string][]string{},
		},
		{
			name: "effect-before-attempt",
			recs: []rec{
				{typ: E, op: "o", ref: "r", when: t0},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: t1},
			},
			want: map[string][]string{"o": {"effect-before-attempt"}},
		},
		{
			name: "no effect-before-attempt: the effect is untimed",
			recs: []rec{
				{typ: E, op: "o", ref: "r"},
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: t1},
			},
			want: map[string][]string{},
		},
		{
			name: "times of any year: a retry centuries after a success, an effect before the attempt",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", result: "success", when: "2026-01-01T00:00:00Z"},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: "2300-01-01T00:00:00Z"},
				{typ: E, op: "p", ref: "r", when: "1600-01-01T00:00:00Z"},
				{typ: A, op: "p", attempt: "1", key: "k2", hash: "h", when: "1600-01-01T00:00:00.000000001Z"},
			},
			want: map[string][]string{"o": {"retry-after-success", "retry-past-retention"}, "p": {"effect-before-attempt"}},
		},
		{
			name: "no effect-before-attempt: an attempt is untimed, and may be the first",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h"},
				{typ: E, op: "o", ref: "r", when: t0},
				{typ: A, op: "o", attempt: "2", key: "k", hash: "h", when: t1},
			},
			want: map[string][]string{},
		},
		{
			name: "contradictory-evidence",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k", hash: "h", when: t0},
				{typ: E, op: "o", ref: "r", when: t1},
				{typ: E, op: "o", result: "absent", when: t2},
			},
			want: map[string][]string{"o": {"contradictory-evidence"}},
		},
		{
			name: "sensitive-identifier: an e-mail address in the operation id",
			recs: []rec{{typ: A, op: "op-send:alice@example.com", attempt: "1", key: "k", hash: "h"}, {typ: E, op: "op-send:alice@example.com", ref: "r"}},
			want: map[string][]string{"op-send:alice@example.com": {"sensitive-identifier"}},
		},
		{
			name: "no sensitive-identifier: ordinary ids and keys",
			recs: []rec{
				{typ: A, op: "op-email-3", attempt: "1", key: "ticket-481:create-task:v1", hash: "sha256:5446a8c523c64babf9881d182e9e2ba5eed12bbe7138ce1318555ed18b31148c"},
				{typ: E, op: "op-email-3", ref: "r"},
				{typ: A, op: "6f1c0b1e-8d0a-4f6e-9d77-3c1f5c7b2a10", attempt: "1", key: "7d1e2f3a-1b2c-4d5e-8f90-a1b2c3d4e5f6", hash: "h"},
				{typ: E, op: "6f1c0b1e-8d0a-4f6e-9d77-3c1f5c7b2a10", ref: "r2"},
			},
			want: map[string][]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, codes(t, tt.recs)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFindingsAcrossShards checks that findings that span operations
// (shared keys and effects) are found when the operations sit in different
// Auditors.
func TestFindingsAcrossShards(t *testing.T) {
	recs := build(t, []rec{
		{typ: A, op: "o1", attempt: "1", key: "k", hash: "h"}, {typ: E, op: "o1", ref: "charge-1"},
		{typ: A, op: "o2", attempt: "1", key: "k", hash: "h"}, {typ: E, op: "o2", ref: "charge-1"},
	})
	single := New(testPolicy{})
	shards := []*Auditor{New(testPolicy{}), New(testPolicy{})}
	for i := range recs {
		single.Add(&recs[i])
		shards[i/2].Add(&recs[i])
	}
	want, got := single.Report(), Merge(shards...)
	if diff := cmp.Diff(want.OperationList(), got.OperationList()); diff != "" {
		t.Errorf("operations (-single +sharded):\n%s", diff)
	}
	if got.Summary.Findings["shared-key"] != 2 || got.Summary.Findings["shared-effect"] != 2 {
		t.Errorf("summary findings %v, want 2 shared-key and 2 shared-effect", got.Summary.Findings)
	}
}

// TestSharedEffectsAcrossManyShards spreads operations with effects drawn
// from a small pool over several Auditors, so that shared effects sit in
// every part and every share of the bitmaps, and checks the sharded report
// against one Auditor's.
func TestSharedEffectsAcrossManyShards(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var recs []Record
	for i := range 4000 {
		op := fmt.Sprintf("op-%d", r.IntN(1500))
		recs = append(recs, Record{Type: Effect, OperationID: op, Result: "present",
			EffectRef: fmt.Sprintf("ref-%d", r.IntN(3000)), Pos: Position{Line: i + 1}})
	}
	single := New(nil)
	shards := []*Auditor{New(nil), New(nil), New(nil), New(nil), New(nil)}
	for i := range recs {
		single.Add(&recs[i])
		sum := 0
		for _, c := range []byte(recs[i].OperationID) {
			sum += int(c)
		}
		shards[sum%len(shards)].Add(&recs[i])
	}
	want, got := single.Report(), Merge(shards...)
	if want.Summary.Findings["shared-effect"] < 500 {
		t.Fatalf("only %d operations share an effect: the test would prove little", want.Summary.Findings["shared-effect"])
	}
	if diff := cmp.Diff(want.OperationList(), got.OperationList()); diff != "" {
		t.Errorf("operations (-single +sharded):\n%s", diff)
	}
}

// TestKeyPairsAcrossManyShards spreads operations whose key pairs are drawn
// from a pool, some shared and most not, over several Auditors, with and
// without a common hash seed, and checks the sharded report against one
// Auditor's: a pair's totals must unite every part that has it.
func TestKeyPairsAcrossManyShards(t *testing.T) {
	for _, siblings := range []bool{false, true} {
		t.Run(fmt.Sprintf("siblings=%v", siblings), func(t *testing.T) {
			r := rand.New(rand.NewPCG(13, 14))
			var recs []Record
			for i := range 6000 {
				key := fmt.Sprintf("unique-%d", i)
				if r.IntN(3) == 0 {
					key = fmt.Sprintf("shared-%d", r.IntN(300))
				}
				recs = append(recs, Record{Type: Attempt, OperationID: fmt.Sprintf("op-%d", r.IntN(4000)),
					AttemptID: fmt.Sprint(i), Result: "timeout", Scope: []string{"", "s"}[r.IntN(2)],
					IdempotencyKey: key, PayloadHash: fmt.Sprintf("h%d", r.IntN(3)), Pos: Position{Line: i + 1}})
			}
			single := New(nil)
			shards := []*Auditor{New(nil)}
			for range 4 {
				if siblings {
					shards = append(shards, shards[0].Sibling())
				} else {
					shards = append(shards, New(nil))
				}
			}
			for i := range recs {
				single.Add(&recs[i])
				shards[xxhash.Sum64String(recs[i].OperationID)%uint64(len(shards))].Add(&recs[i])
			}
			want, got := single.Report(), Merge(shards...)
			if n := want.Summary.Labels[KeyConflict]; n < 500 {
				t.Fatalf("only %d key conflicts: the test would prove little (%v)", n, want.Summary)
			}
			if diff := cmp.Diff(want.OperationList(), got.OperationList()); diff != "" {
				t.Errorf("operations (-single +sharded):\n%s", diff)
			}
		})
	}
}

// TestFindingMessages checks the wording of messages the golden files do
// not reach: lists cut short, singular and plural, a sensitive key.
func TestFindingMessages(t *testing.T) {
	var sixShare []rec
	for i := 1; i <= 6; i++ {
		op := fmt.Sprintf("o%d", i)
		sixShare = append(sixShare, rec{typ: A, op: op, attempt: "1"}, rec{typ: E, op: op, ref: "charge-1"})
	}
	for _, tt := range []struct {
		name string
		recs []rec
		op   string
		want []Finding
	}{
		{
			name: "an effect shared with five others names three",
			recs: sixShare,
			op:   "o4",
			want: []Finding{{"shared-effect", "effectRef charge-1 is also observed under operations o1, o2, o3 and 2 more"}},
		},
		{
			name: "an effect shared with one other",
			recs: sixShare[:4],
			op:   "o1",
			want: []Finding{{"shared-effect", "effectRef charge-1 is also observed under operation o2"}},
		},
		{
			name: "one keyless attempt of two",
			recs: []rec{{typ: A, op: "o1", attempt: "1", key: "k", hash: "h"}, {typ: A, op: "o1", attempt: "2"}, {typ: A, op: "o1", attempt: "2"}},
			op:   "o1",
			want: []Finding{{"missing-key", "1 of 2 attempts carries no idempotencyKey"}},
		},
		{
			name: "keyless attempts with and without ids",
			recs: []rec{{typ: A, op: "o1", attempt: "1", key: "k", hash: "h"}, {typ: A, op: "o1", attempt: "2"}, {typ: A, op: "o1"}},
			op:   "o1",
			want: []Finding{{"missing-key", "2 of 3 attempts carry no idempotencyKey"}},
		},
		{
			name: "a key that looks like a credential",
			recs: []rec{{typ: A, op: "o1", attempt: "1", key: "sk_live_4eC39HqLyjWDarjtT1zdp7dc", hash: "h"}},
			op:   "o1",
			want: []Finding{{"sensitive-identifier", "an idempotencyKey looks like it carries sensitive data (Stripe live secret key prefix sk_live_)"}},
		},
		{
			name: "churn over four keys names three",
			recs: []rec{
				{typ: A, op: "o1", attempt: "1", key: "k1", hash: "h"}, {typ: A, op: "o1", attempt: "2", key: "k2", hash: "h"},
				{typ: A, op: "o1", attempt: "3", key: "k3", hash: "h"}, {typ: A, op: "o1", attempt: "4", key: "k4", hash: "h"},
			},
			op:   "o1",
			want: []Finding{{"key-churn", "attempts carry 4 idempotency keys (k1, k2, k3 and 1 more): the provider cannot de-duplicate them"}},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			records := build(t, tt.recs)
			a := New(testPolicy{})
			for i := range records {
				a.Add(&records[i])
			}
			for _, o := range a.Report().OperationList() {
				if o.OperationID == tt.op {
					if diff := cmp.Diff(tt.want, o.Findings); diff != "" {
						t.Errorf("findings of %s (-want +got):\n%s", tt.op, diff)
					}
					return
				}
			}
			t.Fatalf("no operation %s", tt.op)
		})
	}
}

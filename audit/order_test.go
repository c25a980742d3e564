package audit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// opFacts is what the report says of an operation, less what names input
// positions or follows the input's order: the reason and finding messages
// (which name lines and list results as first seen) and the order of
// lists.
type opFacts struct {
	Label                                         Label
	Attempts, EffectObservations, DistinctEffects int
	Results                                       map[string]int
	EffectRefs, Keys, Hashes, Findings            []string
	First, Last                                   string
}

func factsOf(rep *Report) map[string]opFacts {
	sorted := func(s []string) []string { return slices.Sorted(slices.Values(s)) }
	out := map[string]opFacts{}
	for _, o := range rep.OperationList() {
		f := opFacts{
			Label: o.Label, Attempts: o.Attempts, EffectObservations: o.EffectObservations,
			DistinctEffects: o.DistinctEffects, Results: map[string]int{},
			EffectRefs: sorted(o.EffectRefs), Keys: sorted(o.IdempotencyKeys), Hashes: sorted(o.PayloadHashes),
		}
		for _, r := range o.Results {
			f.Results[r.Result] = r.Attempts
		}
		for _, fi := range o.Findings {
			f.Findings = append(f.Findings, fi.Code)
		}
		f.Findings = sorted(f.Findings)
		if o.FirstObservedAt != nil {
			f.First, f.Last = *o.FirstObservedAt, *o.LastObservedAt
		}
		out[o.OperationID] = f
	}
	return out
}

// randomLedger draws records from small pools, so that operations share
// attempts re-exported with other times and results, keys, hashes and
// effects, and some go wide (instants not whole milliseconds apart) or far
// (years a stamp does not span).
func randomLedger(rng *rand.Rand, n int) []Record {
	pick := func(pool ...string) string { return pool[rng.IntN(len(pool))] }
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	recs := make([]Record, n)
	for i := range recs {
		r := Record{
			Type: Attempt, OperationID: pick("o1", "o2", "o3", "o4", "o5"),
			AttemptID: pick("", "a1", "a2", "a3", "a3"), IdempotencyKey: pick("", "k1", "k1", "k2"),
			Scope: pick("", "", "short"), PayloadHash: pick("", "h1", "h1", "h1", "h2"),
			Result: pick("", "success", "timeout", "timeout", "invalid_arguments"),
		}
		if rng.IntN(4) == 0 {
			r.Type, r.AttemptID = Effect, pick("", "a1")
			r.Result, r.EffectRef = pick("present", "present", "absent"), pick("ref-1", "ref-2")
			if r.Result == "absent" {
				r.EffectRef = ""
			}
		}
		if rng.IntN(8) != 0 {
			t := base.Add(time.Duration(rng.IntN(20)) * 10 * time.Minute) // past the 2 hours of scope "short"
			switch rng.IntN(30) {
			case 0:
				t = t.Add(time.Nanosecond)
			case 1:
				t = t.AddDate(-500, 0, 0)
			}
			r.ObservedAt, r.HasObservedAt = Instant{Sec: t.Unix(), Nsec: int32(t.Nanosecond())}, true
		}
		recs[i] = r
	}
	return recs
}

// TestShuffledInputGivesTheSameReport checks that the report says the same
// of every operation, and sums up the same, whatever the order of the
// records, however they are split across inputs and sharded.
func TestShuffledInputGivesTheSameReport(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 11))
	for round := range 300 {
		recs := randomLedger(rng, 1+rng.IntN(40))
		want := auditInOrder(recs, 1)
		for shuffle := range 4 {
			shuffled := slices.Clone(recs)
			rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			split := rng.IntN(len(shuffled) + 1)
			for i := range shuffled {
				shuffled[i].Pos = Position{Line: i + 1}
				if i >= split {
					shuffled[i].Pos = Position{Input: 1, Line: i - split + 1}
				}
			}
			got := auditInOrder(shuffled, 1+shuffle%3)
			if diff := cmp.Diff(factsOf(want), factsOf(got)); diff != "" {
				t.Fatalf("round %d, shuffle %d: operations changed (-in order +shuffled):\n%s\nrecords in order:\n%s",
					round, shuffle, diff, listRecords(recs))
			}
			if diff := cmp.Diff(want.Summary, got.Summary); diff != "" {
				t.Fatalf("round %d, shuffle %d: summary changed (-in order +shuffled):\n%s", round, shuffle, diff)
			}
		}
	}
}

// auditInOrder audits recs in order with testPolicy, each
// operation in one of shards Auditors.
func auditInOrder(recs []Record, shards int) *Report {
	parts := make([]*Auditor, shards)
	for i := range parts {
		parts[i] = New(testPolicy{})
	}
	for i := range recs {
		id := recs[i].OperationID
		parts[int(id[len(id)-1])%shards].Add(&recs[i])
	}
	parts[0].AddLines(len(recs), 0, len(recs))
	return Merge(parts...)
}

func listRecords(recs []Record) string {
	var s string
	for _, r := range recs {
		when := "-"
		if r.HasObservedAt {
			when = time.Unix(r.ObservedAt.Sec, int64(r.ObservedAt.Nsec)).UTC().Format(time.RFC3339Nano)
		}
		s += fmt.Sprintf("%v %s attempt=%q key=%q/%q hash=%q result=%q ref=%q at=%s\n", r.Type, r.OperationID,
			r.AttemptID, r.Scope, r.IdempotencyKey, r.PayloadHash, r.Result, r.EffectRef, when)
	}
	return s
}

// TestResultsPastTheBitmask checks results counted past the codes an
// attempt keeps as bits: each attempt counts once under each result it
// reported, in any order.
func TestResultsPastTheBitmask(t *testing.T) {
	var recs []Record
	want := map[string]int{}
	for i := range 40 {
		result := fmt.Sprintf("http_%d", 500+i)
		for range 2 {
			recs = append(recs, Record{Type: Attempt, OperationID: "o", AttemptID: "a1", Result: result})
		}
		want[result]++
		if i%3 == 0 {
			recs = append(recs, Record{Type: Attempt, OperationID: "o", AttemptID: "a2", Result: result})
			want[result]++
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 5 {
		if round > 0 {
			rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
		}
		got := factsOf(auditInOrder(recs, 1))["o"]
		if diff := cmp.Diff(want, got.Results); diff != "" {
			t.Errorf("round %d: results (-want +got):\n%s", round, diff)
		}
		if got.Attempts != 2 {
			t.Errorf("round %d: %d attempts, want 2", round, got.Attempts)
		}
	}
}

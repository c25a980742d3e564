package audit

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/synth"
)

// shortRetention is a policy under which some synthetic operations retry
// past a key's retention and some results are final.
type shortRetention struct{}

func (shortRetention) IsFinal(result string) bool {
	return result == "http_409" || result == "http_400"
}
func (shortRetention) Retention(string) time.Duration { return 30 * time.Second }

// TestBriefsMatchOperations checks that a brief is the operation less its
// words: the same ids, labels, counts, lists and finding codes, in the same
// order, with no reason, times or messages.
func TestBriefsMatchOperations(t *testing.T) {
	var ledger bytes.Buffer
	if _, err := synth.Generate(synth.Config{Ops: 3000, Seed: 5, Window: 256}, &ledger, nil); err != nil {
		t.Fatal(err)
	}
	recs, _, _, _, _ := readAll(t, ledger.Bytes())
	for _, policy := range []Policy{nil, shortRetention{}} {
		parts := []*Auditor{New(policy)}
		parts = append(parts, parts[0].Sibling(), parts[0].Sibling())
		for i := range recs {
			parts[parts[0].Hash(recs[i].OperationID)%3].Add(&recs[i])
		}
		rep := Merge(parts...)

		var want, got []Operation
		findings := 0
		if err := rep.Operations(func(o *Operation) error {
			c := o.Clone()
			c.Reason, c.FirstObservedAt, c.LastObservedAt = "", nil, nil
			for i := range c.Findings {
				c.Findings[i].Message = ""
				findings++
			}
			want = append(want, c)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := rep.Briefs(func(o *Operation) error {
			got = append(got, o.Clone())
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(want) != 3000 || findings == 0 {
			t.Fatalf("%d operations with %d findings: the ledger does not test much", len(want), findings)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("policy %v: briefs differ from the operations less their words (-want +got):\n%s", policy, diff)
		}
	}
}

// TestAnnotate checks that every way of handing out operations annotates
// each of them once, in parallel batches (go test -race checks that the
// batches do not share what they annotate), and for a report built of
// operations already rendered too.
func TestAnnotate(t *testing.T) {
	var ledger bytes.Buffer
	if _, err := synth.Generate(synth.Config{Ops: 2000, Seed: 9, Window: 64}, &ledger, nil); err != nil {
		t.Fatal(err)
	}
	recs, _, _, _, _ := readAll(t, ledger.Bytes())
	a := New(nil)
	a.AddBatch(recs)
	audited := a.Report()
	rendered := NewReport(audited.Summary, audited.OperationList(), nil)
	for _, rep := range []*Report{audited, rendered} {
		var calls, wrong atomic.Int64
		rep.Annotate = func(o *Operation) {
			calls.Add(1)
			o.Baseline = "after " + o.OperationID
		}
		// check may run on the rendering goroutines: it counts, the test
		// goroutine reports.
		check := func(o *Operation) error {
			if o.Baseline != "after "+o.OperationID {
				wrong.Add(1)
			}
			return nil
		}
		ways := []struct {
			name string
			run  func() error
		}{
			{"Operations", func() error { return rep.Operations(check) }},
			{"Briefs", func() error { return rep.Briefs(check) }},
			{"EncodeOperations", func() error {
				return rep.EncodeOperations(func() Encoder {
					return func(dst []byte, o *Operation) []byte {
						_ = check(o)
						return append(dst, o.Baseline...)
					}
				}, func([]byte) error { return nil })
			}},
		}
		for _, way := range ways {
			t.Run(way.name, func(t *testing.T) {
				calls.Store(0)
				wrong.Store(0)
				if err := way.run(); err != nil {
					t.Fatal(err)
				}
				if n := calls.Load(); n != int64(rep.Summary.Operations) {
					t.Errorf("%d calls to Annotate for %d operations", n, rep.Summary.Operations)
				}
				if n := wrong.Load(); n != 0 {
					t.Errorf("%d operations handed out without their annotation", n)
				}
			})
		}
	}
}

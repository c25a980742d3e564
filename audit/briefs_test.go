package audit

import (
	"bytes"
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

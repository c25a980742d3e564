package audit

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOperationListOutlivesBatches renders a report of many batches, on
// several goroutines, and checks that the operations OperationList keeps
// still read as they did when each was handed out: their strings alias
// batch buffers that are reused, so Clone must copy them.
func TestOperationListOutlivesBatches(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var recs []rec
	for i := range 20000 {
		op := fmt.Sprintf("op-%d", i)
		when := fmt.Sprintf("2026-03-02T08:%02d:%02d.%03dZ", i/60%60, i%60, i%1000)
		recs = append(recs, rec{typ: A, op: op, attempt: "a1", key: "k-" + op, hash: fmt.Sprintf("sha256:%064x", i), result: "timeout", when: when})
		if i%3 > 0 {
			recs = append(recs, rec{typ: E, op: op, ref: fmt.Sprintf("ref-%d", i%1000), when: when})
		}
	}
	rep := run(build(t, recs))
	var want []string // each operation as JSON, taken while it is current
	err := rep.Operations(func(o *Operation) error {
		b, err := json.Marshal(o)
		want = append(want, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range rep.OperationList() {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations kept by OperationList changed (-when handed out +kept):\n%s", diff)
	}
}

package audit

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOperationListOutlivesBatches renders a report of many batches, on
// several goroutines, and checks that the operations OperationList keeps
// still read as they did when each was handed out: their strings alias
// batch buffers that are reused, so Clone must copy them.
func TestOperationListOutlivesBatches(t *testing.T) {
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
	rep.view.renderers = 2
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

// TestLongOperationsSplitBatches renders operations whose reasons are long
// enough that batches split into pieces (see batchBytes), on one goroutine
// and on several, and checks that every operation comes out once, in
// order, as rendered on its own.
func TestLongOperationsSplitBatches(t *testing.T) {
	var recs []rec
	const n = 1500
	for i := range n {
		op := fmt.Sprintf("op-%04d", i)
		ref := fmt.Sprintf("%c-%d", 'a'+i%26, i)
		if i%3 == 0 {
			ref += strings.Repeat("x", 50_000) // a reason of 50 kB
		}
		recs = append(recs, rec{typ: E, op: op, ref: ref})
	}
	records := build(t, recs)
	render := func(renderers int) []string {
		var out []string
		rep := run(records)
		rep.view.renderers = renderers
		err := rep.Operations(func(o *Operation) error {
			b, err := json.Marshal(o)
			out = append(out, string(b))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	one := render(1)
	if len(one) != n {
		t.Fatalf("%d operations, want %d", len(one), n)
	}
	for i, o := range one {
		if want := fmt.Sprintf(`"operationId":"op-%04d"`, i); !strings.Contains(o[:40], want) {
			t.Fatalf("operation %d is %.40s", i, o)
		}
	}
	if diff := cmp.Diff(one, render(3)); diff != "" {
		t.Errorf("operations differ with 3 goroutines (-1 +3):\n%.2000s", diff)
	}
}

// TestTextInstant checks instants written in full and within the day of the
// one before against time's RFC 3339 formatter, on runs of instants close
// together and far apart, before and after 1970, whole and fractional,
// from the year 0000 to 9999 and a day beyond each (where an offset takes
// them).
func TestTextInstant(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var tx text
	const minSec, maxSec = -62_167_219_200 - 86_400, 253_402_300_799 + 86_400
	sec := int64(0)
	for k := range 200_000 {
		switch r.IntN(4) {
		case 0:
			sec = r.Int64N(maxSec-minSec) + minSec // anywhere
		case 1:
			sec += r.Int64N(2*86400) - 86400 // nearby, maybe another day
		default:
			sec += r.Int64N(240) - 120 // mostly the same day
		}
		sec = max(min(sec, maxSec), minSec)
		nsec := int32(r.IntN(1e9))
		switch r.IntN(4) {
		case 0:
			nsec = 0
		case 1:
			nsec = nsec / 1e6 * 1e6
		case 2:
			nsec = []int32{1, 10, 100_000_000, 120_000_000, 999_999_999}[r.IntN(5)]
		}
		if k == 0 {
			sec, nsec = -86401, 5 // a negative day first
		}
		start := len(tx.b)
		tx.instant(Instant{Sec: sec, Nsec: nsec})
		want := time.Unix(sec, int64(nsec)).UTC().Format(time.RFC3339Nano)
		if got := string(tx.b[start:]); got != want {
			t.Fatalf("instant %d: wrote %q, want %q", k, got, want)
		}
		if len(tx.b) > 1<<20 {
			tx.b = tx.b[:0]
		}
	}
}

package ingest

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/effectaudit/effectaudit/audit"
)

// BenchmarkPipeline measures the whole audit of a generated ledger: reading,
// decoding, aggregating and rendering every operation.
func BenchmarkPipeline(b *testing.B) {
	data := synthLedger(b, 20000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p := New(Options{}, func() *audit.Auditor { return audit.New(nil) })
		if err := p.Read(Input{Name: "bench", R: bytes.NewReader(data)}, 0); err != nil {
			b.Fatal(err)
		}
		rep := p.Report()
		if err := rep.Operations(func(*audit.Operation) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTruthLarge checks the audit against the generator's truth on a ledger
// of about a million records. It takes tens of seconds, so it runs only with
// EFFECTAUDIT_LARGE=1 (EFFECTAUDIT_LARGE_OPS=N sets another size).
func TestTruthLarge(t *testing.T) {
	if os.Getenv("EFFECTAUDIT_LARGE") == "" {
		t.Skip("set EFFECTAUDIT_LARGE=1 to check the truth on a 1M-record ledger")
	}
	ops := 342000
	if n, err := strconv.Atoi(os.Getenv("EFFECTAUDIT_LARGE_OPS")); err == nil {
		ops = n
	}
	checkTruth(t, ops, 5)
}

package report

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/fixtures"
	"github.com/effectaudit/effectaudit/ingest"
	"github.com/effectaudit/effectaudit/policy"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report/ -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func ptr(s string) *string { return &s }

// fourOperations is the report of fixtures/four-operations.ndjson, written
// out by hand so the printers are tested apart from the audit, and so a
// change in what the audit reports shows as a diff here
// (TestFourOperationsIsTheAudit) before it shows in the golden files.
func fourOperations() *audit.Report {
	findings := zeroFindings()
	findings["missing-key"] = 1
	return audit.NewReport(
		audit.Summary{
			Lines:              12,
			BlankLines:         0,
			Records:            12,
			InvalidLines:       0,
			Attempts:           8,
			EffectObservations: 4,
			Operations:         4,
			Labels: map[audit.Label]int{
				audit.KeyConflict: 1,
				audit.Duplicate:   1,
				audit.Healthy:     1,
				audit.Absent:      0,
				audit.Uncertain:   1,
			},
			Findings: findings,
		},
		[]audit.Operation{
			{
				OperationID:        "op-ticket-42",
				Label:              audit.Healthy,
				Reason:             "2 effect observations resolve to 1 effectRef: ticket-908",
				NextAction:         audit.Healthy.NextAction(),
				Attempts:           2,
				Results:            audit.Results{{Result: "success", Attempts: 1}, {Result: "timeout", Attempts: 1}},
				EffectObservations: 2,
				DistinctEffects:    1,
				EffectRefs:         []string{"ticket-908"},
				IdempotencyKeys:    []string{"ticket-42:create-ticket:v1"},
				PayloadHashes:      []string{"sha256:d145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd94"},
				FirstObservedAt:    ptr("2026-11-29T09:00:00.12Z"),
				LastObservedAt:     ptr("2026-11-29T09:05:00Z"),
				Findings:           []audit.Finding{},
				First:              audit.Position{Input: 0, Line: 1},
			},
			{
				OperationID:        "op-webhook-77",
				Label:              audit.Duplicate,
				Reason:             "2 effect observations resolve to 2 effectRefs: delivery-a, delivery-b",
				NextAction:         audit.Duplicate.NextAction(),
				Attempts:           2,
				Results:            audit.Results{{Result: "success", Attempts: 1}, {Result: "timeout", Attempts: 1}},
				EffectObservations: 2,
				DistinctEffects:    2,
				EffectRefs:         []string{"delivery-a", "delivery-b"},
				IdempotencyKeys:    []string{"webhook-77:deliver:v1"},
				PayloadHashes:      []string{"sha256:5e3800eb9da3737ca1be6a335f92bab1b1ae99338dc7cc3c2f0261a7ed9a71e2"},
				FirstObservedAt:    ptr("2026-11-29T09:00:01.5Z"),
				LastObservedAt:     ptr("2026-11-29T09:01:05.3Z"),
				Findings:           []audit.Finding{},
				First:              audit.Position{Input: 0, Line: 2},
			},
			{
				OperationID: "op-vm-5",
				Label:       audit.KeyConflict,
				Reason: "2 payload hashes under one operation: " +
					"sha256:299a48e082127be3e13230a08f2b223e4b42817404a009a2fe467e030eb4f5cd, " +
					"sha256:12a711ee1626190bba8ad2855972e34519839797de88d7db63387837e5662ed8",
				NextAction:         audit.KeyConflict.NextAction(),
				Attempts:           2,
				Results:            audit.Results{{Result: "timeout", Attempts: 2}},
				EffectObservations: 0,
				DistinctEffects:    0,
				EffectRefs:         []string{},
				IdempotencyKeys:    []string{"vm-5:boot:v1"},
				PayloadHashes: []string{
					"sha256:299a48e082127be3e13230a08f2b223e4b42817404a009a2fe467e030eb4f5cd",
					"sha256:12a711ee1626190bba8ad2855972e34519839797de88d7db63387837e5662ed8",
				},
				FirstObservedAt: ptr("2026-11-29T09:01:00Z"),
				LastObservedAt:  ptr("2026-11-29T09:01:45Z"),
				Findings:        []audit.Finding{},
				First:           audit.Position{Input: 0, Line: 5},
			},
			{
				OperationID:        "op-email-3",
				Label:              audit.Uncertain,
				Reason:             "2 attempts (timeout ×2), no effect observation and no proof of absence",
				NextAction:         audit.Uncertain.NextAction(),
				Attempts:           2,
				Results:            audit.Results{{Result: "timeout", Attempts: 2}},
				EffectObservations: 0,
				DistinctEffects:    0,
				EffectRefs:         []string{},
				IdempotencyKeys:    []string{},
				PayloadHashes:      []string{"sha256:5446a8c523c64babf9881d182e9e2ba5eed12bbe7138ce1318555ed18b31148c"},
				FirstObservedAt:    ptr("2026-11-29T09:02:00Z"),
				LastObservedAt:     ptr("2026-11-29T09:02:30Z"),
				Findings: []audit.Finding{
					{Code: "missing-key", Message: "2 of 2 attempts carry no idempotencyKey"},
				},
				First: audit.Position{Input: 0, Line: 7},
			},
		},
		[]audit.Invalid{},
	)
}

// TestFourOperationsIsTheAudit holds fourOperations to what the audit
// reports on the fixture, every field and position, with the built-in policy
// and with none.
func TestFourOperationsIsTheAudit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy audit.Policy
	}{
		{"default policy", policy.Default()},
		{"no policy", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ingest.New(ingest.Options{}, func() *audit.Auditor { return audit.New(tc.policy) })
			in := ingest.Input{Name: fixtures.FourOperationsName, R: bytes.NewReader(fixtures.FourOperations)}
			if err := p.Read(in, 0); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(documentOf(fourOperations()), documentOf(p.Report())); diff != "" {
				t.Errorf("fourOperations differs from the audit's report (-fourOperations +audit):\n%s", diff)
			}
		})
	}
}

// emptyReport is the report of an empty input, shaped as audit.Merge builds it.
func emptyReport() *audit.Report {
	return audit.NewReport(audit.Summary{Labels: zeroLabels(), Findings: zeroFindings()}, []audit.Operation{}, []audit.Invalid{})
}

func zeroLabels() map[audit.Label]int {
	labels := make(map[audit.Label]int, len(audit.Labels()))
	for _, l := range audit.Labels() {
		labels[l] = 0
	}
	return labels
}

// zeroFindings returns every finding code at zero, as audit.Merge counts them.
func zeroFindings() map[string]int {
	findings := make(map[string]int, len(audit.FindingCodes()))
	for _, c := range audit.FindingCodes() {
		findings[c] = 0
	}
	return findings
}

// withOperations returns rep with other operations, the rest unchanged.
func withOperations(rep *audit.Report, ops []audit.Operation) *audit.Report {
	return audit.NewReport(rep.Summary, ops, rep.Invalid)
}

func TestNew(t *testing.T) {
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			p, err := New(format, Options{})
			if err != nil || p == nil {
				t.Fatalf("New(%q) = %v, %v; want a printer", format, p, err)
			}
		})
	}
	for _, format := range []string{"", "xml", "JSON", "table "} {
		t.Run("unknown "+format, func(t *testing.T) {
			p, err := New(format, Options{})
			if err == nil {
				t.Fatalf("New(%q) = %T, nil; want an error", format, p)
			}
			want := `unknown report format "` + format + `": want one of ` + strings.Join(Formats(), ", ")
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFourOperations prints the fixture's report in every format.
func TestFourOperations(t *testing.T) {
	for _, tc := range []struct {
		format string
		opts   Options
		file   string
	}{
		{"table", Options{}, "four-operations.table"},
		{"table", Options{Color: true}, "four-operations.color.table"},
		{"json", Options{}, "four-operations.json"},
		{"ndjson", Options{}, "four-operations.ndjson"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := printReport(t, tc.format, tc.opts, fourOperations())
			golden(t, tc.file, got)
		})
	}
}

func printReport(t testing.TB, format string, opts Options, rep *audit.Report) []byte {
	t.Helper()
	p, err := New(format, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Print(&buf, rep); err != nil {
		t.Fatalf("Print: %v", err)
	}
	return buf.Bytes()
}

var errDiskFull = errors.New("no space left on device")

// failWriter accepts n bytes, then fails every write.
type failWriter struct {
	n          int
	failed     bool
	afterFails int // writes attempted after the first failure
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.failed {
		w.afterFails++
		return 0, errDiskFull
	}
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	k := w.n
	w.n, w.failed = 0, true
	return k, errDiskFull
}

// TestWriteError checks that every printer returns the writer's error,
// whether the first write fails or one in the middle of a large report,
// and writes nothing after it. Operations fail the gate, so that JUnit
// writes its failure elements too.
func TestWriteError(t *testing.T) {
	big := manyOperations(3000, 7) // several chunks and buffers
	opts := Options{All: true, FailOn: specFailOn}
	for _, format := range Formats() {
		for _, tc := range []struct {
			name string
			rep  *audit.Report
			n    int
		}{
			{"first write", fourOperations(), 0},
			{"mid report", big, len(printReport(t, format, opts, big)) / 2},
			{"last bytes", fourOperations(), len(printReport(t, format, opts, fourOperations())) - 1},
		} {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				p, err := New(format, opts)
				if err != nil {
					t.Fatal(err)
				}
				w := &failWriter{n: tc.n}
				err = p.Print(w, tc.rep)
				if !errors.Is(err, errDiskFull) {
					t.Fatalf("Print = %v; want an error wrapping %v", err, errDiskFull)
				}
				if w.afterFails > 0 {
					t.Errorf("%d writes after the failed one; want none", w.afterFails)
				}
				if !strings.Contains(err.Error(), format) {
					t.Errorf("error %q does not name the format %q", err, format)
				}
			})
		}
	}
}

// reportOf builds a report around ops, with a summary that adds up.
func reportOf(ops []audit.Operation) *audit.Report {
	s := audit.Summary{Labels: zeroLabels(), Findings: zeroFindings(), Operations: len(ops)}
	for _, op := range ops {
		s.Labels[op.Label]++
		for _, f := range op.Findings {
			s.Findings[f.Code]++
		}
		s.Attempts += op.Attempts
		s.EffectObservations += op.EffectObservations
		records := op.Attempts + op.EffectObservations
		s.Records += records
		s.Lines += records
	}
	return audit.NewReport(s, ops, []audit.Invalid{})
}

// syntheticOperation returns a plausible operation number i with the label.
func syntheticOperation(i int, label audit.Label) audit.Operation {
	id := "op-" + strconv.Itoa(i)
	hash := fmt.Sprintf("sha256:%064x", i)
	op := audit.Operation{
		OperationID:     id,
		Label:           label,
		NextAction:      label.NextAction(),
		Attempts:        2,
		Results:         audit.Results{{Result: "success", Attempts: 1}, {Result: "timeout", Attempts: 1}},
		EffectRefs:      []string{},
		IdempotencyKeys: []string{id + ":create:v1"},
		PayloadHashes:   []string{hash},
		FirstObservedAt: ptr("2026-11-29T09:00:00.12Z"),
		LastObservedAt:  ptr("2026-11-29T09:05:00Z"),
		Findings:        []audit.Finding{},
		First:           audit.Position{Line: i + 1},
	}
	switch label {
	case audit.Healthy:
		op.EffectObservations, op.DistinctEffects = 2, 1
		op.EffectRefs = []string{"ticket-" + strconv.Itoa(i)}
		op.Reason = "2 effect observations resolve to 1 effectRef: " + op.EffectRefs[0]
	case audit.Duplicate:
		op.EffectObservations, op.DistinctEffects = 2, 2
		op.EffectRefs = []string{"delivery-" + strconv.Itoa(i) + "-a", "delivery-" + strconv.Itoa(i) + "-b"}
		op.Reason = "2 effect observations resolve to 2 effectRefs: " + strings.Join(op.EffectRefs, ", ")
	case audit.KeyConflict:
		op.PayloadHashes = append(op.PayloadHashes, fmt.Sprintf("sha256:%064x", -i))
		op.Reason = "2 payload hashes under one operation: " + strings.Join(op.PayloadHashes, ", ")
	case audit.Absent:
		op.Reason = "absent observed at 2026-11-29T09:05:00Z, at or after all 2 attempts (last at 2026-11-29T09:01:00Z)"
	default:
		op.Results = audit.Results{{Result: "timeout", Attempts: 2}}
		op.IdempotencyKeys = []string{}
		op.FirstObservedAt, op.LastObservedAt = nil, nil
		op.Reason = "2 attempts (timeout ×2), no effect observation and no proof of absence"
		op.Findings = []audit.Finding{{Code: "missing-key", Message: "2 of 2 attempts carry no idempotencyKey"}}
	}
	return op
}

// manyOperations returns a report of n operations, one in every
// unhealthyEvery of them not healthy (labels taken in turn).
func manyOperations(n, unhealthyEvery int) *audit.Report {
	others := []audit.Label{audit.Duplicate, audit.Uncertain, audit.KeyConflict, audit.Absent}
	ops := make([]audit.Operation, n)
	for i := range ops {
		label := audit.Healthy
		if i%unhealthyEvery == unhealthyEvery-1 {
			label = others[(i/unhealthyEvery)%len(others)]
		}
		ops[i] = syntheticOperation(i, label)
	}
	return reportOf(ops)
}

// TestStreams checks that the printers that stream add no allocation per
// operation: a report on millions of operations prints in constant memory.
func TestStreams(t *testing.T) {
	for _, format := range []string{"json", "ndjson", "junit"} {
		t.Run(format, func(t *testing.T) {
			p, err := New(format, Options{FailOn: specFailOn})
			if err != nil {
				t.Fatal(err)
			}
			// What the report's iterator allocates to hand out operations
			// is the audit's business; the printer must add nothing per
			// operation.
			allocs := func(rep *audit.Report) float64 {
				iterate := testing.AllocsPerRun(5, func() {
					_ = rep.Operations(func(*audit.Operation) error { return nil })
				})
				printing := testing.AllocsPerRun(5, func() {
					if err := p.Print(io.Discard, rep); err != nil {
						t.Fatal(err)
					}
				})
				return printing - iterate
			}
			small, large := allocs(manyOperations(100, 4)), allocs(manyOperations(20_000, 4))
			if large > small {
				t.Errorf("%v allocations for 20000 operations, %v for 100; want no growth", large, small)
			}
		})
	}
}

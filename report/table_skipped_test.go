package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

// TestTableSkippedLine checks the line under the table that says how many
// invalid lines --skip-invalid skipped and where they are listed: there
// from one invalid line on, singular for one, and absent with none.
func TestTableSkippedLine(t *testing.T) {
	const (
		four     = "4 operations: 1 key-conflict, 1 duplicate, 1 healthy, 0 absent, 1 uncertain · 8 attempts, 4 effect observations · "
		findings = "findings: missing-key 1"
	)
	withInvalid := func(rep *audit.Report, n int) *audit.Report {
		rep.Summary.Lines += n
		rep.Summary.InvalidLines = n
		return rep
	}
	for _, tc := range []struct {
		name string
		rep  *audit.Report
		want []string // the lines after the table
	}{
		{"no invalid line", withInvalid(fourOperations(), 0), []string{
			four + "12 lines (0 blank, 12 records, 0 invalid)",
			findings,
		}},
		{"one invalid line", withInvalid(fourOperations(), 1), []string{
			"1 invalid line skipped (--format json lists them)",
			four + "13 lines (0 blank, 12 records, 1 invalid)",
			findings,
		}},
		{"two invalid lines", withInvalid(fourOperations(), 2), []string{
			"2 invalid lines skipped (--format json lists them)",
			four + "14 lines (0 blank, 12 records, 2 invalid)",
			findings,
		}},
		{"one invalid line and no operations", withInvalid(emptyReport(), 1), []string{
			"1 invalid line skipped (--format json lists them)",
			"0 operations: 0 key-conflict, 0 duplicate, 0 healthy, 0 absent, 0 uncertain · 0 attempts, 0 effect observations · 1 line (0 blank, 0 records, 1 invalid)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := string(printReport(t, "table", Options{}, tc.rep))
			_, after, ok := strings.Cut(out, "\n\n")
			if !ok {
				t.Fatalf("no blank line after the table:\n%s", out)
			}
			if diff := cmp.Diff(tc.want, strings.Split(strings.TrimSuffix(after, "\n"), "\n")); diff != "" {
				t.Errorf("lines after the table (-want +got):\n%s", diff)
			}
		})
	}
}

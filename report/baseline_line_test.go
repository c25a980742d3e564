package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/google/go-cmp/cmp"
)

// TestBaselineLineBounded checks that the baseline line, which names
// resolved operations, keeps each format's limit on a string from the
// input: six resolved ids of 100,000 runes made a markdown report of
// 500 KB, past its budget, and a table line as long.
func TestBaselineLineBounded(t *testing.T) {
	rep := fourOperations()
	for i := range 6 {
		rep.Summary.Resolved = append(rep.Summary.Resolved, "gone-"+strings.Repeat("x", 100_000)+"-"+string(rune('a'+i)))
	}
	for _, tc := range []struct {
		format string
		most   int // runes of the line that names them, with 200 of its own words
	}{
		{"markdown", listedIDs*(maxShownRunes+10) + 200},
		{"table", listedIDs*(maxTableID+10) + 200},
	} {
		t.Run(tc.format, func(t *testing.T) {
			out := string(printReport(t, tc.format, Options{}, rep))
			if tc.format == "markdown" && len(out) > markdownBudget {
				t.Errorf("markdown report is %d bytes; its budget is %d", len(out), markdownBudget)
			}
			var line string
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, "Against the baseline") {
					line = l
				}
			}
			if !strings.Contains(line, "6 resolved (gone-x") || !strings.Contains(line, " and 1 more)") {
				t.Fatalf("no baseline line naming five of six resolved ids in:\n%.300s", line)
			}
			if n := utf8.RuneCountInString(line); n > tc.most {
				t.Errorf("baseline line is %d runes; want at most %d", n, tc.most)
			}
		})
	}
}

// TestBaselineLineNames checks how many ids the baseline line names and
// counts: one failing anew is named, and past five the rest are counted.
func TestBaselineLineNames(t *testing.T) {
	ids := []string{"op-1", "op-2", "op-3", "op-4", "op-5"}
	for _, tc := range []struct {
		name    string
		failing int
		ids     []string
		want    string
	}{
		{"none", 0, nil, "Against the baseline: 0 operations failing anew, 0 resolved"},
		{"one", 1, ids[:1], "Against the baseline: 1 operation failing anew (op-1), 0 resolved"},
		{"five", 5, ids, "Against the baseline: 5 operations failing anew (op-1, op-2, op-3, op-4, op-5), 0 resolved"},
		{"seven", 7, ids, "Against the baseline: 7 operations failing anew (op-1, op-2, op-3, op-4, op-5 and 2 more), 0 resolved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := baselineLine(&audit.Summary{Resolved: []string{}}, tc.failing, tc.ids, tableID)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

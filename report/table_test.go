package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/effectaudit/effectaudit/audit"
)

// healthyAnd returns a report of n healthy operations followed by others.
func healthyAnd(n int, others ...audit.Label) *audit.Report {
	var ops []audit.Operation
	for i := range n {
		ops = append(ops, syntheticOperation(i, audit.Healthy))
	}
	for i, l := range others {
		ops = append(ops, syntheticOperation(n+i, l))
	}
	return reportOf(ops)
}

// healthyFailing returns 102 healthy operations, two of them (the first and
// the 51st) with an orphan-effect finding, and a duplicate.
func healthyFailing() *audit.Report {
	ops := healthyAnd(102, audit.Duplicate).OperationList()
	for _, i := range []int{0, 50} {
		ops[i] = withFindings(ops[i], "orphan-effect")
	}
	return reportOf(ops)
}

// allHealthyFailing returns a report of n healthy operations, each with
// an orphan-effect finding.
func allHealthyFailing(n int) *audit.Report {
	ops := healthyAnd(n).OperationList()
	for i := range ops {
		ops[i] = withFindings(ops[i], "orphan-effect")
	}
	return reportOf(ops)
}

// withFindings returns op with findings of the codes added.
func withFindings(op audit.Operation, codes ...string) audit.Operation {
	op.Findings = slices.Clone(op.Findings)
	for _, c := range codes {
		op.Findings = append(op.Findings, audit.Finding{Code: c, Message: "message of " + c})
	}
	return op
}

// manyFindings returns a report in which one operation has more findings
// than its NEXT ACTION has lines, the longest code among them.
func manyFindings() *audit.Report {
	return reportOf([]audit.Operation{
		withFindings(syntheticOperation(1, audit.Duplicate),
			"key-churn", "shared-effect", "retry-after-success", "contradictory-evidence", "sensitive-identifier"),
		syntheticOperation(2, audit.Uncertain),
		syntheticOperation(3, audit.Healthy),
		withFindings(syntheticOperation(4, audit.Healthy), "shared-effect"),
	})
}

// rowIDs returns the operation ids listed in a table, in order.
func rowIDs(out string) []string {
	var ids []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "op-") {
			ids = append(ids, strings.Fields(line)[0])
		}
	}
	return ids
}

func TestTableFold(t *testing.T) {
	const folded = "healthy operations folded (--all lists them)"
	for _, tc := range []struct {
		name       string
		rep        *audit.Report
		all        bool
		failOn     []string
		rows       int
		foldedLine string // "" when nothing is folded
	}{
		{"101 healthy folded", healthyAnd(101, audit.Duplicate), false, nil, 1, "101 " + folded},
		{"101 healthy with --all", healthyAnd(101, audit.Duplicate), true, nil, 102, ""},
		{"100 healthy listed", healthyAnd(100, audit.Duplicate), false, nil, 101, ""},
		{"only healthy folded", healthyAnd(150), false, nil, 0, "150 " + folded},
		{"unhealthy never folded", manyOperations(2000, 2), false, nil, 1000, "1000 " + folded},
		{"healthy failing the gate never folded", healthyFailing(), false, []string{"orphan-effect"}, 3, "100 " + folded},
		{"every healthy failing the gate: no fold line", allHealthyFailing(101), false, []string{"orphan-effect"}, 101, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := string(printReport(t, "table", Options{All: tc.all, FailOn: tc.failOn}, tc.rep))
			var want []string
			for _, op := range tc.rep.OperationList() {
				failing := slices.ContainsFunc(op.Findings, func(f audit.Finding) bool { return slices.Contains(tc.failOn, f.Code) })
				if tc.foldedLine == "" || op.Label != audit.Healthy || failing {
					want = append(want, op.OperationID)
				}
			}
			if diff := cmp.Diff(want, rowIDs(out)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if len(want) != tc.rows {
				t.Errorf("%d rows; want %d", len(want), tc.rows)
			}
			if got := strings.Count(out, folded); got != min(len(tc.foldedLine), 1) {
				t.Errorf("%d folded lines; want %d:\n%s", got, min(len(tc.foldedLine), 1), out)
			}
			if tc.foldedLine != "" && !strings.Contains(out, "\n"+tc.foldedLine+"\n") && !strings.HasPrefix(out, tc.foldedLine+"\n") {
				t.Errorf("output lacks the line %q:\n%s", tc.foldedLine, out)
			}
			if got := strings.Count(out, "OPERATION"); got != min(tc.rows, 1) {
				t.Errorf("%d header lines; want %d", got, min(tc.rows, 1))
			}
		})
	}
}

func TestTableGolden(t *testing.T) {
	withInvalid := fourOperations()
	withInvalid.Summary.Lines += 3
	withInvalid.Summary.InvalidLines = 3
	withInvalid.Invalid = []audit.Invalid{{Input: "-", Line: 13, Error: "invalid JSON"}}

	ops := fourOperations().OperationList()
	ops[3].OperationID = "op-email-3/tenant-7f3a9c2e-1b4d-4e8a-9c6f-2d7e8b1a0c5f/recipient-batch-0042/attempt-group"
	ops[1].OperationID = "  spaced  op  "
	longID := withOperations(fourOperations(), ops)

	for _, tc := range []struct {
		file string
		rep  *audit.Report
		opts Options
	}{
		{"empty.table", emptyReport(), Options{}},
		{"fold.table", healthyAnd(101, audit.Duplicate, audit.Absent), Options{}},
		{"fold.color.table", healthyAnd(101, audit.Duplicate, audit.Absent), Options{Color: true}},
		{"invalid.table", withInvalid, Options{}},
		{"long-id.table", longID, Options{}},
		{"hostile.table", hostile(), Options{}},
		{"findings.table", manyFindings(), Options{}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			golden(t, tc.file, printReport(t, "table", tc.opts, tc.rep))
		})
	}
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestTableColor checks that colour changes nothing but the label cells:
// without the SGR codes the output is the plain one, so columns line up.
func TestTableColor(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  *audit.Report
	}{
		{"four operations", fourOperations()},
		{"every label", manyOperations(50, 2)},
		{"hostile", hostile()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := string(printReport(t, "table", Options{}, tc.rep))
			color := string(printReport(t, "table", Options{Color: true}, tc.rep))
			if strings.Contains(plain, "\x1b") {
				t.Errorf("plain output holds an escape:\n%q", plain)
			}
			if diff := cmp.Diff(plain, sgr.ReplaceAllString(color, "")); diff != "" {
				t.Errorf("colour output without SGR codes (-plain +colour):\n%s", diff)
			}
			for _, op := range tc.rep.OperationList() {
				cell := labelColor[op.Label] + string(op.Label) + sgrReset
				if !strings.Contains(color, cell) {
					t.Errorf("colour output lacks %q", cell)
				}
			}
		})
	}
}

// TestTableLayout checks properties of every table: one trailing newline, no
// trailing spaces, nothing unsafe for a terminal, every column aligned with
// its header across chunks, and at most tableWidth columns when ids are short.
func TestTableLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  *audit.Report
	}{
		{"four operations", fourOperations()},
		{"many rows", manyOperations(3000, 1)},
		{"hostile", hostile()},
		{"spaces in ids", reportOf([]audit.Operation{syntheticOperation(1, audit.Duplicate), {OperationID: "op  two  spaces\u2028 ", Label: audit.Healthy}})},
		{"findings", manyFindings()},
		{"empty", emptyReport()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := string(printReport(t, "table", Options{All: true}, tc.rep))
			if !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
				t.Errorf("output does not end with exactly one newline: %q", out[max(0, len(out)-40):])
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			for i, line := range lines {
				if strings.HasSuffix(line, " ") {
					t.Errorf("line %d has trailing spaces: %q", i+1, line)
				}
				if !safe(line) {
					t.Errorf("line %d is unsafe: %q", i+1, line)
				}
			}
			ops := tc.rep.OperationList()
			for _, op := range ops {
				if id := tableID(op.OperationID); !strings.HasPrefix(out, id) && !strings.Contains(out, "\n"+id) {
					t.Errorf("no line starts with the id %q", id)
				}
			}
			if len(ops) == 0 || tc.name == "hostile" {
				return // hostile ids are wide or zero-width: see its golden file
			}
			// The numbers are right-aligned under their headers: the last
			// digit of every row sits under the header's last letter. The
			// finding codes start under FINDINGS, one a line.
			header := lines[0]
			hashesEnd := strings.Index(header, "HASHES") + len("HASHES")
			findingsStart := strings.Index(header, "FINDINGS")
			var wantCodes, gotCodes []string
			for _, op := range ops {
				for _, f := range op.Findings {
					wantCodes = append(wantCodes, f.Code)
				}
			}
			rows := 0
			for _, line := range lines[1:] {
				if line == "" {
					break
				}
				if !strings.HasPrefix(line, " ") { // a row's first line
					rows++
					i := byteAtColumn(line, hashesEnd)
					if i <= 0 || line[i-1] < '0' || line[i-1] > '9' || (i < len(line) && line[i] != ' ') {
						t.Errorf("HASHES not aligned in %q", line)
					}
				}
				// A line may end before FINDINGS: nothing found, no next action.
				if twwidth.Width(line) > findingsStart {
					i := byteAtColumn(line, findingsStart)
					if i <= 0 || line[i-1] != ' ' {
						t.Errorf("FINDINGS not aligned in %q", line)
					} else if code, _, _ := strings.Cut(line[i:], " "); code != "" {
						gotCodes = append(gotCodes, code)
					}
				}
				if twwidth.Width(line) > tableWidth {
					t.Errorf("line wider than %d: %q", tableWidth, line)
				}
			}
			if rows != len(ops) {
				t.Errorf("%d rows; want %d", rows, len(ops))
			}
			if diff := cmp.Diff(wantCodes, gotCodes); diff != "" {
				t.Errorf("codes under FINDINGS (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummaryLine(t *testing.T) {
	one := reportOf([]audit.Operation{syntheticOperation(1, audit.Absent)})
	one.Summary.Attempts, one.Summary.EffectObservations, one.Summary.Lines, one.Summary.Records = 1, 1, 1, 1
	for _, tc := range []struct {
		name string
		rep  *audit.Report
		want string
	}{
		{"fixture", fourOperations(), "4 operations: 1 key-conflict, 1 duplicate, 1 healthy, 0 absent, 1 uncertain · 8 attempts, 4 effect observations · 12 lines (0 blank, 12 records, 0 invalid)"},
		{"singular", one, "1 operation: 0 key-conflict, 0 duplicate, 0 healthy, 1 absent, 0 uncertain · 1 attempt, 1 effect observation · 1 line (0 blank, 1 record, 0 invalid)"},
		{"empty", emptyReport(), "0 operations: 0 key-conflict, 0 duplicate, 0 healthy, 0 absent, 0 uncertain · 0 attempts, 0 effect observations · 0 lines (0 blank, 0 records, 0 invalid)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summaryLine(&tc.rep.Summary)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindingsLine(t *testing.T) {
	counts := func(kv ...any) *audit.Summary {
		s := &audit.Summary{Findings: zeroFindings()}
		for i := 0; i < len(kv); i += 2 {
			s.Findings[kv[i].(string)] = kv[i+1].(int)
		}
		return s
	}
	for _, tc := range []struct {
		name string
		s    *audit.Summary
		want string
	}{
		{"fixture", &fourOperations().Summary, "findings: missing-key 1"},
		{"nothing found", counts(), ""},
		{"no counts", &audit.Summary{}, ""},
		{"SPEC order, zeros left out", counts("shared-key", 3, "sensitive-identifier", 2, "key-churn", 1, "missing-key", 0),
			"findings: key-churn 1, shared-key 3, sensitive-identifier 2"},
		{"unknown codes last, sorted and sanitized", counts("zeta\x1b[2J", 1, "alpha", 4, "beta", 0, "orphan-effect", 2),
			`findings: orphan-effect 2, alpha 4, zeta\x1b[2J 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, findingsLine(tc.s)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTrimWriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"one line", []string{"a b  \n"}, "a b\n"},
		{"spaces across writes", []string{"a  ", "  ", "b  ", "\n"}, "a    b\n"},
		{"blank line", []string{"   \n\n"}, "\n\n"},
		{"several lines", []string{"x \ny  \nz"}, "x\ny\nz"},
		{"leading spaces kept", []string{"  x  \n"}, "  x\n"},
		{"long run", []string{strings.Repeat(" ", 200) + "x\n"}, strings.Repeat(" ", 200) + "x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			tw := &trimWriter{w: &b}
			for _, s := range tc.writes {
				if n, err := io.WriteString(tw, s); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkTable(b *testing.B) {
	rep := manyOperations(10_000, 1)
	b.SetBytes(int64(len(printReport(b, "table", Options{}, rep))))
	b.ReportAllocs()
	p, err := New("table", Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := p.Print(io.Discard, rep); err != nil {
			b.Fatal(fmt.Sprint(err))
		}
	}
}

// byteAtColumn returns the index of the byte of line that is displayed at
// column col (0-based), len(line) if the line is exactly col wide, or -1.
func byteAtColumn(line string, col int) int {
	w := 0
	for i, r := range line {
		if w == col {
			return i
		}
		w += twwidth.Width(string(r))
		if w > col {
			return -1
		}
	}
	if w == col {
		return len(line)
	}
	return -1
}

func TestListSome(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f", "g"}
	for _, tc := range []struct {
		ids   []string
		total int
		want  string
	}{
		{ids[:1], 1, "a"},
		{ids[:5], 5, "a, b, c, d, e"},
		{ids[:5], 9, "a, b, c, d, e and 4 more"},
		{ids, 7, "a, b, c, d, e and 2 more"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := listSome(tc.ids, tc.total); got != tc.want {
				t.Errorf("listSome(%v, %d) = %q; want %q", tc.ids, tc.total, got, tc.want)
			}
		})
	}
}

// TestTableWidth checks that the table fits the width it is given, NEXT
// ACTION wrapping to the room the other columns leave (but never to fewer
// than minActionWidth columns), and that 0 is the default of 120.
func TestTableWidth(t *testing.T) {
	rep := fourOperations()
	def := string(printReport(t, "table", Options{}, rep))
	if got := string(printReport(t, "table", Options{Width: tableWidth}, rep)); got != def {
		t.Errorf("Width %d differs from the default:\n%s\nwant:\n%s", tableWidth, got, def)
	}
	widest := func(out string) int {
		w := 0
		for line := range strings.SplitSeq(strings.TrimSuffix(out, "\n"), "\n") {
			if strings.HasPrefix(line, "4 operations:") || strings.HasPrefix(line, "findings:") {
				continue // the summary lines are not table rows
			}
			w = max(w, twwidth.Width(line))
		}
		return w
	}
	// Lines of a row after its first start with a space.
	wrapped := func(out string) int { return strings.Count(out, "\n ") }
	// The other columns of the four operations take 82 columns with
	// their gaps, so NEXT ACTION has width-82, and at least minActionWidth.
	const others = 82
	for _, width := range []int{20, 60, 100, 112, 120, 140, 200} {
		out := string(printReport(t, "table", Options{Width: width}, rep))
		if got, limit := widest(out), max(width, others+minActionWidth); got > limit {
			t.Errorf("Width %d: table %d columns wide, want at most %d:\n%s", width, got, limit, out)
		}
		if width <= others+minActionWidth {
			// The action texts hold words wide enough that the column is
			// full at its floor.
			if got := widest(out); got != others+minActionWidth {
				t.Errorf("Width %d: table %d columns wide, want the floor, %d:\n%s", width, got, others+minActionWidth, out)
			}
		}
		switch width {
		case 140:
			if widest(out) <= widest(def) || wrapped(out) >= wrapped(def) {
				t.Errorf("Width 140: table %d columns wide in %d wrapped lines, want wider and fewer than the default's %d in %d:\n%s",
					widest(out), wrapped(out), widest(def), wrapped(def), out)
			}
		case 200:
			if n := wrapped(out); n != 0 {
				t.Errorf("Width 200: %d wrapped lines, want none:\n%s", n, out)
			}
		}
	}
}

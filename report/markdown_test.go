package report

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

func TestMarkdownGolden(t *testing.T) {
	withInvalid := fourOperations()
	withInvalid.Summary.Lines += 3
	withInvalid.Summary.InvalidLines = 3

	for _, tc := range []struct {
		file string
		rep  *audit.Report
	}{
		{"markdown.four-operations.md", fourOperations()},
		{"markdown.empty.md", emptyReport()},
		{"markdown.healthy.md", healthyAnd(3)},
		{"markdown.one-healthy.md", healthyAnd(1)},
		{"markdown.invalid.md", withInvalid},
		{"markdown.fold.md", healthyAnd(5, slices100(audit.Duplicate, 103)...)},
		{"markdown.hostile.md", hostilePlus()},
	} {
		t.Run(tc.file, func(t *testing.T) {
			golden(t, tc.file, printReport(t, "markdown", Options{}, tc.rep))
		})
	}
}

// slices100 returns n times l.
func slices100(l audit.Label, n int) []audit.Label {
	out := make([]audit.Label, n)
	for i := range out {
		out[i] = l
	}
	return out
}

// mdTable is a markdown report read the way GitHub reads it: the table's
// rows split into cells, and what follows the table.
type mdTable struct {
	header []string
	rows   [][]string
	after  []string // the lines after the table
}

// readMarkdown finds the table in out and splits its rows into cells as GFM
// does: a pipe is a cell separator unless a backslash precedes it, and the
// backslash before such a pipe is dropped before the cell's inline markup is
// read.
func readMarkdown(t testing.TB, out string) *mdTable {
	t.Helper()
	if !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
		t.Errorf("output does not end with exactly one newline")
	}
	for i, line := range strings.Split(out, "\n") {
		for _, r := range line {
			if r < 0x20 || r == 0x7f || (0x80 <= r && r <= 0x9f) {
				t.Errorf("line %d holds control character %U", i+1, r)
			}
		}
	}
	var tab mdTable
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	start := -1
	for i, line := range lines {
		if strings.HasPrefix(line, "| Operation |") {
			start = i
			break
		}
	}
	if start < 0 {
		return &tab
	}
	tab.header = splitRow(lines[start])
	if lines[start+1] != "| --- | --- | ---: | ---: | --- | --- |" {
		t.Errorf("delimiter row %q", lines[start+1])
	}
	i := start + 2
	for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		tab.rows = append(tab.rows, splitRow(lines[i]))
	}
	tab.after = lines[i:]
	return &tab
}

func splitRow(line string) []string {
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte('\\') // kept for decodeText; decodeCode drops it
			cell.WriteByte('|')
			i++
		case c == '|':
			cells = append(cells, strings.Trim(cell.String(), " \t"))
			cell.Reset()
		default:
			cell.WriteByte(c)
		}
	}
	cells = append(cells, strings.Trim(cell.String(), " \t"))
	// The leading and trailing pipes leave an empty first and last cell.
	if len(cells) < 2 || cells[0] != "" || cells[len(cells)-1] != "" {
		return []string{"row without outer pipes: " + line}
	}
	return cells[1 : len(cells)-1]
}

// cellText is s as a text cell shows it: GFM trims the spaces around a
// cell's content.
func cellText(s string) string { return strings.Trim(shown(s), " ") }

// decodeText reads a text cell: every Markdown special character must be
// backslash-escaped, and a backslash escapes ASCII punctuation only (as in
// CommonMark); the escapes are dropped. A code span in it (a word with an
// "@") is read as decodeCode reads one.
func decodeText(cell string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(cell); i++ {
		c := cell[i]
		switch {
		case c == '`':
			n := len(cell[i:]) - len(strings.TrimLeft(cell[i:], "`"))
			fence := strings.Repeat("`", n)
			end := -1
			for j := i + n; j < len(cell); {
				k := strings.Index(cell[j:], fence)
				if k < 0 {
					break
				}
				k += j
				if k+n == len(cell) || cell[k+n] != '`' {
					end = k
					break
				}
				j = k + n + len(cell[k+n:]) - len(strings.TrimLeft(cell[k+n:], "`"))
			}
			if end < 0 {
				return "", errors.New("code span not closed at " + strconv.Itoa(i))
			}
			code, err := decodeCode(cell[i : end+n])
			if err != nil {
				return "", err
			}
			b.WriteString(code)
			i = end + n - 1
		case c == '\\':
			if i+1 == len(cell) || !strings.ContainsRune(markdownSpecial+":.", rune(cell[i+1])) {
				return "", errors.New("backslash escapes nothing special at " + strconv.Itoa(i))
			}
			i++
			b.WriteByte(cell[i])
		case strings.IndexByte(markdownSpecial, c) >= 0:
			return "", errors.New("unescaped " + string(c) + " at " + strconv.Itoa(i))
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// decodeCode reads a cell that is one code span, as CommonMark does.
func decodeCode(cell string) (string, error) {
	if cell == "" {
		return "", nil
	}
	n := len(cell) - len(strings.TrimLeft(cell, "`"))
	fence := strings.Repeat("`", n)
	if n == 0 || len(cell) < 2*n || !strings.HasSuffix(cell, fence) || strings.HasSuffix(cell[:len(cell)-n], "`") {
		return "", errors.New("not one code span: " + cell)
	}
	inner := cell[n : len(cell)-n]
	// A run of exactly n backticks inside would close the span early.
	for _, run := range strings.FieldsFunc(inner, func(r rune) bool { return r != '`' }) {
		if len(run) == n {
			return "", errors.New("fence inside the code span: " + cell)
		}
	}
	if len(inner) >= 2 && inner[0] == ' ' && inner[len(inner)-1] == ' ' && strings.Trim(inner, " ") != "" {
		inner = inner[1 : len(inner)-1]
	}
	return strings.ReplaceAll(inner, `\|`, `|`), nil
}

// TestMarkdownTable reads every table back: one row per operation that is
// not healthy, in report order, six cells each, every string as it went in,
// sanitized and cut to maxShownRunes.
func TestMarkdownTable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rep    *audit.Report
		failOn []string
	}{
		{"four operations", fourOperations(), nil},
		{"four operations, a finding fails", fourOperations(), []string{"missing-key"}},
		{"four operations, healthy fails", fourOperations(), []string{"healthy", "duplicate"}},
		{"hostile", hostile(), nil},
		{"hostile plus", hostilePlus(), nil},
		{"hostile plus, findings fail", hostilePlus(), []string{"key-churn", "orphan-effect", "shared-key", "absent"}},
		{"every label", manyOperations(40, 2), specFailOn},
		{"every label, absent fails", manyOperations(40, 2), []string{"absent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := readMarkdown(t, string(printReport(t, "markdown", Options{FailOn: tc.failOn}, tc.rep)))
			if diff := cmp.Diff([]string{"Operation", "Label", "Attempts", "Effects", "Reason", "Next action"}, tab.header); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			var want [][]string
			g := newGate(tc.failOn)
			var others [][]string // not healthy, not failing: after the failing ones
			for _, op := range tc.rep.OperationList() {
				name, failed := g.match(&op)
				if op.Label == audit.Healthy && !failed {
					continue
				}
				label, reason := string(op.Label), cellText(op.Reason)
				if i := slices.IndexFunc(op.Findings, func(f audit.Finding) bool { return f.Code == name }); failed && name != label && i >= 0 {
					label += ", fails on " + name
					reason += " (" + name + ": " + cellText(op.Findings[i].Message) + ")"
				} else if failed {
					label += ", fails"
				}
				row := []string{shown(op.OperationID), label, strconv.Itoa(op.Attempts),
					strconv.Itoa(op.DistinctEffects), reason, cellText(op.NextAction)}
				if failed {
					want = append(want, row)
				} else {
					others = append(others, row)
				}
			}
			want = append(want, others...)
			var got [][]string
			for i, row := range tab.rows {
				if len(row) != 6 {
					t.Errorf("row %d has %d cells: %q", i+1, len(row), row)
					continue
				}
				cells := make([]string, 6)
				var err error
				if cells[0], err = decodeCode(row[0]); err != nil {
					t.Errorf("row %d operation: %v", i+1, err)
				}
				for _, j := range []int{1, 2, 3, 4, 5} {
					if cells[j], err = decodeText(row[j]); err != nil {
						t.Errorf("row %d cell %d %q: %v", i+1, j+1, row[j], err)
					}
				}
				got = append(got, cells)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMarkdownFold(t *testing.T) {
	long := syntheticOperation(0, audit.Uncertain)
	long.Reason = strings.Repeat("\\|`<", 2000) // each rune shown escaped
	var longOps []audit.Operation
	for i := range 100 {
		op := long
		op.OperationID = "op-" + strconv.Itoa(i)
		longOps = append(longOps, op)
	}
	mixed := func(failing, others int) *audit.Report {
		return healthyAnd(3, append(slices100(audit.Duplicate, failing), slices100(audit.Uncertain, others)...)...)
	}
	for _, tc := range []struct {
		name       string
		rep        *audit.Report
		failOn     []string
		rows, more int
	}{
		{"100 listed", healthyAnd(7, slices100(audit.Uncertain, 100)...), nil, 100, 0},
		{"101 folded", healthyAnd(7, slices100(audit.Uncertain, 101)...), nil, 100, 1},
		{"many", manyOperations(5000, 2), nil, 100, 2400},
		{"budget", reportOf(longOps), nil, 28, 72},
		{"60 failing, 60 others", mixed(60, 60), []string{"duplicate"}, 100, 20},
		{"150 failing, 10 others", mixed(150, 10), []string{"duplicate"}, 100, 60},
		{"100 failing, 5 others", mixed(100, 5), []string{"duplicate"}, 100, 5},
		{"none failing, 120 others", mixed(0, 120), []string{"duplicate"}, 100, 20},
		{"healthy failing too", mixed(10, 95), []string{"duplicate", "healthy"}, 100, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := string(printReport(t, "markdown", Options{FailOn: tc.failOn}, tc.rep))
			if len(out) > markdownBudget+200 {
				t.Errorf("%d bytes; want about %d at most", len(out), markdownBudget)
			}
			tab := readMarkdown(t, out)
			if len(tab.rows) != tc.rows {
				t.Errorf("%d rows; want %d", len(tab.rows), tc.rows)
			}
			var want []string
			if tc.more > 0 {
				want = []string{"", "… and " + strconv.Itoa(tc.more) + " more not shown (`--format table` or `--format json` lists every operation)."}
			}
			if diff := cmp.Diff(want, tab.after, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") })); diff != "" {
				t.Errorf("after the table (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarkdownFailingFirst checks that operations failing the gate are
// listed before the others that are not healthy, so that a hundred which
// do not fail cannot push the one that does out of the table.
func TestMarkdownFailingFirst(t *testing.T) {
	rep := healthyAnd(3, append(slices100(audit.Uncertain, 100), audit.Duplicate)...)
	tab := readMarkdown(t, string(printReport(t, "markdown", Options{FailOn: []string{"duplicate"}}, rep)))
	if len(tab.rows) != 100 {
		t.Fatalf("%d rows; want 100", len(tab.rows))
	}
	if got, err := decodeText(tab.rows[0][1]); err != nil || got != "duplicate, fails" {
		t.Errorf("first row's label %q (%v); want the failing duplicate first", got, err)
	}
	for i, row := range tab.rows[1:] {
		if got, err := decodeText(row[1]); err != nil || got != "uncertain" {
			t.Errorf("row %d label %q (%v); want uncertain, not failing", i+2, got, err)
		}
	}
}

func TestShown(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short", "op-1", "op-1"},
		{"sanitized", "a\nb\x1b", `a\x0ab\x1b`},
		{"exactly the limit", strings.Repeat("é", maxShownRunes), strings.Repeat("é", maxShownRunes)},
		{"cut between runes", strings.Repeat("é", maxShownRunes+1), strings.Repeat("é", maxShownRunes) + "…"},
		{"cut after escaping", strings.Repeat("\x00", maxShownRunes), strings.Repeat(`\x00`, maxShownRunes/4) + "…"},
		{"never inside an escape", strings.Repeat("a", maxShownRunes-2) + "\u202eb", strings.Repeat("a", maxShownRunes-2) + "…"},
		{"an escape that fits", strings.Repeat("a", maxShownRunes-6) + "\u202ebc", strings.Repeat("a", maxShownRunes-6) + `\u202e` + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shown(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8")
			}
		})
	}
}

func TestAppendCodeSpan(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"op-1", "`op-1`"},
		{"", ""},
		{"a|b", "`a\\|b`"},
		{`a\|b`, "`a\\\\|b`"},
		{"a`b", "``a`b``"},
		{"a``b`", "``` a``b` ```"},
		{"`", "`` ` ``"},
		{" x ", "`  x  `"},
		{"x ", "` x  `"},
		{"   ", "`   `"},
		{"*_[<@", "`*_[<@`"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := string(appendCodeSpan(nil, tc.in))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if back, err := decodeCode(got); err != nil || back != tc.in {
				t.Errorf("decodes to %q, %v", back, err)
			}
		})
	}
}

// FuzzMarkdown puts one string in the operation id and the reason: the
// table must keep its shape and give the string back.
func FuzzMarkdown(f *testing.F) {
	for _, op := range hostilePlus().OperationList() {
		f.Add(op.OperationID)
	}
	f.Fuzz(func(t *testing.T, s string) {
		op := syntheticOperation(1, audit.Duplicate)
		op.OperationID, op.Reason = s, s
		rep := reportOf([]audit.Operation{op, syntheticOperation(2, audit.Uncertain)})
		tab := readMarkdown(t, string(printReport(t, "markdown", Options{}, rep)))
		if len(tab.rows) != 2 || len(tab.rows[0]) != 6 || len(tab.rows[1]) != 6 {
			t.Fatalf("rows %q; want 2 of 6 cells", tab.rows)
		}
		id, err := decodeCode(tab.rows[0][0])
		if err != nil || id != shown(s) {
			t.Errorf("operation cell %q reads %q, %v; want %q", tab.rows[0][0], id, err, shown(s))
		}
		reason, err := decodeText(tab.rows[0][4])
		if err != nil || reason != cellText(s) {
			t.Errorf("reason cell %q reads %q, %v; want %q", tab.rows[0][4], reason, err, cellText(s))
		}
	})
}

// TestMarkdownTextNoAutolinks checks that a URL, a www. address, an e-mail
// address or an @name from the ledger stays text in a cell: GFM
// (cmark-gfm's autolink extension) links neither of the first two once the
// colon of "://" and the dot after "www" are escaped, and nothing in code.
func TestMarkdownTextNoAutolinks(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ref https://evil.example/reset", `ref https\://evil.example/reset`},
		{"ftp://x and HTTP://y", `ftp\://x and HTTP\://y`},
		{"www.evil.example, WwW.x", `www\.evil.example, WwW\.x`},
		{"a: b, c:/d, w.ww, ww.w", "a: b, c:/d, w.ww, ww.w"},
		{"x:", "x:"},
		// A word with an "@" is code: neither linked nor a mention.
		{"refs: ops@evil.example, @org/team", "refs: `ops@evil.example`, `@org/team`"},
		{"@", "`@`"},
		{"x a`b@c|d_e y", "x ``a`b@c\\|d_e`` y"},
		{"a@b,,", "`a@b`,,"},
		{"@,", "`@`,"},
	} {
		if got := string(appendMarkdownText(nil, tc.in)); got != tc.want {
			t.Errorf("appendMarkdownText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMarkdownLine checks a line outside the table: a word with an "@" is
// code without the "\|" a cell needs (outside a table it would show), and
// without the list's brackets and separators.
func TestMarkdownLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2 resolved (a@b|c, x@y)", "2 resolved (`a@b|c`, `x@y`)"},
		{"a|b @c|d", "a\\|b `@c|d`"},
	} {
		if got := string(appendMarkdownLine(nil, tc.in)); got != tc.want {
			t.Errorf("appendMarkdownLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

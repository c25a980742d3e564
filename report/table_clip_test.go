package report

import (
	"strings"
	"testing"

	"github.com/effectaudit/effectaudit/audit"
)

func TestClipMiddle(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 5, ""},
		{"abcde", 5, "abcde"},
		{"abcdef", 5, "ab…ef"},
		{"abcdefg", 6, "ab…efg"},
		{"ééééééé", 5, "éé…éé"},
		{"日本語のテキスト", 4, "日…スト"},
		{"a\\x1bcdefgh", 7, "a\\x…fgh"},
		// An escape is never cut in half.
		{"a\x1bcdefgh", 9, "a…efgh"},
		{"a\x1bcdefghij", 11, `a\x1b…fghij`},
		{"abc\x1bdefgh", 9, "abc…efgh"},
		{"abcdefg\u202eh", 9, `abcd…h`},
		{"abcdefg\u202eh", 16, "abcdefg\\u202eh"},
		{"ab\xffcdefgh", 9, "ab…efgh"},
		{"ab\xffcdefghij", 13, `ab\xff…efghij`},
		{"abcdefgh\U000e0041", 12, "abcde…"},
		{"a\U000e0041bcdefghijklmn", 23, `a\U000e0041…defghijklmn`},
		// What DefuseCommands adds counts too.
		{"::abcdefgh", 7, ":…fgh"},
		{"::abcdefgh", 12, `\x3a:…cdefgh`},
		{"ab##[cdefgh", 9, "ab##…efgh"},
		{"ab##[cdefghijkl", 17, `ab\x23#[…efghijkl`},
		// Too long only once escaped: the halves do not overlap, and "…"
		// stands for something.
		{"x##[y", 7, "x##…y"},
		{"ab##[c", 7, "ab#…[c"}, // the halves meet: "…" still stands for one
		{strings.Repeat("A", 57) + "##[" + strings.Repeat("B", 58), maxTableID,
			strings.Repeat("A", 57) + "##…" + strings.Repeat("B", 58)},
	}
	for _, tt := range tests {
		got := clipMiddle(tt.s, tt.n)
		if got != tt.want {
			t.Errorf("clipMiddle(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// TestTableLongID checks that one very long operation id does not widen
// every row of the table: the table stays as wide as it is with an id of
// maxTableID runes, and the id keeps its start and end.
func TestTableLongID(t *testing.T) {
	long := "op-start-" + strings.Repeat("x", 100_000) + "-end-7"
	ops := []audit.Operation{syntheticOperation(0, audit.Uncertain)}
	ops[0].OperationID = long
	for i := 1; i <= 50; i++ {
		ops = append(ops, syntheticOperation(i, audit.Uncertain))
	}
	out := string(printReport(t, "table", Options{}, reportOf(ops)))
	lines := strings.Split(out, "\n")
	widest := 0
	for _, line := range lines {
		widest = max(widest, textWidth(line))
	}
	// OPERATION, the other columns and the wrapped NEXT ACTION.
	if limit := maxTableID + tableWidth; widest > limit {
		t.Errorf("widest line is %d columns, want at most %d", widest, limit)
	}
	if !strings.HasPrefix(lines[1], "op-start-xxx") || !strings.Contains(lines[1], "…") || !strings.Contains(lines[1], "x-end-7 ") {
		t.Errorf("the long id's row does not show its start and end around …: %.200q", lines[1])
	}
	if n := len(out); n > 100*(maxTableID+tableWidth)*4 {
		t.Errorf("table of 51 operations is %d bytes", n)
	}
}

package ndjson

import "testing"

// TestScanners holds ScanString and ScanNumber to what Parse accepts as a
// member's value.
func TestScanners(t *testing.T) {
	for _, value := range []string{
		`""`, `"abc"`, `"a\"b"`, `"\u00e9\ud800"`, `"é"`, `"\x"`, `"\u12"`, "\"a\tb\"", `"abc`, "\"\xff\"",
		`0`, `-0`, `1.5`, `-2e+10`, `1E-2`, `01`, `1.`, `1e`, `-`, `.5`, `1.5e3`,
	} {
		t.Run(value, func(t *testing.T) {
			var p Parser
			_, parseErr := p.Parse([]byte(`{"v":` + value + `}`))
			want := parseErr == nil
			line := []byte(value)
			var end int
			var err error
			if value[0] == '"' {
				end, _, err = ScanString(line, 0)
			} else {
				end, err = ScanNumber(line, 0)
			}
			if got := err == nil && end == len(line); got != want {
				t.Errorf("%s: scanned whole %v; Parse took it: %v", value, got, want)
			}
		})
	}
	if got := SkipSpace([]byte(" \t\r\n x"), 0); got != 5 {
		t.Errorf("SkipSpace stopped at %d; want 5", got)
	}
	if got := SkipSpace([]byte("\v"), 0); got != 0 {
		t.Errorf("SkipSpace skipped a vertical tab, which JSON does not count as white space")
	}
	if _, escaped, _ := ScanString([]byte(`"a\nb"`), 0); !escaped {
		t.Error(`ScanString("a\nb") holds no escape`)
	}
}

// TestScanLiteral checks ScanLiteral at every kind of mismatch, the first
// byte included: it must report false, never panic, whatever the caller
// has checked before.
func TestScanLiteral(t *testing.T) {
	for _, tc := range []struct {
		line, word string
		i, end     int
		ok         bool
	}{
		{"null", "null", 0, 4, true},
		{":true,", "true", 1, 5, true},
		{"false}", "false", 0, 5, true},
		{"nul", "null", 0, 0, false},
		{"nulx", "null", 0, 0, false},
		{"xull", "null", 0, 0, false},
		{"True", "true", 0, 0, false},
		{"", "null", 0, 0, false},
		{"fals", "false", 0, 0, false},
	} {
		end, ok := ScanLiteral([]byte(tc.line), tc.i, tc.word)
		if end != tc.end || ok != tc.ok {
			t.Errorf("ScanLiteral(%q, %d, %q) = %d, %v; want %d, %v", tc.line, tc.i, tc.word, end, ok, tc.end, tc.ok)
		}
	}
}

package report

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain", "op-ticket-42", "op-ticket-42"},
		{"backslash and quotes pass", `a\x1b"b'`, `a\x1b"b'`},
		{"non-ASCII passes", "opération-é-日本-🙂", "opération-é-日本-🙂"},
		{"replacement char passes", "a\uFFFDb", "a\uFFFDb"},
		{"line and paragraph separators", "a\u2028b\u2029", `a\u2028b\u2029`},
		{"ESC sequence", "op\x1b[2J\x1b[Hx", `op\x1b[2J\x1b[Hx`},
		{"OSC title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"CR rewrites the line", "op-1\rop-2", `op-1\x0dop-2`},
		{"LF and TAB", "a\nb\tc", `a\x0ab\x09c`},
		{"NUL and DEL", "\x00\x7f", `\x00\x7f`},
		{"DEL alone", "op\x7f1", `op\x7f1`},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`},
		{"C1 bounds", "\u0080\u009f\u00a0", `\u0080\u009f` + "\u00a0"},
		{"bidi override", "op-\u202Egnp.exe", `op-\u202egnp.exe`},
		{"bidi marks and isolates", "\u061C\u200E\u200F\u202A\u202D\u2066\u2069", `\u061c\u200e\u200f\u202a\u202d\u2066\u2069`},
		{"neighbours pass", "\u2027\u202F\u2070", "\u2027\u202F\u2070"},
		{"zero-width and invisible", "op\u200B\u200C\u200D\u2060\uFEFF-1", `op\u200b\u200c\u200d\u2060\ufeff-1`},
		{"soft hyphen, its neighbours pass", "\u00ACa\u00ADb\u00AE", "\u00ACa" + `\u00ad` + "b\u00AE"},
		{"Arabic letter mark and fillers", "\u115F\u3164\uFFA0", `\u115f\u3164\uffa0`},
		{"variation selector", "\u2714\uFE0F", "\u2714" + `\ufe0f`},
		{"tag characters past U+FFFF", "op\U000E0041\U000E007F", `op\U000e0041\U000e007f`},
		{"astral letters pass", "\U0001F642\U00020000", "\U0001F642\U00020000"},
		{"invalid byte", "op\xffx", `op\xffx`},
		{"truncated rune", "op\xe6\x97", `op\xe6\x97`},
		{"surrogate half", "\xed\xa0\x80", `\xed\xa0\x80`},
		{"overlong", "\xc0\xaf", `\xc0\xaf`},
		{"escape after plain prefix", "abc\x1b", `abc\x1b`},
		// What the GitHub Actions runner would read as workflow commands.
		{"command at the start", "::error file=a.go::forged", `\x3a:error file=a.go::forged`},
		{"command after spaces", " \u3000\u00a0::stop-commands::x", " \u3000\u00a0" + `\x3a:stop-commands::x`},
		{"command after an escaped TAB stays escaped", "\t::x", `\x09::x`},
		{"colons later in the line pass", "op::1", "op::1"},
		{"one colon passes", ":x", ":x"},
		{"legacy command anywhere", "op-##[set-output name=v]pass ##[error]x", `op-\x23#[set-output name=v]pass \x23#[error]x`},
		{"legacy command made of escapes", "#\x00#[", `#\x00#[`},
		{"hashes without a bracket pass", "##x #[", "##x #["},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Sanitize(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Sanitize(%q) (-want +got):\n%s", tc.in, diff)
			}
			if !safe(got) {
				t.Errorf("Sanitize(%q) = %q still holds an unsafe character", tc.in, got)
			}
		})
	}
}

// safe reports whether s is valid UTF-8 without controls, format
// characters or other characters that print as nothing, and without what
// a GitHub Actions runner reads as a workflow command.
func safe(s string) bool {
	if !utf8.ValidString(s) || strings.Contains(s, "##[") || strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || (0x7f <= r && r <= 0x9f) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) ||
			unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r) {
			return false
		}
	}
	return true
}

func TestSanitizeNoAllocation(t *testing.T) {
	for _, s := range []string{"op-ticket-42", "opération-日本-🙂", strings.Repeat("x", 1000), " op::1 #"} {
		if n := testing.AllocsPerRun(100, func() { _ = Sanitize(s) }); n != 0 {
			t.Errorf("Sanitize(%q) allocates %v times; want 0", s, n)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"op-1", "\x1b[31m", "\u202e", "\xff", "\u0085", "a\\x1b", " ::x", "###[["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Sanitize(s)
		if !safe(got) {
			t.Fatalf("Sanitize(%q) = %q is not safe", s, got)
		}
		if safe(s) && got != s {
			t.Fatalf("Sanitize(%q) = %q changed a safe string", s, got)
		}
	})
}

// FuzzSanitizedCut checks that a cut string is the sanitized form of a
// whole start (or end) of the input, so no escape is cut in half, within
// its bound, and that no longer start (or end) would have fit.
func FuzzSanitizedCut(f *testing.F) {
	for _, s := range []string{"abcdef", "a\x1bcdefgh", "::abc", "ab##[cd", "x\u202ey\xffz", "\U000e0041\U000e0041"} {
		f.Add(s, uint8(5))
	}
	f.Add(strings.Repeat("A", 57)+"##["+strings.Repeat("B", 58), uint8(maxTableID))
	f.Fuzz(func(t *testing.T, s string, n8 uint8) {
		n := int(n8)
		starts, ends := []int{}, []int{} // byte offsets where s may be cut
		for i := 0; i <= len(s); {
			starts = append(starts, i)
			if i == len(s) {
				break
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		for j := len(s); j >= 0; {
			ends = append(ends, j)
			if j == 0 {
				break
			}
			_, size := utf8.DecodeLastRuneInString(s[:j])
			j -= size
		}
		check := func(what, got string, cuts []int, piece func(int) string) {
			if c := utf8.RuneCountInString(got); c > n {
				t.Fatalf("%s(%q, %d) = %q: %d runes", what, s, n, got, c)
			}
			k := slices.IndexFunc(cuts, func(c int) bool { return piece(c) == got })
			if k < 0 {
				t.Fatalf("%s(%q, %d) = %q is no sanitized %s of the input", what, s, n, got, what)
			}
			if k+1 < len(cuts) && utf8.RuneCountInString(piece(cuts[k+1])) <= n {
				t.Fatalf("%s(%q, %d) = %q, but %q fits too", what, s, n, got, piece(cuts[k+1]))
			}
		}
		check("sanitizedHead", sanitizedHead(s, n), starts, func(i int) string { return Sanitize(s[:i]) })
		check("sanitizedTail", sanitizedTail(s, n), ends, func(j int) string { return Sanitize(s[j:]) })

		// clipMiddle: s whole, or a start and a later end around "…".
		if n == 0 {
			return
		}
		got := clipMiddle(s, n)
		if c := utf8.RuneCountInString(got); c > n {
			t.Fatalf("clipMiddle(%q, %d) = %q: %d runes", s, n, got, c)
		}
		if got == Sanitize(s) {
			return
		}
		for _, i := range starts {
			for _, j := range starts {
				if i < j && got == Sanitize(s[:i])+"…"+Sanitize(s[j:]) {
					return
				}
			}
		}
		t.Fatalf("clipMiddle(%q, %d) = %q is not a sanitized start and a later end around …", s, n, got)
	})
}

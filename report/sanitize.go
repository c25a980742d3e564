package report

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes a string from the input safe to print on a terminal, so a
// record cannot move the cursor, clear the screen, rewrite earlier lines or
// reorder what is shown, nor hide a character that prints as nothing. It
// escapes
//
//   - C0 controls (ESC, CR, LF, TAB, ...) and DEL as \x1b-style text;
//   - invalid UTF-8 as \xNN, one escape per byte;
//   - C1 controls (U+0080–U+009F), the line and paragraph separators
//     (U+2028, U+2029), format characters (Unicode's Cf: the bidi marks,
//     embeddings, overrides and isolates, zero-width spaces and joiners, the
//     soft hyphen, the BOM, tag characters) and the other default-ignorable
//     code points (variation selectors, Hangul fillers) as
//     \u202e-style text, or \U000e0041-style past U+FFFF. Terminals show
//     these as nothing or as a line break, or let them change how the text
//     around them shows, and tables count most of them as no column wide.
//
// It also defuses what a CI runner reading the output would take for a
// command of its own (see DefuseCommands). Everything else is unchanged:
// backslashes are not escaped, and combining marks are left to combine, so
// two ids that differ can still look alike ("e\u0301" and "é"); the JSON
// report carries every string exactly. A string that needs no escape is
// returned as is, without allocating.
func Sanitize(s string) string { return DefuseCommands(escapeHidden(s)) }

// DefuseCommands escapes, in s, one line, what the GitHub Actions runner
// reads as a workflow command in any line of a step's standard output or
// error: "##[" anywhere (its older syntax), as \x23#[, and "::" where the
// line starts, after white space, as \x3a:. Rows of the table and of
// explain start with an id, and errors quote ledger values: a ledger must
// not add annotations to the job, set its outputs or stop its commands.
// The runner trims what .NET calls white space, which unicode.IsSpace
// matches.
func DefuseCommands(s string) string {
	if strings.Contains(s, "##[") {
		s = strings.ReplaceAll(s, "##[", `\x23#[`)
	}
	if t := strings.TrimLeftFunc(s, unicode.IsSpace); strings.HasPrefix(t, "::") {
		i := len(s) - len(t)
		s = s[:i] + `\x3a` + s[i+1:]
	}
	return s
}

// escapeHidden escapes the controls, invalid bytes and invisible
// characters Sanitize lists.
func escapeHidden(s string) string {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return sanitizeFrom(s, i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size) {
			return sanitizeFrom(s, i)
		}
		i += size
	}
	return s
}

// unsafeRune reports whether the rune r, decoded from size bytes, must be
// escaped. An invalid byte decodes as RuneError of size 1.
func unsafeRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError:
		return size == 1
	case r <= 0x9f: // C1; ASCII never gets here
		return true
	case r < 0xad: // Latin-1, up to the soft hyphen
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// escapedRunes is how many runes escapeHidden makes of the rune r, decoded
// from size bytes (an invalid byte is a RuneError of size 1).
func escapedRunes(r rune, size int) int {
	switch {
	case r < utf8.RuneSelf:
		if r < 0x20 || r == 0x7f {
			return len(`\x1b`)
		}
		return 1
	case !unsafeRune(r, size):
		return 1
	case size == 1:
		return len(`\xff`)
	case r > 0xffff:
		return len(`\U000e0041`)
	}
	return len(`\u202e`)
}

// sanitizedHead returns the longest start of s whose Sanitize-d form has at
// most n runes, and sanitizedTail the longest end: s cut where an escape
// starts or ends, never inside one, which would hide what it stood for.
func sanitizedHead(s string, n int) string { return Sanitize(s[:headCut(s, n)]) }

func sanitizedTail(s string, n int) string { return Sanitize(s[tailCut(s, n):]) }

// headCut returns where sanitizedHead cuts s: the end of its start.
func headCut(s string, n int) int {
	i, w := 0, 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if w += escapedRunes(r, size); w > n {
			break
		}
		i += size
	}
	// What DefuseCommands adds, a few runes at the most.
	for utf8.RuneCountInString(Sanitize(s[:i])) > n {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return i
}

// tailCut returns where sanitizedTail cuts s: the start of its end.
func tailCut(s string, n int) int {
	j, w := len(s), 0
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		if w += escapedRunes(r, size); w > n {
			break
		}
		j -= size
	}
	for utf8.RuneCountInString(Sanitize(s[j:])) > n {
		_, size := utf8.DecodeRuneInString(s[j:])
		j += size
	}
	return j
}

const lowerHex = "0123456789abcdef"

// sanitizeFrom escapes s, whose first i bytes need no escape.
func sanitizeFrom(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\x`)
				b.WriteByte(lowerHex[c>>4])
				b.WriteByte(lowerHex[c&0xf])
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !unsafeRune(r, size):
			b.WriteString(s[i : i+size])
		case size == 1: // an invalid byte
			b.WriteString(`\x`)
			b.WriteByte(lowerHex[c>>4])
			b.WriteByte(lowerHex[c&0xf])
		default:
			escape, top := `\u`, 12
			if r > 0xffff {
				escape, top = `\U`, 28
			}
			b.WriteString(escape)
			for shift := top; shift >= 0; shift -= 4 {
				b.WriteByte(lowerHex[(r>>shift)&0xf])
			}
		}
		i += size
	}
	return b.String()
}

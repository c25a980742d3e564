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
// Everything else is unchanged: backslashes are not escaped, and combining
// marks are left to combine, so two ids that differ can still look alike
// ("e\u0301" and "é"); the JSON report carries every string exactly. A
// string that needs no escape is returned as is, without allocating.
func Sanitize(s string) string {
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

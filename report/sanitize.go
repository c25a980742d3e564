package report

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes a string from the input safe to print on a terminal, so a
// record cannot move the cursor, clear the screen, rewrite earlier lines or
// reorder what is shown. It escapes
//
//   - C0 controls (ESC, CR, LF, TAB, ...) and DEL as \x1b-style text;
//   - invalid UTF-8 as \xNN, one escape per byte;
//   - C1 controls (U+0080–U+009F) and the bidi marks, embeddings, overrides
//     and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)
//     as \u202e-style text.
//
// Everything else, backslashes included, is unchanged. A string that needs no
// escape is returned as is, without allocating.
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
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case 0x202a <= r && r <= 0x202e:
		return true
	case 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
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
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(lowerHex[(r>>shift)&0xf])
			}
		}
		i += size
	}
	return b.String()
}

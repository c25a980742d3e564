package canon

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendValue writes v in RFC 8785 canonical form. Members and elements
// marked dropped are left out.
func appendValue(dst []byte, v *value) []byte {
	switch v.kind {
	case kindNull:
		return append(dst, "null"...)
	case kindFalse:
		return append(dst, "false"...)
	case kindTrue:
		return append(dst, "true"...)
	case kindNumber:
		return appendNumber(dst, v.num)
	case kindString:
		return appendString(dst, v.str)
	case kindArray:
		dst = append(dst, '[')
		first := true
		for i := range v.elems {
			if v.elems[i].dropped {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendValue(dst, &v.elems[i])
		}
		return append(dst, ']')
	default: // kindObject
		ms := make([]*member, 0, len(v.members))
		for i := range v.members {
			if !v.members[i].val.dropped {
				ms = append(ms, &v.members[i])
			}
		}
		// Names are unique (duplicates were rejected), so an unstable sort
		// is deterministic.
		slices.SortFunc(ms, func(a, b *member) int { return compareUTF16(a.name, b.name) })
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, m.name)
			dst = append(dst, ':')
			dst = appendValue(dst, &m.val)
		}
		return append(dst, '}')
	}
}

// compareUTF16 orders valid UTF-8 strings by their UTF-16 code units, as
// RFC 8785 section 3.2.3 requires. Code point order (what comparing UTF-8
// bytes gives) differs only between a supplementary character, whose leading
// surrogate is in D800–DBFF, and a BMP character in E000–FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua != ub {
				return int(ua) - int(ub)
			}
			// Same high surrogate: the low surrogates order like the runes.
			return int(ra) - int(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}

const hexDigits = "0123456789abcdef"

// appendString writes s (valid UTF-8) with the minimal escaping of RFC 8785
// section 3.2.2.2: the two-character escapes where JSON has one, \u00xx with
// lower-case hex for the other control characters, everything else raw.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendNumber writes f as ECMAScript's Number.prototype.toString does
// (ECMA-262 Number::toString, used by RFC 8785 section 3.2.2.3). f must be
// finite; the parser never produces NaN or ±Inf.
func appendNumber(dst []byte, f float64) []byte {
	if f == 0 { // both +0 and -0
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// The shortest digits that round-trip are ECMAScript's s and k: Go picks
	// the closest of several shortest candidates, as ECMA-262 recommends.
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(string(e), "e")
	digits := strings.Replace(mant, ".", "", 1) // s, k = len(digits)
	x, _ := strconv.Atoi(exp)                   // "+09" and "-07" parse fine
	n := x + 1                                  // f = 0.digits × 10^n
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

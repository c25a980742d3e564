package canon

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is one node of the parsed document. Object members keep input order
// here; sorting happens when the canonical form is written.
type value struct {
	kind    kind
	dropped bool // named by a drop pointer; skipped when writing
	num     float64
	str     string
	elems   []value  // kindArray
	members []member // kindObject
}

type member struct {
	name string
	val  value
}

// dupMapThreshold is the member count above which duplicate names are found
// with a map instead of a linear scan.
const dupMapThreshold = 16

type parser struct {
	data  []byte
	pos   int
	depth int
	buf   []byte // scratch space for decoding escaped strings
}

func parse(data []byte) (value, error) {
	p := &parser{data: data}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.pos = 3
	}
	p.skipSpace()
	if p.pos == len(p.data) {
		return value{}, p.errf(ErrNotJSON, p.pos, "empty input: no JSON value")
	}
	v, err := p.value()
	if err != nil {
		return value{}, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return value{}, p.errf(ErrNotJSON, p.pos, "trailing data after the JSON value: %s", p.describe(p.pos))
	}
	return v, nil
}

func (p *parser) errf(sentinel error, off int, format string, args ...any) error {
	return &ParseError{Offset: off, Reason: fmt.Sprintf(format, args...), Err: sentinel}
}

// describe names the byte at off for an error message.
func (p *parser) describe(off int) string {
	if off >= len(p.data) {
		return "end of input"
	}
	c := p.data[off]
	if c >= 0x20 && c < 0x7F {
		return fmt.Sprintf("character %q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02X", c)
}

func (p *parser) unexpected() error {
	return p.errf(ErrNotJSON, p.pos, "unexpected %s", p.describe(p.pos))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (value, error) {
	if p.pos >= len(p.data) {
		return value{}, p.unexpected()
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		return value{kind: kindString, str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return value{kind: kindTrue}, p.literal("true")
	case c == 'f':
		return value{kind: kindFalse}, p.literal("false")
	case c == 'n':
		return value{kind: kindNull}, p.literal("null")
	default:
		return value{}, p.unexpected()
	}
}

func (p *parser) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) || p.data[p.pos] != word[i] {
			return p.errf(ErrNotJSON, p.pos, "invalid literal (expected %q): unexpected %s", word, p.describe(p.pos))
		}
		p.pos++
	}
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errf(ErrNotJSON, p.pos, "nesting deeper than %d arrays and objects", MaxDepth)
	}
	return nil
}

func (p *parser) array() (value, error) {
	if err := p.enter(); err != nil {
		return value{}, err
	}
	p.pos++ // '['
	v := value{kind: kindArray, elems: []value{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return v, nil
	}
	for {
		p.skipSpace()
		e, err := p.value()
		if err != nil {
			return value{}, err
		}
		v.elems = append(v.elems, e)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return value{}, p.errf(ErrNotJSON, p.pos, "unterminated array: unexpected end of input")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			return v, nil
		default:
			return value{}, p.errf(ErrNotJSON, p.pos, "expected ',' or ']' in array, found %s", p.describe(p.pos))
		}
	}
}

func (p *parser) object() (value, error) {
	if err := p.enter(); err != nil {
		return value{}, err
	}
	p.pos++ // '{'
	v := value{kind: kindObject, members: []member{}}
	var seen map[string]struct{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return v, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return value{}, p.errf(ErrNotJSON, p.pos, "expected a member name string, found %s", p.describe(p.pos))
		}
		nameOff := p.pos
		name, err := p.string()
		if err != nil {
			return value{}, err
		}
		// I-JSON compares names after unescaping, so "a" and "\u0061" clash.
		dup := false
		if seen != nil {
			_, dup = seen[name]
		} else {
			for i := range v.members {
				if v.members[i].name == name {
					dup = true
					break
				}
			}
		}
		if dup {
			return value{}, p.errf(ErrNotIJSON, nameOff, "duplicate member name %q", name)
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return value{}, p.errf(ErrNotJSON, p.pos, "expected ':' after member name %q, found %s", name, p.describe(p.pos))
		}
		p.pos++
		p.skipSpace()
		e, err := p.value()
		if err != nil {
			return value{}, err
		}
		v.members = append(v.members, member{name: name, val: e})
		if seen != nil {
			seen[name] = struct{}{}
		} else if len(v.members) > dupMapThreshold {
			seen = make(map[string]struct{}, 2*len(v.members))
			for i := range v.members {
				seen[v.members[i].name] = struct{}{}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return value{}, p.errf(ErrNotJSON, p.pos, "unterminated object: unexpected end of input")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return v, nil
		default:
			return value{}, p.errf(ErrNotJSON, p.pos, "expected ',' or '}' in object, found %s", p.describe(p.pos))
		}
	}
}

// maxQuotedNumber bounds how much of a rejected number an error message quotes.
const maxQuotedNumber = 40

func (p *parser) number() (value, error) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		p.skipDigits()
	default:
		return value{}, p.errf(ErrNotJSON, p.pos, "invalid number: expected a digit, found %s", p.describe(p.pos))
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if p.pos >= len(d) || d[p.pos] < '0' || d[p.pos] > '9' {
			return value{}, p.errf(ErrNotJSON, p.pos, "invalid number: expected a digit after '.', found %s", p.describe(p.pos))
		}
		p.skipDigits()
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(d) || d[p.pos] < '0' || d[p.pos] > '9' {
			return value{}, p.errf(ErrNotJSON, p.pos, "invalid number: expected a digit in the exponent, found %s", p.describe(p.pos))
		}
		p.skipDigits()
	}
	text := string(d[start:p.pos])
	// Rounded to nearest; 0 on underflow (accepted, see the package doc).
	f, inf := numberValue(text)
	if inf {
		return value{}, p.errf(ErrNotIJSON, start, "number %s overflows a double", quoteNumber(text))
	}
	return value{kind: kindNumber, num: f}, nil
}

func quoteNumber(text string) string {
	if len(text) > maxQuotedNumber {
		return fmt.Sprintf("%s... (%d digits)", text[:maxQuotedNumber], len(text))
	}
	return text
}

func (p *parser) skipDigits() {
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
}

// string decodes the string starting at the opening quote at p.pos.
func (p *parser) string() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	d := p.data
	// Fast path: no escapes, so the decoded string is a slice of the input.
	i := p.pos
	for i < len(d) {
		c := d[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(d[i:])
		if r == utf8.RuneError && size == 1 {
			return "", p.errf(ErrNotIJSON, i, "invalid UTF-8 in string")
		}
		i += size
	}
	if i < len(d) && d[i] == '"' {
		s := string(d[p.pos:i])
		p.pos = i + 1
		return s, nil
	}
	buf := append(p.buf[:0], d[p.pos:i]...)
	p.pos = i
	for {
		if p.pos >= len(d) {
			return "", p.errf(ErrNotJSON, start, "unterminated string")
		}
		c := d[p.pos]
		switch {
		case c == '"':
			p.pos++
			p.buf = buf
			return string(buf), nil
		case c < 0x20:
			return "", p.errf(ErrNotJSON, p.pos, "unescaped control character 0x%02X in string", c)
		case c == '\\':
			var err error
			buf, err = p.escape(buf)
			if err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(d[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errf(ErrNotIJSON, p.pos, "invalid UTF-8 in string")
			}
			buf = append(buf, d[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

// escape decodes the escape sequence at p.pos (a backslash) onto buf.
func (p *parser) escape(buf []byte) ([]byte, error) {
	start := p.pos
	if p.pos+1 >= len(p.data) {
		return nil, p.errf(ErrNotJSON, start, "unterminated escape sequence")
	}
	c := p.data[p.pos+1]
	p.pos += 2
	switch c {
	case '"', '\\', '/':
		return append(buf, c), nil
	case 'b':
		return append(buf, '\b'), nil
	case 'f':
		return append(buf, '\f'), nil
	case 'n':
		return append(buf, '\n'), nil
	case 'r':
		return append(buf, '\r'), nil
	case 't':
		return append(buf, '\t'), nil
	case 'u':
	default:
		return nil, p.errf(ErrNotJSON, start, "invalid escape sequence \\%s", p.describe(start+1))
	}
	r, err := p.hex4(start)
	if err != nil {
		return nil, err
	}
	switch {
	case utf16.IsSurrogate(r) && r >= 0xDC00:
		return nil, p.errf(ErrNotIJSON, start, "lone low surrogate escape \\u%04X", r)
	case utf16.IsSurrogate(r):
		// A high surrogate must be followed at once by an escaped low one.
		if p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
			return nil, p.errf(ErrNotIJSON, start, "lone high surrogate escape \\u%04X", r)
		}
		lowStart := p.pos
		p.pos += 2
		r2, err := p.hex4(lowStart)
		if err != nil {
			return nil, err
		}
		if r2 < 0xDC00 || r2 > 0xDFFF {
			return nil, p.errf(ErrNotIJSON, start, "high surrogate escape \\u%04X not followed by a low surrogate (found \\u%04X)", r, r2)
		}
		r = utf16.DecodeRune(r, r2)
	}
	return utf8.AppendRune(buf, r), nil
}

// hex4 reads the four hex digits of a \u escape that began at start.
func (p *parser) hex4(start int) (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errf(ErrNotJSON, start, "truncated \\u escape")
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, p.errf(ErrNotJSON, start, "invalid \\u escape: %q is not four hex digits", p.data[p.pos:p.pos+4])
		}
	}
	p.pos += 4
	return r, nil
}

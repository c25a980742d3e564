package ndjson

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects a line may hold; the
// record object itself is level 1. A deeper line is rejected with ErrTooDeep.
const MaxDepth = 512

// Kind is the JSON type of a member value.
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota
	False
	True
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "false", "true", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// kindOf tells the kind of the value that starts with c, which must be the
// first byte of a valid value.
func kindOf(c byte) Kind {
	switch c {
	case '{':
		return Object
	case '[':
		return Array
	case '"':
		return String
	case 't':
		return True
	case 'f':
		return False
	case 'n':
		return Null
	}
	return Number
}

// Member is one top-level member of a record object.
type Member struct {
	Name    []byte // decoded (unescaped) member name
	Value   []byte // raw JSON text of the value, exactly as in the line (strings include quotes and escapes)
	Kind    Kind
	Escaped bool // for strings: the raw text contains a backslash escape
}

// Parser validates single lines as JSON objects. The zero value is ready to
// use; a Parser keeps its scratch space between calls so that parsing a
// stream of lines does not allocate. It is not safe for concurrent use: give
// each goroutine its own.
//
// A line is accepted when it is exactly one JSON object (RFC 8259) with
// optional JSON white space around it, every byte of it is valid UTF-8, no
// object at any depth holds two members whose decoded names are equal, and it
// nests at most MaxDepth levels. Numbers are checked against the grammar
// only: 1e400 and 123456789012345678901234567890 are accepted. A \u escape of
// half a UTF-16 surrogate pair without the other half right after it (lone
// or inverted) is rejected with ErrLoneSurrogate, as the bytes of a
// surrogate are rejected as invalid UTF-8: no string holding one is text.
type Parser struct {
	members []Member
	stack   []frame
	// names holds the decoded member names of every object still open, the
	// outer objects' names first; an object's names are dropped when it
	// closes, so each object checks its new names against its own only.
	names [][]byte
	buf   []byte // decoded names that held escapes
	// Objects with more than linearNames members index their names in a
	// hash table of their own: open addressing over table[f.table :
	// f.table+f.size], each slot 0 or 1 + an index in names. The tables of
	// the open objects are stacked in table like their names in names: only
	// the innermost object adds names, so its table is always the last one
	// and can grow in place. hashes[k] is the hash of names[k], kept for
	// indexed objects only.
	table  []int
	hashes []uint64
	seed   maphash.Seed
	seeded bool
}

// frame is one open array or object.
type frame struct {
	object    bool
	nameStart int // index in Parser.names of the object's first name
	table     int // start of the object's hash table in Parser.table
	size      int // size of that table, a power of two; 0 if it has none
}

// linearNames is how many names an object may hold before its duplicate
// check switches from a linear scan to a hash index. Records have a dozen
// members or so, and scanning them beats hashing; past this, scanning would
// go quadratic.
const linearNames = 16

// Parse validates line as one JSON object and returns its top-level members
// in the order of the line. The line must not hold the LF that ended it; a
// CR left at its end (or anywhere JSON white space is allowed) is white space
// and harmless, so callers need not remove it. A leading byte order mark is
// not expected and is an error.
//
// The members, their names and values alias line and p's scratch space: they
// are valid until the next call to Parse and as long as line is unchanged.
//
// An error is a *ParseError with Column set (Line and Offset are left zero for
// the caller, who knows where the line came from) wrapping ErrSyntax,
// ErrNotObject, ErrDuplicateName, ErrInvalidUTF8, ErrLoneSurrogate or
// ErrTooDeep. If the line is
// not valid UTF-8, the error is ErrInvalidUTF8 at the first invalid byte,
// whatever else is wrong with it, so that the verdict on a line does not
// depend on which of its faults comes first. A line that is valid JSON but not
// an object gets ErrNotObject naming the kind of value it holds.
func (p *Parser) Parse(line []byte) ([]Member, error) {
	members, ok, err := p.flat(line)
	if !ok {
		members, err = p.parse(line)
	}
	if err != nil {
		return nil, utf8First(line, err)
	}
	return members, nil
}

// utf8First replaces err, an error found in line, with ErrInvalidUTF8 if line
// is not valid UTF-8.
func utf8First(line []byte, err error) error {
	if utf8.Valid(line) {
		return err
	}
	i := 0
	for i < len(line) {
		r, size := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return errUTF8(line, i)
}

func (p *Parser) parse(line []byte) ([]Member, error) {
	p.members = p.members[:0]
	p.stack = p.stack[:0]
	p.names = p.names[:0]
	p.buf = p.buf[:0]
	p.table = p.table[:0]

	n := len(line)
	i := skipSpace(line, 0)
	if i == n {
		return nil, &ParseError{Column: i + 1, Err: fmt.Errorf("%w: no value on the line", ErrSyntax)}
	}
	return p.values(line, i, i, false)
}

// values reads values from line[i] on, to the end of the line. top is where
// the line's value starts. With inMember, the value at i is the top-level
// member's last in p.members, which has its name only; the parser's state
// is what it would be had it read the line up to i.
func (p *Parser) values(line []byte, i, top int, inMember bool) ([]Member, error) {
	n := len(line)
	var (
		mstart   = i  // where the top-level member's value starts
		mescaped bool // that value is a string with escapes
		err      error
	)
	for {
		// A value starts at i, after white space.
		i = skipSpace(line, i)
		if i >= n {
			return nil, errEnd(n)
		}
		switch c := line[i]; c {
		case '{':
			if len(p.stack) == MaxDepth {
				return nil, errDepth(i)
			}
			p.stack = append(p.stack, frame{object: true, nameStart: len(p.names)})
			i = skipSpace(line, i+1)
			if i < n && line[i] == '}' {
				p.pop()
				i++
				break
			}
			if i, err = p.name(line, i, false); err != nil {
				return nil, err
			}
			if len(p.stack) == 1 {
				inMember, mstart, mescaped = true, i, false
			}
			continue
		case '[':
			if len(p.stack) == MaxDepth {
				return nil, errDepth(i)
			}
			p.stack = append(p.stack, frame{})
			i = skipSpace(line, i+1)
			if i < n && line[i] == ']' {
				p.stack = p.stack[:len(p.stack)-1]
				i++
				break
			}
			continue
		case '"':
			if i, mescaped, err = scanString(line, i); err != nil {
				return nil, err
			}
		case 't':
			if i, err = literal(line, i, "true"); err != nil {
				return nil, err
			}
		case 'f':
			if i, err = literal(line, i, "false"); err != nil {
				return nil, err
			}
		case 'n':
			if i, err = literal(line, i, "null"); err != nil {
				return nil, err
			}
		default:
			if c != '-' && !isDigit(c) {
				return nil, errChar(line, i, "looking for beginning of value")
			}
			if i, err = number(line, i); err != nil {
				return nil, err
			}
		}

		// A value ends at i: close what it completes, up to the next value.
	closing:
		for {
			depth := len(p.stack)
			if inMember && depth == 1 {
				m := &p.members[len(p.members)-1]
				m.Value = line[mstart:i:i]
				m.Kind = kindOf(line[mstart])
				m.Escaped = m.Kind == String && mescaped
				inMember = false
			}
			i = skipSpace(line, i)
			if depth == 0 {
				if i < n {
					return nil, errChar(line, i, "after top-level value")
				}
				if k := kindOf(line[top]); k != Object {
					return nil, &ParseError{Column: top + 1, Err: fmt.Errorf("%w: %v", ErrNotObject, k)}
				}
				return p.members, nil
			}
			if i >= n {
				return nil, errEnd(n)
			}
			f := &p.stack[depth-1]
			switch c := line[i]; {
			case c == ',':
				i = skipSpace(line, i+1)
				if f.object {
					if i, err = p.name(line, i, true); err != nil {
						return nil, err
					}
					if depth == 1 {
						inMember, mstart, mescaped = true, i, false
					}
				} else if i < n && line[i] == ']' {
					return nil, errTrailingComma(i)
				}
				break closing
			case f.object && c == '}':
				p.pop()
				i++
			case !f.object && c == ']':
				p.stack = p.stack[:depth-1]
				i++
			case f.object:
				return nil, errChar(line, i, "after object member")
			default:
				return nil, errChar(line, i, "after array element")
			}
		}
	}
}

// flat is parse for the shape nearly every ledger line has: an object whose
// names are free of escapes and few enough to check for duplicates by
// scanning. It reads members without the bookkeeping nesting needs, and
// hands a nested value over to values in the state parse would have
// reached. It reports false, having decided nothing, at the first thing
// out of the ordinary, valid or not: parse then reads the line from the
// start, so that errors are found and worded in one place.
func (p *Parser) flat(line []byte) (members []Member, ok bool, err error) {
	members = p.members[:0]
	n := len(line)
	top := skipSpace(line, 0)
	if top >= n || line[top] != '{' {
		return nil, false, nil
	}
	for i := top; ; {
		// A member: its name...
		i = skipSpace(line, i+1)
		if i >= n || line[i] != '"' || len(members) == linearNames {
			return nil, false, nil
		}
		end, escaped, err := scanString(line, i)
		if err != nil || escaped {
			return nil, false, nil
		}
		name := line[i+1 : end-1 : end-1]
		for k := range members {
			if string(members[k].Name) == string(name) {
				return nil, false, nil
			}
		}
		i = skipSpace(line, end)
		if i >= n || line[i] != ':' {
			return nil, false, nil
		}
		// ...and its value.
		i = skipSpace(line, i+1)
		if i >= n {
			return nil, false, nil
		}
		start := i
		var kind Kind
		switch c := line[i]; c {
		case '"':
			kind = String
			i, escaped, err = scanString(line, i)
		case 't':
			kind = True
			i, err = literal(line, i, "true")
		case 'f':
			kind = False
			i, err = literal(line, i, "false")
		case 'n':
			kind = Null
			i, err = literal(line, i, "null")
		case '{', '[':
			return p.resume(line, top, i, append(members, Member{Name: name}))
		default:
			if c != '-' && !isDigit(c) {
				return nil, false, nil
			}
			kind = Number
			i, err = number(line, i)
		}
		if err != nil {
			return nil, false, nil
		}
		members = append(members, Member{Name: name, Value: line[start:i:i], Kind: kind, Escaped: kind == String && escaped})
		i = skipSpace(line, i)
		if i >= n {
			return nil, false, nil
		}
		switch line[i] {
		case ',':
			continue
		case '}':
			if skipSpace(line, i+1) != n {
				return nil, false, nil
			}
			p.members = members
			return members, true, nil
		}
		return nil, false, nil
	}
}

// resume hands a line over from flat to values at i, the start of a nested
// value of the last of members, giving the parser the state parse would
// have there: one open object, whose names are the members'.
func (p *Parser) resume(line []byte, top, i int, members []Member) ([]Member, bool, error) {
	p.members = members
	p.stack = append(p.stack[:0], frame{object: true})
	p.names = p.names[:0]
	for _, m := range members {
		p.names = append(p.names, m.Name)
	}
	p.buf = p.buf[:0]
	p.table = p.table[:0]
	members, err := p.values(line, i, top, true)
	return members, true, err
}

// pop closes the innermost object, forgetting its names.
func (p *Parser) pop() {
	f := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	p.names = p.names[:f.nameStart]
	if f.size > 0 {
		p.table = p.table[:f.table]
	}
}

// name reads a member name starting at line[i], checks it against the other
// names of the innermost object, and reads the colon after it. It returns
// where the member's value starts.
func (p *Parser) name(line []byte, i int, afterComma bool) (int, error) {
	n := len(line)
	if i >= n {
		return 0, errEnd(n)
	}
	if line[i] != '"' {
		if afterComma && line[i] == '}' {
			return 0, errTrailingComma(i)
		}
		return 0, errChar(line, i, "looking for beginning of member name")
	}
	end, escaped, err := scanString(line, i)
	if err != nil {
		return 0, err
	}
	var name []byte
	if escaped {
		start := len(p.buf)
		p.buf = unescape(p.buf, line[i+1:end-1])
		name = p.buf[start:len(p.buf):len(p.buf)]
	} else {
		name = line[i+1 : end-1 : end-1]
	}
	if p.duplicate(name) {
		return 0, &ParseError{Column: i + 1, Err: fmt.Errorf("%w %s", ErrDuplicateName, quoteName(name))}
	}
	if len(p.stack) == 1 {
		p.members = append(p.members, Member{Name: name})
	}
	j := skipSpace(line, end)
	if j >= n {
		return 0, errEnd(n)
	}
	if line[j] != ':' {
		return 0, errChar(line, j, "after member name")
	}
	return skipSpace(line, j+1), nil
}

// duplicate reports whether the innermost object already has a member called
// name, and adds name to its names if not.
func (p *Parser) duplicate(name []byte) bool {
	f := &p.stack[len(p.stack)-1]
	if f.size == 0 {
		for _, other := range p.names[f.nameStart:] {
			if string(other) == string(name) {
				return true
			}
		}
		p.names = append(p.names, name)
		if len(p.names)-f.nameStart > linearNames {
			p.index(f)
		}
		return false
	}
	h := maphash.Bytes(p.seed, name)
	table := p.table[f.table : f.table+f.size]
	mask := uint64(f.size - 1)
	j := h & mask
	for ; table[j] != 0; j = (j + 1) & mask {
		k := table[j] - 1
		if p.hashes[k] == h && string(p.names[k]) == string(name) {
			return true
		}
	}
	k := len(p.names)
	p.names = append(p.names, name)
	p.hashes = append(p.hashes[:k], h)
	table[j] = k + 1
	if 2*(len(p.names)-f.nameStart) > f.size {
		p.rehash(f, 2*f.size)
	}
	return false
}

// index gives f, an object with many names, a hash table of them.
func (p *Parser) index(f *frame) {
	if !p.seeded {
		p.seed = maphash.MakeSeed()
		p.seeded = true
	}
	// Hashes below nameStart belong to outer indexed objects and are kept.
	if len(p.hashes) < len(p.names) {
		p.hashes = append(p.hashes, make([]uint64, len(p.names)-len(p.hashes))...)
	}
	p.hashes = p.hashes[:len(p.names)]
	for k := f.nameStart; k < len(p.names); k++ {
		p.hashes[k] = maphash.Bytes(p.seed, p.names[k])
	}
	f.table = len(p.table)
	p.rehash(f, 4*linearNames)
}

// rehash (re)builds f's hash table with size slots; f's table is the last in
// p.table.
func (p *Parser) rehash(f *frame, size int) {
	p.table = slices.Grow(p.table[:f.table], size)[:f.table+size]
	table := p.table[f.table:]
	clear(table)
	f.size = size
	mask := uint64(size - 1)
	for k := f.nameStart; k < len(p.names); k++ {
		j := p.hashes[k] & mask
		for table[j] != 0 {
			j = (j + 1) & mask
		}
		table[j] = k + 1
	}
}

func skipSpace(line []byte, i int) int {
	for i < len(line) {
		switch line[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literal reads the literal word, whose first byte is at line[i].
func literal(line []byte, i int, word string) (int, error) {
	if end, ok := ScanLiteral(line, i, word); ok {
		return end, nil
	}
	for k := 1; k < len(word); k++ {
		if i+k >= len(line) {
			return 0, errEnd(len(line))
		}
		if line[i+k] != word[k] {
			return 0, errChar(line, i+k, "in literal "+word)
		}
	}
	panic("unreachable")
}

// number reads a number whose first byte, '-' or a digit, is at line[i].
func number(line []byte, i int) (int, error) {
	n := len(line)
	if line[i] == '-' {
		i++
		if i >= n {
			return 0, errEnd(n)
		}
	}
	switch c := line[i]; {
	case c == '0':
		i++
		if i < n && isDigit(line[i]) {
			return 0, &ParseError{Column: i + 1, Err: fmt.Errorf("%w: leading zero in number", ErrSyntax)}
		}
	case isDigit(c):
		i++
		for i < n && isDigit(line[i]) {
			i++
		}
	default:
		return 0, errChar(line, i, "in number")
	}
	if i < n && line[i] == '.' {
		i++
		if i >= n {
			return 0, errEnd(n)
		}
		if !isDigit(line[i]) {
			return 0, errChar(line, i, "after decimal point in number")
		}
		for i < n && isDigit(line[i]) {
			i++
		}
	}
	if i < n && (line[i] == 'e' || line[i] == 'E') {
		i++
		if i < n && (line[i] == '+' || line[i] == '-') {
			i++
		}
		if i >= n {
			return 0, errEnd(n)
		}
		if !isDigit(line[i]) {
			return 0, errChar(line, i, "in exponent of number")
		}
		for i < n && isDigit(line[i]) {
			i++
		}
	}
	return i, nil
}

// SWAR constants: one in every byte, and every byte's high bit.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// scanString validates the string literal whose opening quote is at line[i].
// It returns the index just past the closing quote and whether the literal
// holds a backslash escape.
func scanString(line []byte, i int) (end int, escaped bool, err error) {
	n := len(line)
	i++
	for {
		// Skip plain ASCII eight bytes at a time: stop at the first byte
		// that is a quote, a backslash, a control character or not ASCII.
		// The subtractions borrow only across bytes that are themselves
		// flagged, so the lowest flagged byte is exact.
		for n-i >= 8 {
			v := binary.LittleEndian.Uint64(line[i:])
			q := v ^ (ones * '"')
			b := v ^ (ones * '\\')
			m := ((q - ones) &^ q) | ((b - ones) &^ b) | ((v - ones*0x20) &^ v) | v
			if m &= highs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n {
			return 0, false, errEnd(n)
		}
		switch c := line[i]; {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= n {
				return 0, false, errEnd(n)
			}
			switch line[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i, err = scanSurrogates(line, i); err != nil {
					return 0, false, err
				}
			default:
				return 0, false, errChar(line, i+1, "in string escape")
			}
		case c < 0x20:
			return 0, false, &ParseError{Column: i + 1, Err: fmt.Errorf("%w: control character 0x%02x in string", ErrSyntax, c)}
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false, errUTF8(line, i)
			}
			i += size
		}
	}
}

// scanSurrogates validates the \u escape at line[i] and returns the index
// just past it, or past the pair of escapes it starts. An escape of half a
// UTF-16 surrogate pair is an error unless the other half follows at once:
// such a string cannot be UTF-8 text, and decoding every lone half to U+FFFD
// would make "\ud800" and "\udbff" one string.
func scanSurrogates(line []byte, i int) (int, error) {
	r, err := scanHex4(line, i+2)
	if err != nil {
		return 0, err
	}
	switch {
	case 0xDC00 <= r && r < 0xE000:
		return 0, errSurrogate(line, i, "a low surrogate with no high one before it")
	case r < 0xD800 || r >= 0xDC00:
		return i + 6, nil
	}
	if i+7 >= len(line) || line[i+6] != '\\' || line[i+7] != 'u' {
		return 0, errSurrogate(line, i, "a high surrogate not followed by a low one")
	}
	lo, err := scanHex4(line, i+8)
	if err != nil {
		return 0, err
	}
	if lo < 0xDC00 || lo >= 0xE000 {
		return 0, errSurrogate(line, i, "a high surrogate not followed by a low one")
	}
	return i + 12, nil
}

// scanHex4 decodes the four hex digits of a \u escape, from line[i].
func scanHex4(line []byte, i int) (rune, error) {
	for k := i; k < i+4; k++ {
		if k >= len(line) {
			return 0, errEnd(len(line))
		}
		if !isHex(line[k]) {
			return 0, errChar(line, k, `in \u escape`)
		}
	}
	return hex4(line[i:]), nil
}

func errSurrogate(line []byte, i int, what string) error {
	return &ParseError{Column: i + 1, Err: fmt.Errorf("%w %s: %s", ErrLoneSurrogate, line[i:i+6], what)}
}

// AppendUnquote appends the decoded content of the JSON string literal raw
// (with its quotes) to dst. raw must be exactly one valid string literal
// holding valid UTF-8, as Parse checks; otherwise AppendUnquote returns dst
// unchanged and a *ParseError whose Column is counted in raw.
func AppendUnquote(dst, raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return dst, errEnd(0)
	}
	if raw[0] != '"' {
		return dst, utf8First(raw, errChar(raw, 0, "looking for beginning of string"))
	}
	end, escaped, err := scanString(raw, 0)
	if err == nil && end < len(raw) {
		err = errChar(raw, end, "after string")
	}
	if err != nil {
		return dst, utf8First(raw, err)
	}
	if !escaped {
		return append(dst, raw[1:end-1]...), nil
	}
	return unescape(dst, raw[1:end-1]), nil
}

// unescape appends the decoded form of s, the validated content of a string
// literal, to dst.
func unescape(dst, s []byte) []byte {
	for {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:k]...)
		c := s[k+1]
		s = s[k+2:]
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s)
			s = s[4:]
			if utf16.IsSurrogate(r) {
				// scanString let a high surrogate through only with its
				// low one right after it.
				r = utf16.DecodeRune(r, hex4(s[2:]))
				s = s[6:]
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
	}
}

// hex4 decodes the four hex digits at the start of s.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

func errEnd(n int) error {
	return &ParseError{Column: n + 1, Err: fmt.Errorf("%w: unexpected end of line", ErrSyntax)}
}

func errTrailingComma(i int) error {
	return &ParseError{Column: i + 1, Err: fmt.Errorf("%w: trailing comma", ErrSyntax)}
}

func errDepth(i int) error {
	return &ParseError{Column: i + 1, Err: fmt.Errorf("%w: more than %d levels", ErrTooDeep, MaxDepth)}
}

func errUTF8(line []byte, i int) error {
	return &ParseError{Column: i + 1, Err: fmt.Errorf("%w: byte 0x%02x", ErrInvalidUTF8, line[i])}
}

// errChar reports an unexpected character at line[i]; where says what was
// being read.
func errChar(line []byte, i int, where string) error {
	return &ParseError{Column: i + 1, Err: fmt.Errorf("%w: invalid character %s %s", ErrSyntax, describeChar(line, i), where)}
}

// describeChar names the character at line[i] for a message, in a form that
// cannot disturb a terminal.
func describeChar(line []byte, i int) string {
	c := line[i]
	switch {
	case c >= 0x20 && c < 0x7f:
		return strconv.QuoteRune(rune(c))
	case c < utf8.RuneSelf:
		return fmt.Sprintf("0x%02x", c)
	}
	r, size := utf8.DecodeRune(line[i:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("U+%04X", r)
}

// quoteName quotes a member name for a message, shortened if long.
func quoteName(name []byte) string { return QuoteShort(name, 64) }

package baseline

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

// reader reads a report into a Baseline one operation at a time. A report
// can be gigabytes, so it is read through a window that slides along the
// input, and grows only for a token longer than it. Members are read as
// encoding/json reads them into structs, except that their names must match
// exactly: null leaves a string as it was and empties a list, and of a
// member given twice in an operation the last holds. Strings and numbers
// are checked as the strict ledger parser checks them (ndjson), which is
// JSON's grammar, with strings in UTF-8. Nothing it reads is kept but an
// operation's id, copied: reading allocates nothing per operation.
type reader struct {
	b    *Baseline
	r    io.Reader
	read int // how much the window reads at a time
	buf  []byte
	pos  int   // the next byte to read
	lim  int   // buf[:lim] holds input
	off  int64 // the input offset of buf[0]
	eof  bool  // r has no more

	readErr error // a failure to read
	err     error // the first syntax error or problem found
	op      int   // 1 + index of the operation being read, for errors

	id      []byte // the operation's id, as read so far
	name    []byte // the member name last read
	scratch []byte // a string with escapes, unescaped
}

// maxDepth is how deeply values may nest, as in encoding/json.
const maxDepth = 10000

func newReader(b *Baseline, r io.Reader, read int) *reader {
	return &reader{b: b, r: r, read: read, buf: make([]byte, 2*read)}
}

// more reads more input into the window, keeping buf[pos:lim], which it
// may move to the start of the window even when it reads nothing: indexes
// into the window but pos are stale after it. It reports false once the
// input has ended, or failed, or an error was found.
func (d *reader) more() bool {
	if d.eof || d.err != nil {
		return false
	}
	if d.pos > 0 {
		n := copy(d.buf, d.buf[d.pos:d.lim])
		d.off += int64(d.pos)
		d.pos, d.lim = 0, n
	}
	if len(d.buf)-d.lim < d.read {
		grown := make([]byte, 2*len(d.buf)) // a token longer than the window
		copy(grown, d.buf[:d.lim])
		d.buf = grown
	}
	// The window is filled, not just read into: a token that spans it is
	// scanned again from its start after each call, so the window must
	// double, not creep, along a long one.
	start := d.lim
	for d.lim < len(d.buf) && !d.eof {
		n, err := d.r.Read(d.buf[d.lim:])
		d.lim += n
		switch {
		case err == io.EOF:
			d.eof = true
		case err != nil:
			d.eof, d.readErr = true, err
		}
	}
	return d.lim > start
}

// ws skips white space, reading on as needed. A report is indented: runs
// of spaces are skipped eight at a time.
func (d *reader) ws() {
	for {
		buf, i := d.buf[:d.lim], d.pos
		for i < len(buf) {
			if i+8 <= len(buf) && binary.LittleEndian.Uint64(buf[i:]) == spaces {
				i += 8
				continue
			}
			if c := buf[i]; c != ' ' && c != '\n' && c != '\t' && c != '\r' {
				break
			}
			i++
		}
		d.pos = i
		if d.pos < d.lim || !d.more() {
			return
		}
	}
}

const spaces = 0x2020202020202020 // eight, as a little-endian word

// peek returns the next byte after white space; ok is false at the end of
// the input.
func (d *reader) peek() (c byte, ok bool) {
	d.ws()
	if d.pos < d.lim {
		return d.buf[d.pos], true
	}
	return 0, false
}

// value returns the next byte after white space, which starts a value;
// at the end of the input it notes the input cut short.
func (d *reader) value() (c byte, more bool) {
	if c, more = d.peek(); !more {
		d.syntax("looking for a value")
	}
	return c, more
}

// take reads c if it comes next, after white space.
func (d *reader) take(c byte) bool {
	if next, ok := d.peek(); ok && next == c {
		d.pos++
		return true
	}
	return false
}

// fail notes that the document is not a report, unless a problem was
// found already, and returns false.
func (d *reader) fail(format string, args ...any) bool {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
	return false
}

// syntax notes a syntax error at the next byte, or the input cut short
// there, and returns false.
func (d *reader) syntax(what string) bool {
	d.ws()
	if d.pos >= d.lim {
		return d.fail("%w", io.ErrUnexpectedEOF)
	}
	for !utf8.FullRune(d.buf[d.pos:d.lim]) && d.more() { // the whole character, to name it
	}
	return d.fail("invalid character %s %s %s", ndjson.DescribeChar(d.buf[:d.lim], d.pos), what, d.near(d.pos))
}

// near says where buf[i] is: its offset in the input, and the input around
// it quoted, escaped, for a message that stays on one line and cannot write
// control characters to a terminal. A report is megabytes of indented lines
// whose pieces look alike: the offset says where, the quote what.
func (d *reader) near(i int) string {
	start, end := max(0, i-10), min(d.lim, i+10)
	// Not in the middle of a character, which takes at most 3 bytes after
	// its first.
	for k := 0; k < utf8.UTFMax-1 && start > 0 && start < d.lim && d.buf[start]&0xc0 == 0x80; k++ {
		start--
	}
	for k := 0; k < utf8.UTFMax-1 && end < d.lim && d.buf[end]&0xc0 == 0x80; k++ {
		end++
	}
	return fmt.Sprintf("at offset %d, near %s", d.off+int64(i), strconv.QuoteToGraphic(string(d.buf[start:end])))
}

// str reads a string literal, which must come next, and returns its
// content, unescaped; it aliases the window or scratch space, and holds
// only until the next read.
func (d *reader) str() ([]byte, bool) {
	d.ws()
	for {
		end, escaped, err := ndjson.ScanString(d.buf[:d.lim], d.pos)
		if err == nil {
			raw := d.buf[d.pos:end]
			d.pos = end
			if !escaped {
				return raw[1 : len(raw)-1], true
			}
			d.scratch, _ = ndjson.AppendUnquote(d.scratch[:0], raw)
			return d.scratch, true
		}
		if !quoteEnds(d.buf[d.pos:d.lim]) {
			if d.more() {
				continue
			}
			if d.err == nil && d.readErr == nil {
				d.fail("%w", io.ErrUnexpectedEOF)
			}
			return nil, false
		}
		var pe *ndjson.ParseError
		if errors.As(err, &pe) && pe.Column > 0 {
			return nil, d.fail("%v %s", pe.Err, d.near(pe.Column-1))
		}
		return nil, d.fail("%v %s", err, d.near(d.pos))
	}
}

// quoteEnds reports whether the string literal that lit starts holds its
// closing quote: if not, the window holds only a part of it.
func quoteEnds(lit []byte) bool {
	for i := 1; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case '"':
			return true
		}
	}
	return false
}

// number reads a number, which must come next, and returns its text; it
// aliases the window and holds only until the next read.
func (d *reader) number() ([]byte, bool) {
	d.ws()
	for {
		// The window must hold the byte after the number, or the input
		// must end with it.
		i := d.numberEnd()
		if i == d.lim && d.more() {
			continue
		}
		i = d.numberEnd() // more may have slid the window, reading nothing
		end, err := ndjson.ScanNumber(d.buf[:i], d.pos)
		if err != nil || end != i {
			var pe *ndjson.ParseError
			if i == d.lim && errors.As(err, &pe) && pe.Column > i { // it found the end, not a fault
				return nil, d.fail("%w", io.ErrUnexpectedEOF)
			}
			return nil, d.fail("invalid number %s %s", ndjson.QuoteShort(d.buf[d.pos:i], 20), d.near(d.pos))
		}
		text := d.buf[d.pos:end]
		d.pos = end
		return text, true
	}
}

// numberEnd returns where the bytes a number may hold end, from pos on.
func (d *reader) numberEnd() int {
	i := d.pos
	for i < d.lim && isNumberByte(d.buf[i]) {
		i++
	}
	return i
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// literal reads true, false or null, whichever word starts with the next
// byte.
func (d *reader) literal(word string) bool {
	for d.lim-d.pos < len(word) && d.more() {
	}
	if d.lim-d.pos >= len(word) && string(d.buf[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	for k := 1; k < len(word); k++ {
		if d.pos+k >= d.lim {
			return d.fail("%w", io.ErrUnexpectedEOF)
		}
		if d.buf[d.pos+k] != word[k] {
			for !utf8.FullRune(d.buf[d.pos+k:d.lim]) && d.more() { // the whole character, to name it
			}
			return d.fail("invalid character %s in literal %s %s", ndjson.DescribeChar(d.buf[:d.lim], d.pos+k), word, d.near(d.pos+k))
		}
	}
	return false
}

// null reads null if it comes next.
func (d *reader) null() bool {
	if c, ok := d.peek(); !ok || c != 'n' {
		return false
	}
	return d.literal("null")
}

// skip reads a value of any kind, which depth values (objects and arrays)
// enclose.
func (d *reader) skip(depth int) bool {
	c, ok := d.peek()
	switch {
	case !ok:
		return d.syntax("looking for a value")
	case (c == '{' || c == '[') && depth+1 > maxDepth: // depth values enclose this one
		return d.fail("values nested more than %d deep %s", maxDepth, d.near(d.pos))
	case c == '"':
		_, ok := d.str()
		return ok
	case c == '{':
		return d.object(func([]byte) bool { return d.skip(depth + 1) })
	case c == '[':
		return d.array(func() bool { return d.skip(depth + 1) })
	case c == '-' || '0' <= c && c <= '9':
		_, ok := d.number()
		return ok
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	}
	return d.syntax("looking for a value")
}

// object reads an object, which must come next, calling member with each
// member's name, unescaped, and the value next, which member must read. The
// name holds only until the value is read: a nested object's names take
// its place.
func (d *reader) object(member func(name []byte) bool) bool {
	if !d.take('{') {
		return d.syntax("looking for an object")
	}
	if d.take('}') {
		return true
	}
	for {
		if c, ok := d.peek(); !ok || c != '"' {
			return d.syntax("looking for a member name")
		}
		name, ok := d.str()
		if !ok {
			return false
		}
		// Reading on may slide the window: the name is kept apart.
		d.name = append(d.name[:0], name...)
		if !d.take(':') {
			return d.syntax("after a member name")
		}
		if !member(d.name) {
			return false
		}
		if d.take(',') {
			continue
		}
		if d.take('}') {
			return true
		}
		return d.syntax("after an object member")
	}
}

// array reads an array, which must come next, calling elem for each
// element, which it must read.
func (d *reader) array(elem func() bool) bool {
	if !d.take('[') {
		return d.syntax("looking for an array")
	}
	if d.take(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.take(',') {
			continue
		}
		if d.take(']') {
			return true
		}
		return d.syntax("after an array element")
	}
}

// error returns what stopped the reading, or nil.
func (d *reader) error() error {
	if d.err != nil && errors.Is(d.err, io.ErrUnexpectedEOF) && d.off+int64(d.lim) == 0 {
		return errors.New("the file is empty")
	}
	return d.err
}

// report reads the report and returns its schemaVersion (0 if it has none).
func (d *reader) report() (version int) {
	if c, ok := d.peek(); !ok {
		d.syntax("looking for the report")
		return 0
	} else if c != '{' {
		d.fail("the document is not a JSON object")
		return 0
	}
	var seenVersion, seenOperations bool
	d.object(func(name []byte) bool {
		switch string(name) {
		case "schemaVersion":
			if seenVersion {
				return d.fail("member %q given twice", name)
			}
			seenVersion = true
			if d.null() {
				return true
			}
			c, more := d.value()
			if !more {
				return false
			}
			if c != '-' && (c < '0' || c > '9') {
				return d.fail("schemaVersion is not a number")
			}
			text, ok := d.number()
			if !ok {
				return false
			}
			v, err := strconv.Atoi(string(text))
			if err != nil {
				return d.fail("schemaVersion %s; want %d", ndjson.QuoteShort(text, 20), audit.SchemaVersion)
			}
			version = v
			return true
		case "operations":
			if seenOperations {
				return d.fail("member %q given twice", name)
			}
			seenOperations = true
			return d.operations()
		}
		return d.skip(1)
	})
	if d.err == nil && d.readErr == nil && version == audit.SchemaVersion && !seenOperations {
		// Not a report of ours, which always lists them: taken for one
		// with none, every failure would count as new.
		d.fail("no operations; --baseline takes the report of audit --format json or --write-baseline")
	}
	return version
}

// end reads on to the end of the input, where nothing but white space may
// follow the report. Reading to the end also has a compressed input check
// its checksum, which a decompressor does only there. version is the
// report's schemaVersion, 0 when it had none.
func (d *reader) end(version int) {
	if d.err != nil || d.readErr != nil {
		return
	}
	if _, more := d.peek(); more {
		if version == 0 {
			// An NDJSON report or a ledger: an object a line.
			d.fail("more than one JSON document, as in NDJSON; --baseline takes the report of audit --format json or --write-baseline")
			return
		}
		d.fail("something follows the report")
	}
}

// operations reads the operations list.
func (d *reader) operations() bool {
	if d.null() {
		return true
	}
	c, more := d.value()
	if !more {
		return false
	}
	if c != '[' {
		return d.fail("operations is not a list")
	}
	return d.array(func() bool {
		d.op++
		d.id = d.id[:0]
		var label, findings nameSet
		if d.null() {
			return d.fail("operation %d has no operationId", d.op)
		}
		c, more := d.value()
		if !more {
			return false
		}
		if c != '{' {
			return d.fail("operation %d is missing or not an object", d.op)
		}
		ok := d.object(func(name []byte) bool {
			switch string(name) {
			case "operationId":
				s, ok := d.member("operationId")
				if s != nil {
					d.id = append(d.id[:0], s...)
				}
				return ok
			case "label":
				s, ok := d.member("label")
				if s != nil {
					label = d.bit(s)
				}
				return ok
			case "findings":
				findings = 0
				return d.findings(&findings)
			}
			return d.skip(3)
		})
		if !ok {
			return false
		}
		if len(d.id) == 0 {
			return d.fail("operation %d has no operationId", d.op)
		}
		d.b.add(unsafe.String(unsafe.SliceData(d.id), len(d.id)), label|findings)
		return true
	})
}

// bit is Baseline.bit of a name read, which holds only until the next read.
func (d *reader) bit(name []byte) nameSet {
	return d.b.bit(unsafe.String(unsafe.SliceData(name), len(name)))
}

// member reads an operation's string member: nil for null, which leaves
// what it names as it was.
func (d *reader) member(what string) ([]byte, bool) {
	if d.null() {
		return nil, true
	}
	c, more := d.value()
	if !more {
		return nil, false
	}
	if c != '"' {
		return nil, d.fail("operation %d: %s is not a string", d.op, what)
	}
	s, ok := d.str()
	if !ok {
		return nil, false
	}
	if s == nil {
		s = []byte{} // "" unescaped into empty scratch space
	}
	return s, true
}

// findings adds the codes of an operation's findings to set.
func (d *reader) findings(set *nameSet) bool {
	if d.null() {
		return true
	}
	c, more := d.value()
	if !more {
		return false
	}
	if c != '[' {
		return d.fail("operation %d: findings is not a list", d.op)
	}
	return d.array(func() bool {
		if d.null() {
			return true
		}
		c, more := d.value()
		if !more {
			return false
		}
		if c != '{' {
			return d.fail("operation %d: a finding is missing or not an object", d.op)
		}
		var code nameSet
		ok := d.object(func(name []byte) bool {
			if string(name) != "code" {
				return d.skip(5)
			}
			s, ok := d.member("a finding's code")
			if s != nil {
				code = d.bit(s)
			}
			return ok
		})
		*set |= code
		return ok
	})
}

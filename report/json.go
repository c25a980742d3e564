package report

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/effectaudit/effectaudit/audit"
)

// The JSON printers encode by hand instead of calling encoding/json: a report
// may hold millions of operations, and the document must stream out one
// operation at a time, without reflection and without building the whole
// document in memory. The output is byte for byte what encoding/json gives
// for the same data (the report with its operations as a list) with
// SetEscapeHTML(false), and SetIndent("", "  ") for the document, with one
// deliberate difference: a nil slice or map is [] or {}, never null.
// TestJSONParity holds the encoder to that.
//
// To add a field to a report struct, add one e.key/e.<value> pair below, in
// the struct's field order (for audit.Operation, its name to operationKeys
// and an e.member/e.<value> pair), and set the field in the tests'
// fullyPopulated report: TestFullyPopulated fails until it is set,
// TestJSONParity until it is encoded. A field of audit.Report itself also
// goes into the tests' document type (TestDocumentShape).

// jsonPrinter writes the whole report as one indented JSON document.
type jsonPrinter struct{}

func (jsonPrinter) Print(w io.Writer, rep *audit.Report) error {
	e := newEncoder(w, true)
	e.openObject()
	e.key("schemaVersion")
	e.int(rep.SchemaVersion)
	e.key("summary")
	e.summary(&rep.Summary)
	e.key("operations")
	e.openArray()
	e.operations(rep, false)
	e.closeArray()
	e.key("invalid")
	e.openArray()
	for i := 0; i < len(rep.Invalid) && e.err == nil; i++ {
		e.invalid(&rep.Invalid[i])
		e.flush()
	}
	e.closeArray()
	e.closeObject()
	e.buf = append(e.buf, '\n')
	if err := e.finish(); err != nil {
		return fmt.Errorf("write json report: %w", err)
	}
	return nil
}

// ndjsonPrinter writes one compact operation object per line and nothing
// else: the summary and invalid lines are in the json format only.
type ndjsonPrinter struct{}

func (ndjsonPrinter) Print(w io.Writer, rep *audit.Report) error {
	e := newEncoder(w, false)
	e.operations(rep, true)
	if err := e.finish(); err != nil {
		return fmt.Errorf("write ndjson report: %w", err)
	}
	return nil
}

// operations encodes the operations, each on a line of its own when lines
// is set, and stops at the first error. Operations are encoded on the
// goroutines that render them, each by an encoder of its own that starts
// where e stands, as if a value came before; the very first operation's
// separator is dropped here.
func (e *encoder) operations(rep *audit.Report, lines bool) {
	e.flush()
	depth := len(e.open)
	first := true
	err := rep.EncodeOperations(func() audit.Encoder {
		sub := &encoder{indent: e.indent, open: make([]int, depth, depth+4)}
		return func(dst []byte, op *audit.Operation) []byte {
			if depth > 0 {
				sub.open[depth-1] = 1 // a comma leads, as before any element but the first
			}
			sub.buf = dst
			sub.operation(op)
			if lines {
				sub.buf = append(sub.buf, '\n')
			}
			return sub.buf
		}
	}, func(b []byte) error {
		if first && depth > 0 {
			b = b[1:] // the first element's comma
			e.open[depth-1]++
		}
		first = false
		if e.err == nil {
			_, e.err = e.w.Write(b)
		}
		return e.err
	})
	if e.err == nil {
		e.err = err
	}
}

func (e *encoder) summary(s *audit.Summary) {
	e.openObject()
	e.key("lines")
	e.int(s.Lines)
	e.key("blankLines")
	e.int(s.BlankLines)
	e.key("records")
	e.int(s.Records)
	e.key("invalidLines")
	e.int(s.InvalidLines)
	e.key("attempts")
	e.int(s.Attempts)
	e.key("effectObservations")
	e.int(s.EffectObservations)
	e.key("operations")
	e.int(s.Operations)
	e.key("labels")
	countMap(e, s.Labels)
	e.key("findings")
	countMap(e, s.Findings)
	if s.Resolved != nil { // only with --baseline, which makes it [] at least
		e.key("resolved")
		e.strings(s.Resolved)
	}
	e.closeObject()
}

// operationKeys are audit.Operation's members, in its field order; the
// constants index them.
var operationKeys = [...]string{"operationId", "label", "reason", "nextAction", "attempts",
	"results", "effectObservations", "distinctEffects", "effectRefs", "idempotencyKeys",
	"payloadHashes", "firstObservedAt", "lastObservedAt", "findings", "baseline"}

const (
	kOperationID = iota
	kLabel
	kReason
	kNextAction
	kAttempts
	kResults
	kEffectObservations
	kDistinctEffects
	kEffectRefs
	kIdempotencyKeys
	kPayloadHashes
	kFirstObservedAt
	kLastObservedAt
	kFindings
	kBaseline
)

// operation encodes every field of audit.Operation but First, which is not
// part of the document (json:"-").
func (e *encoder) operation(op *audit.Operation) {
	e.openObject()
	// An operation's members are written millions of times over, always
	// at one depth: each starts with one append of its lead.
	leads := e.leads(&e.opLeads, operationKeys[:])
	e.member(leads[kOperationID])
	e.string(op.OperationID)
	e.member(leads[kLabel])
	e.string(string(op.Label))
	e.member(leads[kReason])
	e.string(op.Reason)
	e.member(leads[kNextAction])
	e.string(op.NextAction)
	e.member(leads[kAttempts])
	e.int(op.Attempts)
	e.member(leads[kResults])
	e.openObject()
	for _, r := range op.Results {
		e.stringKey(r.Result)
		e.int(r.Attempts)
	}
	e.closeObject()
	e.member(leads[kEffectObservations])
	e.int(op.EffectObservations)
	e.member(leads[kDistinctEffects])
	e.int(op.DistinctEffects)
	e.member(leads[kEffectRefs])
	e.strings(op.EffectRefs)
	e.member(leads[kIdempotencyKeys])
	e.strings(op.IdempotencyKeys)
	e.member(leads[kPayloadHashes])
	e.strings(op.PayloadHashes)
	e.member(leads[kFirstObservedAt])
	e.stringPtr(op.FirstObservedAt)
	e.member(leads[kLastObservedAt])
	e.stringPtr(op.LastObservedAt)
	e.member(leads[kFindings])
	e.openArray()
	for i := range op.Findings {
		e.openObject()
		e.key("code")
		e.string(op.Findings[i].Code)
		e.key("message")
		e.string(op.Findings[i].Message)
		e.closeObject()
	}
	e.closeArray()
	if op.Baseline != "" { // omitempty: only with --baseline
		e.member(leads[kBaseline])
		e.string(op.Baseline)
	}
	e.closeObject()
}

// invalid encodes every field of audit.Invalid but Pos (json:"-").
func (e *encoder) invalid(inv *audit.Invalid) {
	e.openObject()
	e.key("input")
	e.string(inv.Input)
	e.key("line")
	e.int(inv.Line)
	e.key("error")
	e.string(inv.Error)
	e.closeObject()
}

// encoder appends JSON values to buf and hands buf to a bufio.Writer at each
// flush, so one buffer is reused for the whole report. It lays values out
// like encoding/json: compact, or indented with two spaces.
type encoder struct {
	w      *bufio.Writer
	err    error // the first write error; later writes are skipped
	buf    []byte
	indent bool

	// open has one entry per open array or object: how many values it holds
	// so far. The first value gets no comma, and an empty one closes as
	// [] or {} on the same line, as encoding/json prints them.
	open     []int
	afterKey bool     // the next value is a member's value: no separator
	keys     []string // scratch for sorting map keys
	opLeads  leads    // of operationKeys
}

// leads holds, for the members of objects at one depth, what key writes
// before each one's value when it is not the object's first: the comma,
// the line break and indentation, and the quoted name and colon.
type leads struct {
	depth int // len(encoder.open) inside the object; 0 when not built
	lead  []string
}

func newEncoder(w io.Writer, indent bool) *encoder {
	return &encoder{
		w:      bufio.NewWriterSize(w, bufferSize),
		buf:    make([]byte, 0, 4<<10),
		indent: indent,
		open:   make([]int, 0, 8),
	}
}

// flush moves the encoded bytes to the buffered writer. After a write error
// the printers stop encoding: a closed pipe must not cost the whole report.
func (e *encoder) flush() {
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// finish flushes everything and returns the first write error.
func (e *encoder) finish() error {
	e.flush()
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.err
}

// next writes what separates the coming value from the previous one.
func (e *encoder) next() {
	if e.afterKey {
		e.afterKey = false
		return
	}
	n := len(e.open)
	if n == 0 {
		return
	}
	if e.open[n-1] > 0 {
		e.buf = append(e.buf, ',')
	}
	e.open[n-1]++
	e.newline(n)
}

func (e *encoder) newline(depth int) { e.buf = e.appendNewline(e.buf, depth) }

// appendNewline appends a line break and the indentation of depth, when
// the encoder indents.
func (e *encoder) appendNewline(b []byte, depth int) []byte {
	if !e.indent {
		return b
	}
	if 2*depth < len(indentation) {
		return append(b, indentation[:1+2*depth]...)
	}
	b = append(b, '\n')
	for range depth {
		b = append(b, ' ', ' ')
	}
	return b
}

// indentation starts the lines of the first few levels, in one append.
const indentation = "\n                                "

func (e *encoder) openObject()  { e.openContainer('{') }
func (e *encoder) closeObject() { e.closeContainer('}') }
func (e *encoder) openArray()   { e.openContainer('[') }
func (e *encoder) closeArray()  { e.closeContainer(']') }

func (e *encoder) openContainer(c byte) {
	e.next()
	e.buf = append(e.buf, c)
	e.open = append(e.open, 0)
}

func (e *encoder) closeContainer(c byte) {
	n := len(e.open) - 1
	if e.open[n] > 0 {
		e.newline(n)
	}
	e.open = e.open[:n]
	e.buf = append(e.buf, c)
}

// key starts an object member named by a constant: field names are plain
// ASCII and need no escaping.
func (e *encoder) key(name string) {
	e.next()
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, '"', ':')
	e.endKey()
}

// leads returns l's leads for the members named in names, at the depth of
// the object just opened, building them when the depth is new.
func (e *encoder) leads(l *leads, names []string) []string {
	if depth := len(e.open); l.depth != depth {
		l.depth, l.lead = depth, make([]string, len(names))
		for i, name := range names {
			b := []byte{','}
			b = e.appendNewline(b, depth)
			b = append(append(append(b, '"'), name...), '"', ':')
			if e.indent {
				b = append(b, ' ')
			}
			l.lead[i] = string(b)
		}
	}
	return l.lead
}

// member starts an object member with its lead from leads: it writes what
// key writes for the member's name.
func (e *encoder) member(lead string) {
	n := len(e.open)
	if e.open[n-1] == 0 {
		lead = lead[1:] // the first member: no comma
	}
	e.open[n-1]++
	e.buf = append(e.buf, lead...)
	e.afterKey = true
}

// stringKey starts an object member named by data, which is escaped.
func (e *encoder) stringKey(name string) {
	e.next()
	e.buf = appendString(e.buf, name)
	e.buf = append(e.buf, ':')
	e.endKey()
}

func (e *encoder) endKey() {
	if e.indent {
		e.buf = append(e.buf, ' ')
	}
	e.afterKey = true
}

func (e *encoder) int(n int) {
	e.next()
	e.buf = strconv.AppendInt(e.buf, int64(n), 10)
}

func (e *encoder) string(s string) {
	e.next()
	e.buf = appendString(e.buf, s)
}

func (e *encoder) stringPtr(s *string) {
	if s == nil {
		e.next()
		e.buf = append(e.buf, "null"...)
		return
	}
	e.string(*s)
}

func (e *encoder) strings(list []string) {
	e.openArray()
	for _, s := range list {
		e.string(s)
	}
	e.closeArray()
}

// countMap encodes a map of counts with its keys sorted, as encoding/json
// sorts string keys.
func countMap[K ~string](e *encoder, m map[K]int) {
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, string(k))
	}
	slices.Sort(e.keys)
	e.openObject()
	for _, k := range e.keys {
		e.stringKey(k)
		e.int(m[K(k)])
	}
	e.closeObject()
}

// appendString appends s as a JSON string exactly as encoding/json does
// without HTML escaping: ", \ and control characters escaped (\b \f \n \r \t
// in short form, the others as \u00XX), U+2028 and U+2029 escaped, each byte
// of invalid UTF-8 replaced by \ufffd, everything else verbatim.
func appendString(dst []byte, s string) []byte {
	// Plain ASCII is copied eight bytes at a time as it is checked, into
	// room made once: one pass, and no call to copy each string, which
	// for the short strings of a report costs as much as the copying.
	dst = slices.Grow(dst, len(s)+2)
	n := len(dst)
	room := dst[:cap(dst)]
	room[n] = '"'
	n++
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		if !plain8(w) {
			break
		}
		binary.LittleEndian.PutUint64(room[n:], w)
		n += 8
	}
	if i+8 > len(s) && len(s) >= 8 {
		// The last few bytes: the last eight, which overlap what is
		// copied already, written over it.
		back := i + 8 - len(s)
		if w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[len(s)-8:]), 8)); plain8(w) {
			binary.LittleEndian.PutUint64(room[n-back:], w)
			n += 8 - back
			i = len(s)
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			break
		}
		room[n] = s[i]
		n++
	}
	if i == len(s) {
		room[n] = '"'
		return room[:n+1]
	}
	return appendEscaped(room[:n], s, i)
}

// appendEscaped is appendString from s[i] on, s[:i] and the opening quote
// appended already.
func appendEscaped(dst []byte, s string, i int) []byte {
	start := i
	for i < len(s) {
		// Most of a report is plain ASCII: skip it eight bytes at a time.
		if i+8 <= len(s) && plain8(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', lowerHex[c>>4], lowerHex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', lowerHex[r&0xf])
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plain8 reports whether the eight bytes of w are all printable ASCII that
// JSON writes as they are: none below 0x20 or from 0x80, no '"' and no '\\'.
func plain8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) bool { return (v-ones)&^v&highs != 0 }
	return w&highs == 0 && // ASCII
		(w-0x20*ones)&highs == 0 && // nothing below 0x20 (no byte borrows, as all are ASCII)
		!hasZero(w^'"'*ones) && !hasZero(w^'\\'*ones)
}

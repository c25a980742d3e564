// Package ndjson reads effect ledgers: newline-delimited JSON with one
// object per line. The command reads them through package ingest, which
// cuts lines in parallel with the same rules; Reader is the streaming
// reference that ingest is tested against. It validates every line strictly (RFC 8259, UTF-8, no
// duplicate member names at any depth, bounded nesting) with its own
// iterative scanner and hands out each record's top-level members as raw
// slices, so that reading gigabytes allocates nothing per record. What the
// members mean is for the caller to decide.
//
// The Reader never stops quietly: every line is either skipped as blank,
// returned as a record or reported as a *ParseError with its position, and
// reading goes on after an invalid line. Only a failure of the underlying
// reader ends the stream early, and that error is returned wrapped with the
// line it stopped in.
//
// What the package must never do: hold more than one line (at most
// MaxLineBytes) in memory, however long the input or a line in it; recurse
// per nesting level, as untrusted input can nest a million levels deep; or
// turn a fault into silence, a truncated record or a panic.
package ndjson

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
)

// DefaultMaxLineBytes is the longest line a Reader accepts unless told
// otherwise.
const DefaultMaxLineBytes = 16 << 20

// bufferSize is the Reader's read buffer. Lines shorter than it are parsed
// where they lie in the buffer; longer ones are assembled in a second buffer.
const bufferSize = 128 << 10

// The errors a line can have. A *ParseError wraps one of them, often with
// more detail; test with errors.Is.
var (
	ErrSyntax        = errors.New("invalid JSON")
	ErrNotObject     = errors.New("not a JSON object")
	ErrDuplicateName = errors.New("duplicate member name")
	ErrInvalidUTF8   = errors.New("invalid UTF-8")
	ErrLoneSurrogate = errors.New("lone surrogate escape")
	ErrTooDeep       = errors.New("nesting too deep")
	ErrLineTooLong   = errors.New("line too long")
)

// A ParseError is an invalid line: where it is and what is wrong with it.
type ParseError struct {
	Line   int   // 1-based line
	Column int   // 1-based byte column where the problem was found (0 if not applicable)
	Offset int64 // byte offset of the start of the line
	Err    error // one of the sentinels above (possibly wrapped with more detail)
}

func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	case e.Column > 0:
		return fmt.Sprintf("column %d: %v", e.Column, e.Err)
	}
	return e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// Record is one non-blank line holding a valid JSON object.
//
// The Reader reuses the Record and every slice in it: they are valid only
// until the next call to Read. Copy what must outlive it.
type Record struct {
	Line    int    // 1-based line number in the input
	Offset  int64  // byte offset of the start of the line in the input (BOM counted)
	Raw     []byte // the line without BOM, CR and LF
	Members []Member
}

// A Reader reads records from an NDJSON input.
//
// Only LF ends a line, and a CR right before it is removed; a lone CR and
// U+2028 and U+2029 are ordinary characters. A UTF-8 byte order mark at the
// very start of the input is skipped: offsets count it (so the first line then
// starts at offset 3) but lines and columns do not, and a BOM anywhere else is
// an invalid character. A last line without LF is a line like the others; an
// input that ends with LF has no empty line after it. A line that is empty or
// holds only spaces, tabs and CRs is blank: it is counted, never returned.
// Every other line is parsed as by Parser.Parse, and Record.Offset plus
// ParseError.Column minus one is the input offset of the reported byte.
//
// Lines of up to MaxLineBytes are read whole, whatever their length. A longer
// line is not buffered: it is read through to its LF and reported as
// ErrLineTooLong.
//
// A Reader must be made with NewReader. It is not safe for concurrent use.
type Reader struct {
	// MaxLineBytes is the longest line accepted, not counting its line
	// ending (LF or CR LF) nor a leading byte order mark; 0 or less means
	// DefaultMaxLineBytes. Set it before the first Read.
	MaxLineBytes int

	br      *bufio.Reader
	p       Parser
	rec     Record
	long    []byte // a line longer than br's buffer, assembled
	rawLine []byte
	offset  int64 // of the next line
	lines   int
	blanks  int
	started bool
	err     error // final: io.EOF or a read error
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, bufferSize)}
}

// Read returns the next record. Blank lines are skipped and counted.
//
// An invalid line yields (nil, *ParseError), and the next call goes on with
// the next line. At the end of the input Read returns (nil, io.EOF). An error
// from the underlying reader is returned wrapped with the number of the line
// being read; it is final, and so is io.EOF: later calls return it again. A
// line cut short by a read error is neither returned nor counted.
//
// The returned Record is overwritten by the next call.
func (r *Reader) Read() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.rawLine = nil
	if !r.started {
		r.started = true
		if err := r.skipBOM(); err != nil {
			return nil, r.fail(err)
		}
	}
	max := r.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	for {
		line, size, length, err := r.next(max)
		if err == io.EOF {
			r.err = io.EOF
			return nil, io.EOF
		}
		if err != nil {
			return nil, r.fail(err)
		}
		r.lines++
		offset := r.offset
		r.offset += size
		if length > int64(max) {
			r.rawLine = line[:max]
			return nil, LineTooLong(r.lines, offset, length, max)
		}
		raw := line[:length:length]
		if blank(raw) {
			r.blanks++
			continue
		}
		r.rawLine = line
		members, err := r.p.Parse(raw)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				pe = &ParseError{Err: err}
			}
			pe.Line = r.lines
			pe.Offset = offset
			return nil, pe
		}
		r.rec = Record{Line: r.lines, Offset: offset, Raw: raw, Members: members}
		return &r.rec, nil
	}
}

// LineTooLong is the error for line, at offset, of length bytes past the
// limit of max: a reader of lines that is not Reader gives it too.
func LineTooLong(line int, offset, length int64, max int) *ParseError {
	return &ParseError{Line: line, Offset: offset, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrLineTooLong, length, max)}
}

func (r *Reader) fail(err error) error {
	r.err = fmt.Errorf("reading line %d: %w", r.lines+1, err)
	return r.err
}

// Lines returns the number of lines consumed so far: blank lines, records and
// invalid lines.
func (r *Reader) Lines() int { return r.lines }

// BlankLines returns the number of blank lines skipped so far.
func (r *Reader) BlankLines() int { return r.blanks }

// RawLine returns the line behind the last record or *ParseError that Read
// returned, exactly as in the input except for its LF: a CR before the LF is
// kept, a byte order mark at the start of the input is not (it belongs to the
// input, not to the line). Writing it followed by LF reproduces a rejected
// line, with one exception: of a line longer than MaxLineBytes only the first
// MaxLineBytes bytes are kept. RawLine returns nil after Read returned another
// error. The slice is valid until the next call to Read.
func (r *Reader) RawLine() []byte { return r.rawLine }

// skipBOM skips a UTF-8 byte order mark at the start of the input.
func (r *Reader) skipBOM() error {
	b, err := r.br.Peek(3)
	if len(b) == 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		_, err := r.br.Discard(3)
		r.offset = 3
		return err
	}
	// Peek hands over a read error only once: keep it now or lose it.
	if err != nil && err != io.EOF {
		return err
	}
	return nil
}

// next reads the next line, whose content is limited to max bytes. It
// returns the line as in the input without its LF, the number of input
// bytes it takes (LF included), and its length without the line ending (LF
// or CR LF). A line longer than max+1 bytes comes back cut to its first
// max+1 bytes, with its full length. At the end of the input next returns
// io.EOF, and any other error means the input failed.
func (r *Reader) next(max int) (line []byte, size, length int64, err error) {
	s, err := r.br.ReadSlice('\n')
	switch err {
	case nil:
		line = s[:len(s)-1]
		return line, int64(len(s)), lineLength(int64(len(line)), lastByte(line)), nil
	case io.EOF:
		if len(s) == 0 {
			return nil, 0, 0, io.EOF
		}
		return s, int64(len(s)), int64(len(s)), nil
	case bufio.ErrBufferFull:
	default:
		return nil, 0, 0, err
	}

	// The line spans several buffers: keep what may be needed, count the
	// rest. A CR may end up not counting, so keep one byte more than max.
	keep := max
	if keep < math.MaxInt {
		keep++
	}
	r.long = r.long[:0]
	var last byte
	for {
		chunk := s
		if err == nil {
			chunk = s[:len(s)-1]
		}
		if room := keep - len(r.long); room > 0 {
			r.long = append(r.long, chunk[:min(room, len(chunk))]...)
		}
		size += int64(len(s))
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1]
		}
		switch err {
		case nil:
			return r.long, size, lineLength(size-1, last), nil
		case io.EOF:
			return r.long, size, size, nil
		case bufio.ErrBufferFull:
		default:
			return nil, 0, 0, err
		}
		s, err = r.br.ReadSlice('\n')
	}
}

// lineLength is the length of a line of n bytes before its LF, whose last
// byte is last, without a CR that ends it.
func lineLength(n int64, last byte) int64 {
	if n > 0 && last == '\r' {
		return n - 1
	}
	return n
}

func lastByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1]
}

// blank reports whether line holds nothing but spaces, tabs and CRs.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

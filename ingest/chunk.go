package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// chunk is a block of whole input lines, decoded by one worker.
type chunk struct {
	seq       int
	data      []byte // whole lines; the last may lack its LF at end of input
	firstLine int    // number of the first line in data
	offset    int64  // input offset of data[0]

	// A line longer than the limit is not buffered: the chunker skips it
	// and sends a chunk holding only its number, length and first bytes.
	long       bool
	longLength int64
	spool      *spoolFile // with rejects: the whole long line, for verbatim rejects

	buf []byte // the pooled buffer data lives in
}

// chunker cuts an input into chunks of whole lines, keeping line numbers
// and offsets exact. It mirrors ndjson.Reader's view of lines: a BOM at the
// start is skipped, only LF ends a line, and a line longer than max (not
// counting its CR LF) is never held whole.
type chunker struct {
	r       io.Reader
	max     int
	size    int // usual chunk buffer size
	pool    chan []byte
	stop    <-chan struct{}
	spool   bool // keep over-long lines whole, in temporary files
	carry   []byte
	line    int   // number of the next line
	offset  int64 // of the next line
	seq     int
	started bool
	eof     bool
}

// next returns the next chunk, or io.EOF.
func (c *chunker) next() (*chunk, error) {
	if !c.started {
		c.started = true
		if err := c.skipBOM(); err != nil {
			return nil, err
		}
	}
	if c.eof && len(c.carry) == 0 {
		return nil, io.EOF
	}
	var buf []byte
	select {
	case buf = <-c.pool:
	case <-c.stop:
		return nil, errStopped
	}
	buf = append(buf[:0], c.carry...)
	for {
		if c.eof {
			if len(buf) == 0 {
				c.pool <- buf
				return nil, io.EOF
			}
			return c.emit(buf, len(buf))
		}
		if len(buf) == cap(buf) {
			if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
				return c.emit(buf, i+1)
			}
			// One line fills the buffer: grow it while the line may still
			// fit the limit (plus CR and LF), else skip the line.
			if len(buf) >= c.max+2 {
				return c.skipLong(buf)
			}
			bigger := make([]byte, len(buf), min(2*cap(buf), c.max+2))
			copy(bigger, buf)
			// The old buffer is dropped: the bigger one takes its place in
			// the pool when it is released.
			buf = bigger
		}
		n, err := c.r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			c.eof = true
		} else if err != nil {
			return nil, c.fail(err, buf)
		}
	}
}

// emit cuts buf at n and keeps the rest for the next chunk.
func (c *chunker) emit(buf []byte, n int) (*chunk, error) {
	c.carry = append(c.carry[:0], buf[n:]...)
	ch := &chunk{seq: c.seq, data: buf[:n], firstLine: c.line, offset: c.offset, buf: buf}
	c.seq++
	lines := bytes.Count(ch.data, []byte{'\n'})
	if n > 0 && buf[n-1] != '\n' {
		lines++ // the last line of the input, without LF
	}
	c.line += lines
	c.offset += int64(n)
	return ch, nil
}

// skipLong reports a line that exceeds the limit, reading through to its LF
// without keeping more than its first max+1 bytes in memory. With rejects,
// the whole line goes to a temporary file instead, so that rejects can hold
// it verbatim.
func (c *chunker) skipLong(buf []byte) (*chunk, error) {
	var spool *spoolFile
	keep := func(b []byte) error {
		if spool == nil {
			return nil
		}
		if _, err := spool.Write(b); err != nil {
			return fmt.Errorf("keeping an over-long line for rejects: %w", err)
		}
		return nil
	}
	if c.spool {
		f, err := os.CreateTemp("", "effectaudit-line-*")
		if err != nil {
			return nil, fmt.Errorf("keeping an over-long line for rejects: %w", err)
		}
		// Unlinked at once where the system allows it (the open file stays
		// readable), so that a run cut short by a signal leaves nothing
		// behind; elsewhere it is removed once copied to the rejects.
		spool = &spoolFile{File: f, named: os.Remove(f.Name()) != nil}
	}
	fail := func(err error) (*chunk, error) {
		if spool != nil {
			spool.release()
		}
		return nil, err
	}
	if err := keep(buf); err != nil {
		return fail(err)
	}
	length := int64(len(buf))
	last := buf[len(buf)-1]
	rest := []byte(nil)
	scratch := make([]byte, 64<<10)
	for !c.eof {
		n, err := c.r.Read(scratch)
		if i := bytes.IndexByte(scratch[:n], '\n'); i >= 0 {
			if err := keep(scratch[:i]); err != nil {
				return fail(err)
			}
			length += int64(i)
			if i > 0 {
				last = scratch[i-1]
			}
			rest = scratch[i:n] // from the LF on
			break
		}
		if err := keep(scratch[:n]); err != nil {
			return fail(err)
		}
		length += int64(n)
		if n > 0 {
			last = scratch[n-1]
		}
		if err == io.EOF {
			c.eof = true
		} else if err != nil {
			return fail(c.fail(err, nil))
		}
	}
	size := length
	content := length
	if rest != nil {
		size++ // the LF
		if last == '\r' {
			content--
		}
		rest = rest[1:]
	}
	ch := &chunk{seq: c.seq, data: buf[:c.max], firstLine: c.line, offset: c.offset,
		long: true, longLength: content, buf: buf, spool: spool}
	c.seq++
	c.line++
	c.offset += size
	c.carry = append(c.carry[:0], rest...)
	return ch, nil
}

func (c *chunker) skipBOM() error {
	var bom [3]byte
	n, err := io.ReadFull(c.r, bom[:])
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		c.eof = true
	case err != nil:
		return c.fail(err, nil)
	}
	if n == 3 && bom == [3]byte{0xEF, 0xBB, 0xBF} {
		c.offset = 3
		return nil
	}
	c.carry = append(c.carry[:0], bom[:n]...)
	return nil
}

// fail wraps a read error with the line it stopped in: the chunk's first
// line, after the lines read whole so far (pending).
func (c *chunker) fail(err error, pending []byte) error {
	return fmt.Errorf("reading line %d: %w", c.line+bytes.Count(pending, []byte{'\n'}), err)
}

var errStopped = errors.New("stopped")

// spoolFile holds an over-long line whole, for the rejects.
type spoolFile struct {
	*os.File
	named bool // it could not be unlinked when made: remove it after use
}

// release closes the file, and removes it if it still has its name.
func (s *spoolFile) release() {
	s.Close()
	if s.named {
		os.Remove(s.Name())
	}
}

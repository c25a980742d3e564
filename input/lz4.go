package input

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pierrec/lz4/v4"
)

// An lz4 frame (0x184D2204, little-endian), as the lz4 command writes it,
// and a legacy frame (0x184C2102), as lz4 -l writes it.
var (
	lz4Magic       = []byte{0x04, 0x22, 0x4d, 0x18}
	lz4LegacyMagic = []byte{0x02, 0x21, 0x4c, 0x18}
)

// isLZ4 reports whether magic starts an lz4 frame or a legacy lz4 frame:
// the lz4 reader refuses the latter by name.
func isLZ4(magic []byte) bool {
	return bytes.HasPrefix(magic, lz4Magic) || bytes.HasPrefix(magic, lz4LegacyMagic)
}

// afterSkippable returns the first bytes of the frame that follows the
// skippable frames br starts with, or nil when that frame starts beyond
// br's buffer (64 KiB) or the input ends first: br is not read, only
// peeked.
func afterSkippable(br *bufio.Reader) []byte {
	at := 0
	for {
		b, _ := br.Peek(min(at+8, br.Size()))
		if len(b) < at+4 {
			return nil
		}
		if !isSkippable(b[at:]) {
			return b[at : at+4]
		}
		if len(b) < at+8 {
			return nil
		}
		next := int64(at) + 8 + int64(binary.LittleEndian.Uint32(b[at+4:]))
		if next+4 > int64(br.Size()) {
			return nil
		}
		at = int(next)
	}
}

// newLZ4Reader returns a reader of the lz4 frames br starts with, and of
// any skippable frames before, between and after them. It reads the first
// frame's header at its first Read. Its memory is bounded by the format
// (limit.go); it decodes in the calling goroutine, with no goroutines of
// its own to leave running. Any bytes after the last frame that do not
// start another are an error (as lz4 -d exits 1 for them), and so is a
// frame cut short or a content or block checksum that does not match.
// Two differ from lz4 -d (1.9.4): a skippable frame cut short is an error,
// as it is for lz4 -d reading a pipe (reading a file, it seeks past the
// end and exits 0); and a frame stating a content size of 0 that holds
// data is refused by the library, where lz4 -d takes 0 for unknown (no
// lz4 writes one).
//
// Legacy frames (lz4 -l) are refused by name: pierrec/lz4 reads them with
// each block depending on the one before, where lz4 -d takes none as
// depending, and a run of their magic numbers costs it a level of stack
// each, so a 5 KB xz of one repeated made a fatal stack overflow.
func newLZ4Reader(br *bufio.Reader) io.Reader { return &lz4Reader{br: br} }

// errLZ4Legacy is a legacy lz4 frame, which effectaudit does not read.
var errLZ4Legacy = errors.New("the input is in lz4's legacy format (lz4 -l), which effectaudit does not read; decompress it first (lz4 -dc) and give the plain ledger")

// lz4Reader reads lz4 frames, each with a reader of its own: the library's
// reader keeps a frame's last 64 KiB for the next (its Reset does not clear
// them), so a frame's matches could reach into the frame before, where
// lz4 -d refuses them. Skippable frames are skipped here.
type lz4Reader struct {
	br    *bufio.Reader
	frame lz4Frame
	zr    *lz4.Reader // the current frame's; nil between frames
	err   error       // once set, every Read returns it
}

func (l *lz4Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, l.err
	}
	for l.err == nil {
		if l.zr == nil {
			l.err = l.nextFrame()
			continue
		}
		n, err := l.zr.Read(p)
		if err == io.EOF { // the frame has ended, and lz4Frame with it
			l.zr, err = nil, nil
		}
		l.err = err
		if n > 0 {
			return n, nil // and the error, if any, at the next call
		}
	}
	return 0, l.err
}

// nextFrame skips skippable frames and starts a reader of the lz4 frame
// after them, or returns io.EOF at the end of the input.
func (l *lz4Reader) nextFrame() error {
	for {
		m, err := l.br.Peek(8)
		switch {
		case len(m) == 0 && err == io.EOF:
			return io.EOF
		case len(m) < 4:
			return noEOF(err)
		case isSkippable(m):
			if len(m) < 8 {
				return noEOF(err)
			}
			// In 64 bits: an int of 32 would take a size of 2 GiB or
			// more as negative, and read on inside the frame.
			size := int64(binary.LittleEndian.Uint32(m[4:]))
			l.br.Discard(8)
			if n, err := io.CopyN(io.Discard, l.br, size); n < size {
				return noEOF(err)
			}
		case bytes.HasPrefix(m, lz4Magic):
			l.frame = lz4Frame{r: l.br}
			l.zr = lz4.NewReader(&l.frame)
			if err := l.zr.Apply(lz4.ConcurrencyOption(1)); err != nil {
				return fmt.Errorf("starting the lz4 decoder: %w", err)
			}
			return nil
		case bytes.HasPrefix(m, lz4LegacyMagic):
			return errLZ4Legacy
		default:
			return errors.New("lz4: data after the last frame")
		}
	}
}

// lz4Frame passes one lz4 frame from r, and then io.EOF: it reads each
// block's size on the way to find where the frame ends. It reads only the
// sizes: whatever else a header holds, the library checks.
type lz4Frame struct {
	r     *bufio.Reader
	flags byte
	left  int64 // bytes of the current piece still to pass
	state lz4FrameState
	err   error // what cut the frame short, once lz4Cut
}

type lz4FrameState uint8

const (
	lz4Header lz4FrameState = iota
	lz4Blocks
	lz4Last // passing the end mark and the content checksum
	lz4Cut  // passing the last bytes of a frame cut short
	lz4Done
)

// lz4Frame flags: what a frame has besides its blocks.
const (
	lz4BlockChecksum   = 0x10
	lz4ContentSize     = 0x08
	lz4ContentChecksum = 0x04
	lz4DictID          = 0x01
)

func (f *lz4Frame) Read(p []byte) (int, error) {
	if f.left == 0 {
		switch f.state {
		case lz4Header:
			h, err := f.r.Peek(5) // the magic number and the flags
			if len(h) < 5 {
				f.cut(len(h), err)
				break
			}
			f.flags = h[4]
			f.left = 4 + 3 // the magic number, flags, block size and header checksum
			if f.flags&lz4ContentSize != 0 {
				f.left += 8
			}
			if f.flags&lz4DictID != 0 {
				f.left += 4
			}
			f.state = lz4Blocks
		case lz4Blocks:
			b, err := f.r.Peek(4)
			if len(b) < 4 {
				f.cut(len(b), err)
				break
			}
			size := binary.LittleEndian.Uint32(b)
			if size == 0 { // the end mark
				f.left, f.state = 4, lz4Last
				if f.flags&lz4ContentChecksum != 0 {
					f.left += 4
				}
				break
			}
			f.left = 4 + int64(size&0x7fffffff) // the high bit marks a stored block
			if f.flags&lz4BlockChecksum != 0 {
				f.left += 4
			}
		case lz4Last:
			f.state = lz4Done
			return 0, io.EOF
		case lz4Cut:
			return 0, f.err
		case lz4Done:
			return 0, io.EOF
		}
		if f.left == 0 {
			return 0, f.err // cut where a piece starts
		}
	}
	n, err := f.r.Read(p[:int(min(int64(len(p)), f.left))])
	f.left -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// cut passes the n bytes a frame cut short still has, and then err, what
// cut it short: bufio.Reader.Peek returns a read error once only.
func (f *lz4Frame) cut(n int, err error) {
	f.left, f.state, f.err = int64(n), lz4Cut, noEOF(err)
}

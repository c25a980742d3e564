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

// isLZ4 reports whether magic starts an lz4 frame or a legacy lz4 frame.
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

// newLZ4Reader returns a reader of the lz4 frames (or legacy frames) br
// starts with. It reads the first frame's header at its first Read. Its
// memory is bounded by the format (limit.go); it decodes in the calling
// goroutine, with no goroutines of its own to leave running. Any bytes
// after the last frame that do not start another are an error (as lz4 -d
// exits 1 for them), and so is a frame cut short or a content or block
// checksum that does not match; a legacy frame has no end mark, no
// checksum and no size, so one cut short at a block's end reads as if
// whole.
func newLZ4Reader(br *bufio.Reader) (io.Reader, error) {
	zr := lz4.NewReader(br)
	if err := zr.Apply(lz4.ConcurrencyOption(1)); err != nil {
		return nil, fmt.Errorf("starting the lz4 decoder: %w", err)
	}
	return lz4Reader{zr}, nil
}

// lz4Reader says what the library's "bad magic number" means here: the
// first frame's magic number was sniffed, so it is what follows a frame.
type lz4Reader struct{ zr *lz4.Reader }

func (l lz4Reader) Read(p []byte) (int, error) {
	n, err := l.zr.Read(p)
	if errors.Is(err, lz4.ErrInvalidFrame) {
		err = fmt.Errorf("lz4: data after the last frame: %w", err)
	}
	return n, err
}

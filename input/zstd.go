package input

import (
	"bufio"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"
)

// zstdReader decodes zstd with the window limited to maxWindow bytes.
// The decoder enforces the limit itself (WithDecoderMaxWindow), but its
// error says neither that a limit was met nor how large the window was,
// and the same error also means a damaged block; so the frames are walked
// on their way to the decoder (each block states its size), and a frame
// over the limit ends the stream with a LimitError before the decoder
// reads the frame's header.
type zstdReader struct {
	dec *zstd.Decoder
	lim *zstdLimiter
}

// newZstdReader returns a reader of the zstd frames br starts with, no
// window larger than maxWindow bytes. inner says whether br is itself
// decompressed (see LimitError).
func newZstdReader(br *bufio.Reader, maxWindow uint64, inner bool) (*zstdReader, error) {
	lim := &zstdLimiter{r: br, max: maxWindow, inner: inner}
	dec, err := zstd.NewReader(lim,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(maxWindow),
		// The default, and what keeps a small window's memory small.
		zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, lim.cause(err)
	}
	return &zstdReader{dec: dec, lim: lim}, nil
}

func (z *zstdReader) Read(p []byte) (int, error) {
	n, err := z.dec.Read(p)
	if err != nil {
		err = z.lim.cause(err)
	}
	return n, err
}

func (z *zstdReader) Close() error {
	z.dec.Close()
	return nil
}

// zstdLimiter passes a zstd stream through unchanged, reading each frame
// header on the way and refusing a frame whose window is over max. Should
// the stream not parse as frames, it passes the rest unread: the decoder
// refuses it, and still applies its own limit.
type zstdLimiter struct {
	r     *bufio.Reader
	max   uint64
	inner bool  // see LimitError
	left  int64 // bytes to pass before the next header
	state zstdState
	check bool  // the current frame ends with a checksum
	err   error // a LimitError, once met
}

type zstdState int

const (
	zstdFrame    zstdState = iota // a frame or a skippable frame starts
	zstdBlock                     // a block header
	zstdChecksum                  // the frame's checksum
	zstdLost                      // not a zstd stream: pass the rest
)

// zstdMaxHeader is the longest frame header: magic, descriptor, window,
// dictionary ID and content size.
const zstdMaxHeader = 4 + 1 + 1 + 4 + 8

func (l *zstdLimiter) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	for l.left == 0 && l.state != zstdLost {
		if err := l.next(); err != nil {
			return 0, err
		}
	}
	if l.state != zstdLost && int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// next reads the header that starts the next part of the stream, setting
// how many bytes it and what it announces take.
func (l *zstdLimiter) next() error {
	switch l.state {
	case zstdFrame:
		b, err := l.r.Peek(zstdMaxHeader)
		if len(b) == 0 {
			return err // io.EOF between frames: the end
		}
		var h zstd.Header
		if h.Decode(b) != nil {
			l.state = zstdLost
			return nil
		}
		if h.Skippable {
			l.left = int64(h.HeaderSize) + int64(h.SkippableSize)
			return nil
		}
		window := h.WindowSize
		if h.SingleSegment {
			window = h.FrameContentSize
		}
		if window > l.max {
			l.err = &LimitError{Format: "zstd", Size: window, Limit: l.max, Inner: l.inner}
			return l.err
		}
		l.left, l.state, l.check = int64(h.HeaderSize), zstdBlock, h.HasCheckSum
	case zstdBlock:
		b, _ := l.r.Peek(3)
		if len(b) < 3 {
			l.state = zstdLost
			return nil
		}
		bh := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		size := int64(bh >> 3)
		switch bh >> 1 & 3 {
		case 1: // RLE: one byte, repeated size times
			size = 1
		case 3: // reserved
			l.state = zstdLost
			return nil
		}
		l.left = 3 + size
		if bh&1 != 0 { // the frame's last block
			l.state = zstdFrame
			if l.check {
				l.state = zstdChecksum
			}
		}
	case zstdChecksum:
		l.left, l.state = 4, zstdFrame
	}
	return nil
}

// cause returns err, the decoder's, or the LimitError that caused it.
func (l *zstdLimiter) cause(err error) error {
	if l.err != nil && !errors.Is(err, io.EOF) {
		return l.err
	}
	return err
}

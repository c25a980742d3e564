package input

import (
	"errors"
	"fmt"
	"io"
)

// CutShortError is a compressed stream that ends before its end: the
// file was cut short, or lost its last bytes.
type CutShortError struct {
	Format string // "gzip", "zstd", "xz", "bzip2", "lz4" or "lzma"
	// Inner is set for a layer inside the file's own compression. The
	// layer that meets the cut sets it, as for LimitError: an error read
	// through several layers cannot tell which of them it came from.
	Inner bool
	Err   error // the decompressor's, io.ErrUnexpectedEOF or wrapping it
}

func (e *CutShortError) Error() string {
	msg := fmt.Sprintf("the %s stream is cut short (is the file complete?): %v", e.Format, e.Err)
	if e.Inner {
		return "inside the compressed stream: " + msg
	}
	return msg
}

func (e *CutShortError) Unwrap() error { return e.Err }

// cutShortError returns err as a CutShortError of the layer described when
// it says the layer's input ended early, and as it is otherwise. An error
// that is a CutShortError already came from a layer below, whose cut it
// names.
func cutShortError(format string, inner bool, err error) error {
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, new(*CutShortError)) {
		return err
	}
	return &CutShortError{Format: format, Inner: inner, Err: err}
}

// cutShort names the format of a decompressor whose input ends inside its
// stream, where the decompressor says only "unexpected EOF".
type cutShort struct {
	format string
	inner  bool
	r      io.Reader
}

func (c cutShort) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	return n, cutShortError(c.format, c.inner, err)
}

package input

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/klauspost/compress/gzip"
)

// errAfterGzip is data after the last gzip member that is neither another
// member nor zero padding; errAfterPadding, data after zero padding.
var (
	errAfterGzip    = errors.New("data after the end of the gzip stream (neither another gzip member nor zero padding)")
	errAfterPadding = errors.New("data after the zero padding that ends the gzip stream")
)

// gzipReader reads the members of a gzip file one after another, as gzip
// -d does, and after the last accepts zero bytes only: the padding that
// tape tools and some writers leave, which gzip -d ignores. gzip.Reader's
// own multistream mode reads any byte after a member as the start of
// another, so padding was refused as "invalid header", and other trailing
// data too, a message that sent users looking at the file's start.
type gzipReader struct {
	br   *bufio.Reader // a ByteReader: a member's reader stops at its end
	zr   *gzip.Reader
	done bool
}

func newGzipReader(br *bufio.Reader) (*gzipReader, error) {
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &gzipReader{br: br, zr: zr}, nil
}

func (g *gzipReader) Read(p []byte) (int, error) {
	for !g.done {
		n, err := g.zr.Read(p)
		switch {
		case err != io.EOF:
			return n, err
		case n > 0:
			return n, nil // the member's end is dealt with at the next read
		}
		// A member has ended: what follows is another, padding, or
		// nothing.
		next, err := g.br.Peek(len(gzipMagic))
		switch {
		case err != nil && err != io.EOF:
			// First: bufio returns a read error once only, so the
			// cases below, reading on, could take the input for whole.
			return 0, err
		case len(next) == 0:
			g.done = true
		case bytes.Equal(next, gzipMagic):
			if err := g.zr.Reset(g.br); err != nil {
				return 0, err
			}
			g.zr.Multistream(false)
		case len(next) > 0 && next[0] == 0:
			if err := skipZeros(g.br); err != nil {
				return 0, err
			}
			g.done = true
		default:
			return 0, errAfterGzip
		}
	}
	return 0, io.EOF
}

func (g *gzipReader) Close() error { return g.zr.Close() }

// skipZeros reads r to its end, which must hold zero bytes only.
func skipZeros(r *bufio.Reader) error {
	for {
		b, err := r.Peek(r.Size())
		for _, c := range b {
			if c != 0 {
				return errAfterPadding
			}
		}
		if _, derr := r.Discard(len(b)); derr != nil {
			return derr
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil && err != bufio.ErrBufferFull:
			return err
		}
	}
}

// Package input opens the audit's inputs: files or standard input, plain or
// compressed, recognised by magic bytes rather than by file name.
package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Stdin is the input name that means standard input.
const Stdin = "-"

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// isZstd reports whether magic starts a zstd stream: a frame, or a
// skippable frame (RFC 8878: 0x184D2A50 to 0x184D2A5F, little-endian),
// which pzstd writes before every frame it compresses.
func isZstd(magic []byte) bool {
	return bytes.HasPrefix(magic, zstdMagic) ||
		len(magic) == 4 && magic[0]&0xf0 == 0x50 && magic[1] == 0x2a && magic[2] == 0x4d && magic[3] == 0x18
}

// Source is one opened input: its decompressed bytes and how much of the
// underlying file has been read, for progress reports.
type Source struct {
	Name   string // as given: a path, or "-" for standard input
	Size   int64  // size of the underlying file in bytes, or -1 when unknown
	r      io.Reader
	raw    *countingReader
	closer []func() error
}

// Read reads decompressed bytes.
func (s *Source) Read(p []byte) (int, error) { return s.r.Read(p) }

// Consumed returns how many bytes of the underlying (compressed) input were read.
func (s *Source) Consumed() int64 { return s.raw.n.Load() }

// Close releases the decompressor and the file.
func (s *Source) Close() error {
	var errs []error
	for i := len(s.closer) - 1; i >= 0; i-- {
		errs = append(errs, s.closer[i]())
	}
	return errors.Join(errs...)
}

// Open opens name ("-" reads stdin) and wraps it in a decompressor when its
// first bytes are a gzip or zstd magic number.
func Open(name string, stdin io.Reader) (*Source, error) {
	if name == Stdin {
		return FromReader(name, stdin, -1)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	src, err := FromReader(name, f, size)
	if err != nil {
		f.Close()
		return nil, err
	}
	src.closer = append([]func() error{f.Close}, src.closer...)
	return src, nil
}

// FromReader wraps an already open reader, sniffing for compression.
func FromReader(name string, r io.Reader, size int64) (*Source, error) {
	raw := &countingReader{r: r}
	// Enough to sniff and to feed a decompressor: reads of a plain input
	// at least this large (the audit's chunks) go straight past it, where a
	// larger buffer would copy every byte once more.
	br := bufio.NewReaderSize(raw, 64<<10)
	src := &Source{Name: name, Size: size, r: br, raw: raw}
	magic, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("reading the gzip header: %w", err)
		}
		src.r = zr
		src.closer = append(src.closer, zr.Close)
	case isZstd(magic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("starting the zstd decoder: %w", err)
		}
		src.r = zr
		src.closer = append(src.closer, func() error { zr.Close(); return nil })
	}
	return src, nil
}

type countingReader struct {
	r io.Reader
	n atomic.Int64 // read by a progress reporter while the audit runs
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

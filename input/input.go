// Package input opens the audit's inputs: files or standard input, plain or
// compressed, recognised by magic bytes rather than by file name. It must
// never let an input choose how much memory its decoders take: the xz and
// lzma dictionary and the zstd window a header asks for are held to limits.
package input

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/ulikunitz/xz/lzma"
)

// Stdin is the input name that means standard input.
const Stdin = "-"

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
)

// sniffLen is how many bytes are sniffed: an .lzma header, the longest
// that is checked.
const sniffLen = lzma.HeaderLen

// isBzip2 reports whether magic starts a bzip2 stream: "BZh" and a block
// size from 1 to 9. No ledger line starts so: a line starts with "{".
func isBzip2(magic []byte) bool {
	return len(magic) >= 4 && string(magic[:3]) == "BZh" && '1' <= magic[3] && magic[3] <= '9'
}

// maxLayers is how many compressions inside one another an input may have
// (a gzip of a gzip, say), a bound only against inputs made to never end.
const maxLayers = 4

// isZstd reports whether magic starts a zstd stream: a frame, or a
// skippable frame (RFC 8878: 0x184D2A50 to 0x184D2A5F, little-endian),
// which pzstd writes before every frame it compresses. The lz4 frame
// format has the same skippable frames (decompressor tells the two apart
// by the frame that follows); the lz4 magic numbers are not among them.
func isZstd(magic []byte) bool {
	return bytes.HasPrefix(magic, zstdMagic) || isSkippable(magic)
}

// isSkippable reports whether magic starts a skippable frame, of zstd or
// of lz4.
func isSkippable(magic []byte) bool {
	return len(magic) >= 4 && magic[0]&0xf0 == 0x50 && magic[1] == 0x2a && magic[2] == 0x4d && magic[3] == 0x18
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
// first bytes are a gzip, zstd, xz, bzip2 or lz4 magic number or an .lzma
// header (see isLZMA).
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
	for depth := 0; ; depth++ {
		var zr io.Reader
		// Whether an error comes from inside the file's own compression.
		inner := depth > 0
		magic, err := br.Peek(sniffLen)
		if err == nil || err == io.EOF { // a short input: magic holds what there is
			var format string
			format, zr, err = src.decompressor(br, magic, inner)
			// Its input cut short, a decompressor says only
			// "unexpected EOF": the layer names itself.
			err = cutShortError(format, inner, err)
			if zr != nil {
				zr = cutShort{format, inner, zr}
			}
		} else {
			// Reading what the layer above decompresses failed (a
			// damaged block, an xz dictionary over the limit, an lz4
			// header read at the first read): an error of that layer.
			inner = depth > 1
		}
		switch {
		case err != nil && inner && !errors.As(err, new(*LimitError)) && !errors.As(err, new(*CutShortError)):
			// A LimitError or CutShortError says itself whether it is
			// inner: its layer knows, where an error read through
			// several may be any's.
			err = fmt.Errorf("inside the compressed stream: %w", err)
		case zr != nil && depth == maxLayers:
			err = fmt.Errorf("compressed more than %d times over", maxLayers)
		}
		if err != nil {
			src.Close() // the decompressors made so far
			return nil, err
		}
		if zr == nil {
			return src, nil
		}
		// What comes out may be compressed again (a gzip of a zstd
		// file): it is sniffed in turn.
		br = bufio.NewReaderSize(zr, 64<<10)
		src.r = br
	}
}

// decompressor returns the name of the format and a reader of what br
// holds decompressed, keeping its Close, or no reader when magic, br's
// first bytes, is no magic number it knows. An xz or lzma dictionary or a
// zstd window over its limit (limit.go) is a LimitError when the
// decompressor reads the header that asks for it, before it allocates
// anything.
func (s *Source) decompressor(br *bufio.Reader, magic []byte, inner bool) (format string, r io.Reader, err error) {
	switch {
	case isLZ4(magic), isSkippable(magic) && isLZ4(afterSkippable(br)):
		// Skippable frames belong to both zstd and lz4: those
		// followed, within what br holds, by an lz4 frame start an lz4
		// file; any others are left to zstd, as before lz4 was read.
		// The lz4 reader skips them itself.
		return "lz4", newLZ4Reader(br), nil
	case bytes.HasPrefix(magic, gzipMagic):
		gr, err := newGzipReader(br)
		if err != nil {
			return "gzip", nil, fmt.Errorf("reading the gzip header: %w", err)
		}
		s.closer = append(s.closer, gr.Close)
		return "gzip", gr, nil
	case isZstd(magic):
		dr, err := newZstdReader(br, zstdMaxWindow, inner)
		if err != nil {
			return "zstd", nil, fmt.Errorf("starting the zstd decoder: %w", err)
		}
		s.closer = append(s.closer, dr.Close)
		return "zstd", dr, nil
	case bytes.HasPrefix(magic, xzMagic):
		xr, err := newXZReader(br, xzMaxDict, inner)
		if err != nil {
			return "xz", nil, fmt.Errorf("reading the xz header: %w", err)
		}
		return "xz", xr, nil
	case isBzip2(magic):
		return "bzip2", bzip2.NewReader(br), nil
	case isLZMA(magic):
		lr, err := newLZMAReader(br, xzMaxDict, inner)
		if errors.As(err, new(*LimitError)) {
			return "lzma", nil, err // as an xz or zstd one reads, from the header
		}
		if err != nil {
			// The header, then the first bytes of the stream.
			return "lzma", nil, fmt.Errorf("starting the lzma decoder: %w", err)
		}
		return "lzma", lr, nil
	case bytes.HasPrefix(magic, []byte{0xff, 0xfe}), bytes.HasPrefix(magic, []byte{0xfe, 0xff}):
		// As PowerShell's > writes text: a ledger must be UTF-8.
		return "", nil, errors.New("the input is UTF-16 (it starts with a UTF-16 byte order mark); convert it to UTF-8, e.g. with iconv -f UTF-16 -t UTF-8")
	case len(magic) >= 4 && (magic[0] == '{' && magic[1] == 0 && magic[3] == 0 || magic[0] == 0 && magic[1] == '{' && magic[2] == 0):
		// A JSON object in UTF-16 without a byte order mark: "{" and a
		// NUL, which no UTF-8 text holds.
		return "", nil, errors.New("the input looks like UTF-16 (\"{\" and a NUL byte); convert it to UTF-8, e.g. with iconv -f UTF-16LE (or UTF-16BE) -t UTF-8")
	case bytes.HasPrefix(magic, []byte("PK\x03\x04")):
		return "", nil, errors.New("the input is a zip archive; unzip it and give the files inside")
	}
	return "", nil, nil
}

// countingReader counts what it reads, and ends at the first end of file
// its reader reports. A terminal reports one for each ^D typed and then
// reads on, and the layers above (bufio among them) may read again after
// an end of file: without this, a user typing a ledger had to type ^D
// twice, or more.
type countingReader struct {
	r   io.Reader
	n   atomic.Int64 // read by a progress reporter while the audit runs
	eof bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.eof {
		return 0, io.EOF
	}
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	c.eof = err == io.EOF
	return n, err
}

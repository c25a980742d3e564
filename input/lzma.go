package input

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/bits"

	"github.com/ulikunitz/xz/lzma"
)

// isLZMA reports whether magic starts a legacy .lzma file (the
// LZMA_Alone format, as lzma and xz --format=lzma write it). The format
// has no magic number: its 13-byte header is taken for one only when it
// holds what those tools write, which no text can hold.
//
//   - The properties byte is 0x5D (lc=3, lp=0, pb=2), which every preset
//     of xz and lzma, and the LZMA SDK by default, write. Files made with
//     other lc, lp or pb options are not recognised: the byte alone
//     matches text (0x5D is "]"), and an OTLP protobuf starts with 0x0A,
//     itself a valid properties byte.
//   - The dictionary size is 2^n or 2^n+2^(n-1) from 4 KiB, or 2^32-1:
//     the sizes liblzma takes (xz -dc), less those under 4 KiB, which xz
//     never writes. Each such size holds two NUL bytes or
//     more, or is four 0xFF bytes: no text holds a NUL, and no UTF-8 a
//     0xFF. (A ledger line, starting with "{", fails the first test
//     anyway.)
//   - The uncompressed size is unknown (all 0xFF, as xz writes it) or
//     at most 2^38 (256 GiB), liblzma's bound when it sniffs: xz -dc
//     (xz 5.4.1) says "File format not recognized" for 2^38+1.
func isLZMA(magic []byte) bool {
	if len(magic) < lzma.HeaderLen || magic[0] != 0x5d {
		return false
	}
	dict := binary.LittleEndian.Uint32(magic[1:5])
	size := binary.LittleEndian.Uint64(magic[5:13])
	return validLZMADict(dict) && (size == math.MaxUint64 || size <= 1<<38)
}

// validLZMADict reports whether dict is a dictionary size isLZMA takes:
// 2^n or 2^n+2^(n-1) from 4 KiB, or 2^32-1. xz -dc takes no other (xz
// 5.4.1 says "File format not recognized" for 5 MiB, even with
// --format=lzma).
func validLZMADict(dict uint32) bool {
	if dict == math.MaxUint32 {
		return true
	}
	if dict < lzma.MinDictCap {
		return false
	}
	m := dict >> bits.TrailingZeros32(dict)
	return m == 1 || m == 3
}

// lzmaReader decodes a legacy .lzma file (LZMA_Alone: a 13-byte header and
// one LZMA stream) with ulikunitz/xz/lzma, refusing what xz -dc refuses
// around it: any byte after the stream's end (xz says "Compressed data is
// corrupt" for a second .lzma stream, for zero padding and for garbage
// alike). The stream's end is its end marker when the header gives no
// uncompressed size; when it gives one, the stream must decompress to that
// size exactly (the library checks, and takes an end marker there too, as
// xz does).
type lzmaReader struct {
	r   *bufio.Reader
	lr  io.Reader // an *lzma.Reader
	err error     // once set, every Read returns it
}

// newLZMAReader reads the .lzma header r starts with and returns a reader
// of what the file decompresses to, its dictionary no larger than maxDict
// bytes. The dictionary size is checked from the header here, before the
// library allocates the dictionary: a LimitError says what it was. (The
// library's ReaderConfig.DictCap is a limit for .lzma files, unlike
// Reader2Config's, and is set too, but its error is the library's own.)
// inner says whether r is itself decompressed (see LimitError).
func newLZMAReader(r *bufio.Reader, maxDict int64, inner bool) (*lzmaReader, error) {
	h, err := r.Peek(lzma.HeaderLen)
	if err != nil {
		return nil, noEOF(err)
	}
	if dict := int64(binary.LittleEndian.Uint32(h[1:5])); dict > maxDict {
		return nil, &LimitError{Format: "lzma", Size: uint64(dict), Limit: uint64(maxDict), Inner: inner}
	}
	if binary.LittleEndian.Uint64(h[5:13]) == 0 {
		// Nothing, as an encoder that states the size (the LZMA
		// SDK's) compresses it: a size of 0 and the range coder's
		// five zero bytes, no end marker. xz reads it as empty; the
		// library decodes a symbol before it looks at the size, and
		// fails.
		const n = lzma.HeaderLen + 5
		if b, _ := r.Peek(n); len(b) == n && allZero(b[lzma.HeaderLen:]) {
			r.Discard(n)
			return &lzmaReader{r: r, lr: bytes.NewReader(nil)}, nil
		}
	}
	lr, err := (lzma.ReaderConfig{DictCap: int(maxDict)}).NewReader(r)
	if err != nil {
		return nil, noEOF(err) // the stream's first bytes are read too
	}
	return &lzmaReader{r: r, lr: lr}, nil
}

// Read reads decompressed bytes.
func (l *lzmaReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.lr.Read(p)
	if err == io.EOF {
		// The stream has ended: so must the file.
		switch _, perr := l.r.Peek(1); perr {
		case nil:
			err = errors.New("lzma: data after the end of the stream")
		case io.EOF:
		default:
			err = perr
		}
	}
	l.err = err
	return n, err
}

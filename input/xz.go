package input

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"math"

	"github.com/ulikunitz/xz/lzma"
)

// xzReader decodes an xz file (one stream or several, with stream padding
// between them) as ulikunitz/xz's Reader does, except that it checks each
// block's dictionary size against a limit before the LZMA2 decoder
// allocates the dictionary. The library takes no limit: its
// ReaderConfig.DictCap is a floor (its LZMA2 filter keeps the larger of it
// and the header's size). Nor can a reader in front of the library check
// the block headers for it, for want of knowing where the library will look
// for one: its LZMA2 decoder may end a chunk short of the chunk's stated
// size and read what follows as the next chunk, block or stream. So the
// container is read here, and only each block's LZMA2 chunks go to the
// library, with a dictionary of a size already checked.
//
// Memory does not grow with the file: the index is checked against a
// count and a checksum of the blocks read, not a list of them.
type xzReader struct {
	r       *bufio.Reader
	maxDict int64
	inner   bool      // a layer inside the file's own compression: see LimitError
	flags   [2]byte   // the current stream's, repeated in its footer
	check   hash.Hash // of the current block's decompressed bytes; nil for none
	sumLen  int       // bytes of check after each block
	blocks  uint64    // blocks of the current stream read so far
	records hash.Hash64
	blk     *xzBlock // nil between blocks
	err     error    // once set, every Read returns it
}

// xzBlock is the block being decompressed.
type xzBlock struct {
	lzma2        io.Reader
	in           xzCounter // the block's LZMA2 chunks, read by lzma2
	headerLen    uint64
	out          uint64 // bytes decompressed so far
	compressed   int64  // as the block header states it, or -1
	uncompressed int64  // as the block header states it, or -1
}

type xzCounter struct {
	r io.Reader
	n uint64
}

func (c *xzCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += uint64(n)
	return n, err
}

const xzHeaderLen = 12 // of a stream header, and of a stream footer

var crc64Table = crc64.MakeTable(crc64.ECMA)

// newXZReader reads the first stream header from r, which starts with
// xzMagic, and returns a reader of what the file decompresses to, each
// block's dictionary no larger than maxDict bytes. inner says whether r is
// itself decompressed (see LimitError).
func newXZReader(r *bufio.Reader, maxDict int64, inner bool) (*xzReader, error) {
	x := &xzReader{r: r, maxDict: maxDict, inner: inner, records: crc64.New(crc64Table)}
	var h [xzHeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, noEOF(err)
	}
	if err := x.startStream(h[:]); err != nil {
		return nil, err
	}
	return x, nil
}

// Read reads decompressed bytes.
func (x *xzReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, x.err
	}
	for x.err == nil {
		if x.blk == nil {
			x.err = x.nextBlock()
			continue
		}
		n, err := x.readBlock(p)
		x.err = err
		if n > 0 {
			return n, nil // and the error, if any, at the next call
		}
	}
	return 0, x.err
}

func (x *xzReader) readBlock(p []byte) (int, error) {
	b := x.blk
	n, err := b.lzma2.Read(p)
	b.out += uint64(n)
	if x.check != nil {
		x.check.Write(p[:n])
	}
	switch {
	case b.uncompressed >= 0 && b.out > uint64(b.uncompressed):
		return n, errors.New("xz: wrong uncompressed size for block")
	case b.compressed >= 0 && b.in.n > uint64(b.compressed):
		return n, errors.New("xz: wrong compressed size for block")
	case err == io.EOF:
		return n, x.endBlock()
	}
	return n, err
}

// startStream checks a stream header and starts the stream.
func (x *xzReader) startStream(h []byte) error {
	if !bytes.Equal(h[:len(xzMagic)], xzMagic) {
		return errors.New("xz: invalid header magic bytes")
	}
	if crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:12]) {
		return errors.New("xz: checksum error for stream header")
	}
	x.flags = [2]byte{h[6], h[7]}
	if h[6] != 0 {
		return errors.New("xz: invalid stream flags")
	}
	// The checks ulikunitz/xz supports: the others are rare.
	switch h[7] {
	case 0x00:
		x.check, x.sumLen = nil, 0
	case 0x01:
		x.check, x.sumLen = crc32.NewIEEE(), 4
	case 0x04:
		x.check, x.sumLen = crc64.New(crc64Table), 8
	case 0x0a:
		x.check, x.sumLen = sha256.New(), 32
	default:
		return fmt.Errorf("xz: unsupported check type %#x", h[7])
	}
	x.blocks = 0
	x.records.Reset()
	return nil
}

// nextBlock reads a block header and starts the block's decompression, or
// reads the index and the footer when the stream has no more blocks.
func (x *xzReader) nextBlock() error {
	size, err := x.r.ReadByte()
	if err != nil {
		return noEOF(err)
	}
	if size == 0 { // the index indicator
		return x.endStream()
	}
	h := make([]byte, (int(size)+1)*4)
	h[0] = size
	if _, err := io.ReadFull(x.r, h[1:]); err != nil {
		return noEOF(err)
	}
	b, dict, err := parseXZBlockHeader(h)
	if err != nil {
		return err
	}
	if dict > x.maxDict {
		return &LimitError{Format: "xz", Size: uint64(dict), Limit: uint64(x.maxDict), Inner: x.inner}
	}
	b.in.r = x.r
	if b.lzma2, err = (lzma.Reader2Config{DictCap: int(blockDict(dict, b.uncompressed))}).NewReader2(&b.in); err != nil {
		return err
	}
	x.blk = b
	return nil
}

// blockDict is the dictionary a block's decoder needs: its header's size,
// or less when the header states a smaller uncompressed size, since each
// block starts with an empty dictionary and no match reaches back past the
// block's own bytes. The library allocates the whole dictionary for each
// block: a 64 MiB one, zeroed, for each block of a few lines. xz states
// the sizes in every block it writes with more than one thread. A block
// that outgrows its stated size fails either way: readBlock counts its
// bytes.
func blockDict(dict, uncompressed int64) int64 {
	if uncompressed >= 0 && uncompressed < dict {
		return max(uncompressed, lzma.MinDictCap)
	}
	return dict
}

// parseXZBlockHeader checks a block header, h, and returns its block and
// its dictionary size. Like ulikunitz/xz, it takes one filter, LZMA2.
func parseXZBlockHeader(h []byte) (*xzBlock, int64, error) {
	n := len(h) - 4
	if crc32.ChecksumIEEE(h[:n]) != binary.LittleEndian.Uint32(h[n:]) {
		return nil, 0, errors.New("xz: checksum error for block header")
	}
	flags := h[1]
	if flags&0x3c != 0 {
		return nil, 0, errors.New("xz: reserved block header flags set")
	}
	if flags&0x03 != 0 {
		return nil, 0, errors.New("xz: unsupported filter count (only LZMA2 alone is supported)")
	}
	r := bytes.NewReader(h[2:n])
	b := &xzBlock{headerLen: uint64(len(h)), compressed: -1, uncompressed: -1}
	for _, f := range []struct {
		bit  byte
		size *int64
	}{{0x40, &b.compressed}, {0x80, &b.uncompressed}} {
		if flags&f.bit == 0 {
			continue
		}
		v, err := readXZVarint(r)
		if err == errXZVarint {
			return nil, 0, err
		}
		if err != nil || v > math.MaxInt64 {
			return nil, 0, errors.New("xz: invalid size in block header")
		}
		*f.size = int64(v)
	}
	id, err := readXZVarint(r)
	if err == errXZVarint {
		return nil, 0, err
	}
	if err != nil {
		return nil, 0, errors.New("xz: invalid filter in block header")
	}
	if id != 0x21 {
		return nil, 0, fmt.Errorf("xz: unsupported filter %#x (only LZMA2 is supported)", id)
	}
	var props [2]byte // their size, and the dictionary size's code
	if _, err := io.ReadFull(r, props[:]); err != nil || props[0] != 1 {
		return nil, 0, errors.New("xz: wrong LZMA2 filter size")
	}
	dict, err := lzma.DecodeDictCap(props[1])
	if err != nil {
		return nil, 0, errors.New("xz: wrong LZMA2 dictionary size property")
	}
	for r.Len() > 0 {
		if c, _ := r.ReadByte(); c != 0 {
			return nil, 0, errors.New("xz: non-zero block header padding")
		}
	}
	return b, dict, nil
}

// endBlock reads the block's padding and check, once its LZMA2 chunks
// have ended.
func (x *xzReader) endBlock() error {
	b := x.blk
	if b.uncompressed >= 0 && b.out != uint64(b.uncompressed) || b.compressed >= 0 && b.in.n != uint64(b.compressed) {
		return errors.New("xz: block shorter than its header states")
	}
	pad := int(-b.in.n & 3) // to a multiple of 4, with the header's
	var tail [3 + sha256.Size]byte
	if _, err := io.ReadFull(x.r, tail[:pad+x.sumLen]); err != nil {
		return noEOF(err)
	}
	if !allZero(tail[:pad]) {
		return errors.New("xz: non-zero block padding")
	}
	if x.check != nil {
		if !bytes.Equal(tail[pad:pad+x.sumLen], x.sum()) {
			return errors.New("xz: checksum error for block")
		}
		x.check.Reset()
	}
	x.blocks++
	x.record(b.headerLen+b.in.n+uint64(x.sumLen), b.out)
	x.blk = nil
	return nil
}

// record adds a block's sizes, as the index lists them, to x.records.
func (x *xzReader) record(unpadded, uncompressed uint64) {
	var p [16]byte
	binary.LittleEndian.PutUint64(p[:8], unpadded)
	binary.LittleEndian.PutUint64(p[8:], uncompressed)
	x.records.Write(p[:])
}

// sum returns the current block's check as the file stores it: CRCs
// little-endian, where Go's hashes append them big-endian.
func (x *xzReader) sum() []byte {
	switch h := x.check.(type) {
	case hash.Hash32:
		return binary.LittleEndian.AppendUint32(nil, h.Sum32())
	case hash.Hash64:
		return binary.LittleEndian.AppendUint64(nil, h.Sum64())
	}
	return x.check.Sum(nil)
}

// endStream reads the index, whose indicator has been read, and the
// stream footer, checking them against the blocks read; then the stream
// padding and the next stream's header, if any.
func (x *xzReader) endStream() error {
	want := x.records.Sum64()
	ir := &xzIndexReader{r: x.r, crc: crc32.Update(0, crc32.IEEETable, []byte{0}), n: 1}
	count, err := readXZVarint(ir)
	if err != nil {
		return fmt.Errorf("xz: reading the index: %w", noEOF(err))
	}
	if count != x.blocks {
		return fmt.Errorf("xz: the index lists %d blocks where the stream has %d", count, x.blocks)
	}
	x.records.Reset()
	for range count {
		unpadded, err := readXZVarint(ir)
		if err != nil {
			return fmt.Errorf("xz: reading the index: %w", noEOF(err))
		}
		uncompressed, err := readXZVarint(ir)
		if err != nil {
			return fmt.Errorf("xz: reading the index: %w", noEOF(err))
		}
		x.record(unpadded, uncompressed)
	}
	if x.records.Sum64() != want {
		return errors.New("xz: the index does not match the blocks")
	}
	for ir.n%4 != 0 {
		c, err := ir.ReadByte()
		if err != nil {
			return noEOF(err)
		}
		if c != 0 {
			return errors.New("xz: non-zero index padding")
		}
	}
	var tail [4 + xzHeaderLen]byte // the index's CRC-32, and the footer
	if _, err := io.ReadFull(x.r, tail[:]); err != nil {
		return noEOF(err)
	}
	if binary.LittleEndian.Uint32(tail[:4]) != ir.crc {
		return errors.New("xz: checksum error for index")
	}
	f := tail[4:]
	switch {
	case crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[:4]):
		return errors.New("xz: checksum error for stream footer")
	case (uint64(binary.LittleEndian.Uint32(f[4:8]))+1)*4 != ir.n+4:
		return errors.New("xz: index size in footer wrong")
	case f[8] != x.flags[0] || f[9] != x.flags[1]:
		return errors.New("xz: footer flags incorrect")
	case f[10] != 'Y' || f[11] != 'Z':
		return errors.New("xz: invalid footer magic bytes")
	}
	return x.nextStream()
}

// nextStream skips stream padding (zero bytes, four at a time) and starts
// the next stream, or returns io.EOF at the end of the file.
func (x *xzReader) nextStream() error {
	var h [xzHeaderLen]byte
	for {
		if _, err := io.ReadFull(x.r, h[:4]); err != nil {
			return err // io.EOF at the end of the file, between streams
		}
		if !allZero(h[:4]) {
			break
		}
	}
	if _, err := io.ReadFull(x.r, h[4:]); err != nil {
		return noEOF(err)
	}
	return x.startStream(h[:])
}

// xzIndexReader reads the index a byte at a time, keeping its CRC-32 and
// length.
type xzIndexReader struct {
	r   io.ByteReader
	crc uint32
	n   uint64
}

func (r *xzIndexReader) ReadByte() (byte, error) {
	c, err := r.r.ReadByte()
	if err == nil {
		r.crc = crc32.Update(r.crc, crc32.IEEETable, []byte{c})
		r.n++
	}
	return c, err
}

func allZero(p []byte) bool {
	for _, c := range p {
		if c != 0 {
			return false
		}
	}
	return true
}

// noEOF turns an end of file inside a structure into the error it is.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// errXZVarint is an xz integer of more than nine bytes, or one with a
// needless last byte of zero: the format allows neither, and liblzma
// refuses both.
var errXZVarint = errors.New("xz: invalid variable-length integer")

// readXZVarint reads an xz variable-length integer (the format's
// "multibyte" encoding: 7 bits a byte, low bits first).
func readXZVarint(r io.ByteReader) (uint64, error) {
	var v uint64
	for i := range 9 {
		c, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		if c == 0 && i > 0 {
			return 0, errXZVarint
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errXZVarint
}

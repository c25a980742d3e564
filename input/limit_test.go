package input

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
)

// xzWith compresses data with ulikunitz/xz's writer and config c.
func xzWith(t testing.TB, c xz.WriterConfig, data []byte) []byte {
	t.Helper()
	return compress(t, data, func(w io.Writer) (io.WriteCloser, error) { return c.NewWriter(w) })
}

// xzBlockOffsets returns where each block of the one stream in file
// starts, from the sizes its index lists.
func xzBlockOffsets(t testing.TB, file []byte) []int {
	t.Helper()
	footer := file[len(file)-xzHeaderLen:]
	indexLen := (int(binary.LittleEndian.Uint32(footer[4:8])) + 1) * 4
	r := bytes.NewReader(file[len(file)-xzHeaderLen-indexLen+1:]) // past the indicator
	count, err := binary.ReadUvarint(r)
	if err != nil {
		t.Fatal(err)
	}
	var offsets []int
	at := xzHeaderLen
	for range count {
		unpadded, err := binary.ReadUvarint(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := binary.ReadUvarint(r); err != nil {
			t.Fatal(err)
		}
		offsets = append(offsets, at)
		at += (int(unpadded) + 3) &^ 3
	}
	return offsets
}

// withDictCode returns file with the LZMA2 dictionary-size code of the
// block header at offset set to code, and the header's CRC-32 mended, as
// /tmp/patho/gen_xz.py does: a header that asks for code's dictionary over
// data compressed with a small one.
func withDictCode(t testing.TB, file []byte, offset int, code byte) []byte {
	t.Helper()
	file = bytes.Clone(file)
	h := file[offset : offset+(int(file[offset])+1)*4]
	i := bytes.Index(h, []byte{0x21, 0x01})
	if i < 0 {
		t.Fatalf("no LZMA2 filter in block header %x", h)
	}
	h[i+2] = code
	binary.LittleEndian.PutUint32(h[len(h)-4:], crc32.ChecksumIEEE(h[:len(h)-4]))
	return file
}

// xzDict is data in xz, its one block's header asking for a dictionary
// of code's size.
func xzDict(t testing.TB, data []byte, code byte) []byte {
	return withDictCode(t, xzOf(t, data), xzHeaderLen, code)
}

// xzHiddenBlock is an xz file whose one LZMA2 chunk states a packed size
// larger than its data, hiding after the data an end of the LZMA2 chunks
// and a block header asking for a 4 GiB dictionary. ulikunitz/xz's LZMA2
// decoder ends a chunk when its data is decoded, not at its stated size,
// and reads what follows as the next chunk: so the block header is
// there for a decoder, though not for a reader that walks the chunks by
// their sizes to find block headers.
func xzHiddenBlock(t testing.TB, data []byte) []byte {
	t.Helper()
	file := xzWith(t, xz.WriterConfig{DictCap: lzma.MinDictCap, NoCheckSum: true}, data)
	header := file[xzHeaderLen : xzHeaderLen+(int(file[xzHeaderLen])+1)*4]
	chunk := xzHeaderLen + len(header)
	if file[chunk] < 0xc0 {
		t.Fatalf("the first chunk's control byte is %#x, want one with properties", file[chunk])
	}
	packed := int(binary.BigEndian.Uint16(file[chunk+3:])) + 1
	end := chunk + 6 + packed
	if file[end] != 0 {
		t.Fatalf("more than one chunk: %#x follows the first", file[end])
	}
	hidden := []byte{0} // the end of the chunks
	for (end-chunk+len(hidden))%4 != 0 {
		hidden = append(hidden, 0) // block padding; no check
	}
	hidden = append(hidden, withDictCode(t, header, 0, 40)...)
	binary.BigEndian.PutUint16(file[chunk+3:], uint16(packed+len(hidden)-1))
	return slices.Concat(file[:end], hidden, file[end:])
}

// zstdWindow is data in one zstd frame whose header asks for a window of
// size bytes, a power of two from 1 MiB. The encoder makes it with a
// window of 1 MiB, which data, larger than a block (128 KiB), keeps it from
// fitting to less; the header's window descriptor is then set to size
// (a frame header has no checksum): a frame that asks for more than it
// uses, as a window that large would cost the encoder too.
func zstdWindow(t testing.TB, data []byte, size int) []byte {
	t.Helper()
	frame := compress(t, data, func(w io.Writer) (io.WriteCloser, error) {
		return zstd.NewWriter(w, zstd.WithWindowSize(1<<20), zstd.WithEncoderConcurrency(1))
	})
	var h zstd.Header
	if err := h.Decode(frame); err != nil || h.SingleSegment || h.WindowSize != 1<<20 {
		t.Fatalf("the frame's window is %d (single segment %v, %v), want 1 MiB", h.WindowSize, h.SingleSegment, err)
	}
	frame[5] = byte(bits.Len(uint(size))-1-10) << 3 // the exponent; no mantissa
	if err := h.Decode(frame); err != nil || h.WindowSize != uint64(size) {
		t.Fatalf("the frame's window is %d (%v), want %d", h.WindowSize, err, size)
	}
	return frame
}

// zstdSingleSegment is a zstd frame whose header states a content size of
// size bytes as a single segment, which makes it the window, and whose one
// raw block holds data.
func zstdSingleSegment(data []byte, size uint64) []byte {
	b := append([]byte(nil), zstdMagic...)
	b = append(b, 0xe0) // 8-byte content size, single segment, no checksum
	b = binary.LittleEndian.AppendUint64(b, size)
	bh := uint32(len(data))<<3 | 1 // raw, last
	b = append(b, byte(bh), byte(bh>>8), byte(bh>>16))
	return append(b, data...)
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

// readAll opens in as FromReader does and reads it to its end, returning
// what it read and the error, from opening or reading, as text.
func readAll(in []byte) (string, string) {
	src, err := FromReader("in", bytes.NewReader(in), int64(len(in)))
	if err != nil {
		return "", err.Error()
	}
	defer src.Close()
	got, err := io.ReadAll(src)
	if err != nil {
		return string(got), err.Error()
	}
	return string(got), ""
}

const (
	xzHint   = "; decompress it first (xz -dc) and give the plain ledger, or recompress it with xz -9 or lower"
	zstdHint = "; decompress it first (zstd -dc --long=31) and give the plain ledger, or recompress it with --long=27 or lower"
)

// TestDecoderMemoryLimits checks that an xz dictionary or a zstd window
// over effectaudit's limit is refused, wherever it is (the first block or
// frame, a later one, a later stream, a compressed layer inside another),
// before the decoder allocates it, and that one at the limit is read.
func TestDecoderMemoryLimits(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 1000))
	// xz's dictionary-size codes: 28 is 64 MiB, 29 96 MiB, 40 4 GiB
	// less one byte.
	const xzAtLimit, xzOverLimit, xzLargest = 28, 29, 40
	xzOver := xzDict(t, plain, xzOverLimit)
	xz4G := xzDict(t, plain, xzLargest)
	blocks := xzWith(t, xz.WriterConfig{BlockSize: 4096}, plain)
	offsets := xzBlockOffsets(t, blocks)
	if len(offsets) < 3 {
		t.Fatalf("%d blocks; want 3 or more", len(offsets))
	}
	long := []byte(strings.Repeat(ledger, 5000)) // over a zstd block
	zstdOver := zstdWindow(t, long, 256<<20)

	tests := []struct {
		name    string
		in      []byte
		want    []byte // read when wantErr is ""
		wantErr string
	}{
		{"xz at the limit", xzDict(t, plain, xzAtLimit), plain, ""},
		{"xz over the limit", xzOver, nil, "xz dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz of 4 GiB", xz4G, nil, "xz dictionary of 4 GiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz with many blocks", blocks, plain, ""},
		{"xz with many blocks, the last at the limit", withDictCode(t, blocks, offsets[len(offsets)-1], xzAtLimit), plain, ""},
		{"xz with many blocks, the second over the limit", withDictCode(t, blocks, offsets[1], xzLargest), nil,
			"xz dictionary of 4 GiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz streams, the second over the limit", append(xzOf(t, plain), xzOver...), nil,
			"xz dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz streams and padding, the second over the limit", append(append(xzOf(t, plain), 0, 0, 0, 0), xz4G...), nil,
			"xz dictionary of 4 GiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz block hidden in an LZMA2 chunk", xzHiddenBlock(t, plain[:200]), nil,
			"xz dictionary of 4 GiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz over the limit inside xz over it", xzDict(t, xz4G, xzLargest), nil,
			"xz dictionary of 4 GiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz over the limit inside xz", xzOf(t, xz4G), nil,
			"inside the compressed stream: xz dictionary of 4 GiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz at the limit inside xz at it", xzDict(t, xzDict(t, plain, xzAtLimit), xzAtLimit), plain, ""},
		// A second stream or frame over the limit is met as the audit
		// reads, not as the layers are opened: still said to be inner.
		{"xz streams inside xz, the second over the limit", xzOf(t, append(xzOf(t, plain), xzOver...)), nil,
			"inside the compressed stream: xz dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz streams inside gzip, the second over the limit", gzipOf(t, append(xzOf(t, plain), xz4G...)), nil,
			"inside the compressed stream: xz dictionary of 4 GiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz streams, the second over the limit, gzip inside the first", append(xzOf(t, gzipOf(t, plain)), xzOver...), nil,
			"xz dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + xzHint},
		{"xz over the limit inside gzip inside zstd", zstdOf(t, gzipOf(t, xzOver)), nil,
			"inside the compressed stream: xz dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + xzHint},

		{"zstd at the limit", zstdWindow(t, long, 128<<20), long, ""},
		{"zstd over the limit", zstdOver, nil, "zstd window of 256 MiB is over effectaudit's limit of 128 MiB" + zstdHint},
		{"zstd of a single segment at the limit", zstdSingleSegment(plain, 128<<20), nil,
			"frame size does not match size on stream"}, // past the limit check
		{"zstd of a single segment over the limit", zstdSingleSegment(plain, 128<<20+1), nil,
			"zstd window of 134217729 bytes is over effectaudit's limit of 128 MiB" + zstdHint},
		{"zstd after a skippable frame, over the limit", append(skippable(3), zstdOver...), nil,
			"zstd window of 256 MiB is over effectaudit's limit of 128 MiB" + zstdHint},
		{"zstd frames, the second over the limit", append(zstdOf(t, plain), zstdOver...), nil,
			"zstd window of 256 MiB is over effectaudit's limit of 128 MiB" + zstdHint},
		{"zstd over the limit inside xz", xzOf(t, zstdOver), nil,
			"inside the compressed stream: zstd window of 256 MiB is over effectaudit's limit of 128 MiB" + zstdHint},
		{"zstd frames inside xz, the second over the limit", xzOf(t, append(zstdOf(t, plain), zstdOver...)), nil,
			"inside the compressed stream: zstd window of 256 MiB is over effectaudit's limit of 128 MiB" + zstdHint},
		{"xz over the limit inside zstd", zstdOf(t, xzOver), nil,
			"inside the compressed stream: xz dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + xzHint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gotErr := readAll(tt.in)
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if tt.wantErr == "" && got != string(tt.want) {
				t.Errorf("read %d bytes, not the %d compressed", len(got), len(tt.want))
			}
		})
	}
}

// TestLimitErrorIsTyped checks that a limit met is a *LimitError for
// errors.As, from opening and from reading alike.
func TestLimitErrorIsTyped(t *testing.T) {
	src, err := FromReader("in", bytes.NewReader(xzDict(t, []byte(ledger), 40)), -1)
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("FromReader: %v; want a *LimitError", err)
	}
	if src != nil {
		t.Errorf("FromReader returned a Source with its error")
	}
	want := &LimitError{Format: "xz", Size: 1<<32 - 1, Limit: xzMaxDict}
	if diff := cmp.Diff(want, le); diff != "" {
		t.Errorf("LimitError (-want +got):\n%s", diff)
	}
}

// TestXZReaderAsLibrary checks that the xz reader reads what ulikunitz/xz
// reads, and refuses what it refuses: every check, several blocks and
// streams, stream padding, and each of those files with a byte changed
// or cut short anywhere.
func TestXZReaderAsLibrary(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 200))
	// The smallest dictionary, as thousands of files are decompressed.
	with := func(c xz.WriterConfig, data []byte) []byte {
		c.DictCap = lzma.MinDictCap
		return xzWith(t, c, data)
	}
	files := map[string][]byte{
		"empty":           with(xz.WriterConfig{}, nil),
		"no check":        with(xz.WriterConfig{NoCheckSum: true}, plain),
		"CRC-32":          with(xz.WriterConfig{CheckSum: xz.CRC32}, plain),
		"CRC-64":          with(xz.WriterConfig{CheckSum: xz.CRC64}, plain),
		"SHA-256":         with(xz.WriterConfig{CheckSum: xz.SHA256}, plain),
		"blocks":          with(xz.WriterConfig{BlockSize: 1024}, plain),
		"streams":         append(with(xz.WriterConfig{}, plain[:100]), with(xz.WriterConfig{CheckSum: xz.SHA256}, plain)...),
		"stream padding":  append(append(with(xz.WriterConfig{}, plain[:100]), make([]byte, 8)...), with(xz.WriterConfig{}, plain)...),
		"padding at last": append(with(xz.WriterConfig{}, plain), make([]byte, 4)...),
	}
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			compare(t, "as made", file)
			for i := range file {
				changed := bytes.Clone(file)
				changed[i] ^= 0x01
				compare(t, "byte changed", changed)
				compare(t, "cut short", file[:i])
			}
		})
	}
}

// compare reads file with newXZReader and with ulikunitz/xz and fails t
// when one reads what the other does not.
func compare(t *testing.T, what string, file []byte) {
	t.Helper()
	var got []byte
	x, err := newXZReader(bufioReader(file), xzMaxDict, false)
	if err == nil {
		got, err = io.ReadAll(x)
	}
	if errors.As(err, new(*LimitError)) {
		return // the library would allocate it
	}
	if errors.Is(err, errXZVarint) {
		return // refused as liblzma refuses it; ulikunitz/xz may take it
	}
	var want []byte
	lr, lerr := xz.NewReader(bytes.NewReader(file))
	if lerr == nil {
		want, lerr = io.ReadAll(lr)
	}
	switch {
	case lerr == nil && errors.Is(err, io.ErrUnexpectedEOF) && bytes.HasPrefix(want, got):
		// ulikunitz/xz takes a file cut short where a block or the
		// index should start for the end of the file.
	case (err == nil) != (lerr == nil):
		t.Fatalf("%s (%d bytes): error %v, where ulikunitz/xz's is %v", what, len(file), err, lerr)
	case err == nil && !bytes.Equal(got, want):
		t.Fatalf("%s (%d bytes): read %d bytes, not ulikunitz/xz's %d", what, len(file), len(got), len(want))
	}
}

// FuzzXZReader checks newXZReader against ulikunitz/xz on any input:
// both read the same bytes or both fail.
func FuzzXZReader(f *testing.F) {
	small := xz.WriterConfig{DictCap: lzma.MinDictCap} // quick to allocate
	f.Add(xzWith(f, small, []byte(ledger)))
	blocks := small
	blocks.BlockSize, blocks.CheckSum = 64, xz.SHA256
	f.Add(xzWith(f, blocks, []byte(ledger+ledger)))
	unchecked := small
	unchecked.NoCheckSum = true
	f.Add(append(append(xzWith(f, small, nil), 0, 0, 0, 0), xzWith(f, unchecked, []byte(ledger))...))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !bytes.HasPrefix(in, xzMagic) {
			return
		}
		compare(t, "fuzzed", in)
	})
}

func TestSizeString(t *testing.T) {
	for _, tt := range []struct {
		n    uint64
		want string
	}{
		{0, "0 bytes"},
		{1023, "1023 bytes"},
		{lzma.MinDictCap, "4 KiB"},
		{64 << 20, "64 MiB"},
		{96 << 20, "96 MiB"},
		{144 << 20, "144 MiB"},
		{3 << 29, "1.5 GiB"},
		{1<<32 - 1, "4 GiB"},
		{1<<40 + 1<<37, "1152 GiB"},
	} {
		if got := sizeString(tt.n); got != tt.want {
			t.Errorf("sizeString(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestReadXZVarint(t *testing.T) {
	tests := []struct {
		in   []byte
		want uint64
		err  error
	}{
		{[]byte{0x00}, 0, nil},
		{[]byte{0x01}, 1, nil},
		{[]byte{0x7f}, 127, nil},
		{[]byte{0x80, 0x01}, 128, nil},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 1<<63 - 1, nil},
		{[]byte{0x81, 0x00}, 0, errXZVarint},                                                 // 1 with a needless zero
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, errXZVarint}, // ten bytes
		{[]byte{0x80}, 0, io.EOF},
	}
	for _, tt := range tests {
		got, err := readXZVarint(bytes.NewReader(tt.in))
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("readXZVarint(% x) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

package input

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/pierrec/lz4/v4"
	"github.com/ulikunitz/xz/lzma"
)

// lz4Of compresses data with pierrec/lz4's Writer and options opts.
func lz4Of(t testing.TB, data []byte, opts ...lz4.Option) []byte {
	t.Helper()
	return compress(t, data, func(w io.Writer) (io.WriteCloser, error) {
		zw := lz4.NewWriter(w)
		return zw, zw.Apply(opts...)
	})
}

// xxh32 is XXH32 with seed 0, which the lz4 frame format uses for its
// checksums: here, to mend a frame descriptor's checksum after changing it.
func xxh32(b []byte) uint32 {
	const p1, p2, p3, p4, p5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
	n := len(b)
	var h uint32
	if n >= 16 {
		round := func(acc, x uint32) uint32 { return bits.RotateLeft32(acc+x*p2, 13) * p1 }
		v1, v2, v3, v4 := uint32(p1), uint32(p2), uint32(0), uint32(p1)
		v1 += p2
		v4 = -v4
		for len(b) >= 16 {
			v1 = round(v1, binary.LittleEndian.Uint32(b))
			v2 = round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = round(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = p5
	}
	h += uint32(n)
	for ; len(b) >= 4; b = b[4:] {
		h = bits.RotateLeft32(h+binary.LittleEndian.Uint32(b)*p3, 17) * p4
	}
	for _, c := range b {
		h = bits.RotateLeft32(h+uint32(c)*p5, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}

// lz4Descriptor returns where the frame descriptor of the lz4 frame file
// starts with ends: the index of its checksum byte.
func lz4Descriptor(t testing.TB, file []byte) int {
	t.Helper()
	if !bytes.HasPrefix(file, lz4Magic) {
		t.Fatalf("not an lz4 frame: % x", file[:min(len(file), 8)])
	}
	end := 6
	if file[4]&0x08 != 0 { // content size
		end += 8
	}
	return end
}

// lz4Edit returns the lz4 frame file with its frame descriptor changed by
// edit (FLG, BD and any content size, as bytes 4 on of the file) and its
// checksum mended, as a writer that set those flags would have written it.
func lz4Edit(t testing.TB, file []byte, edit func(desc []byte)) []byte {
	t.Helper()
	file = bytes.Clone(file)
	end := lz4Descriptor(t, file)
	edit(file[4:end])
	if lz4Descriptor(t, file) != end {
		t.Fatal("the edit changed the descriptor's length")
	}
	file[end] = byte(xxh32(file[4:end]) >> 8)
	return file
}

// incompressible is n bytes that lz4 and lzma store rather than compress,
// after a "{" that keeps the sniffer from taking them for a magic number.
func incompressible(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewChaCha8([32]byte{'l', 'z', '4'}))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[0] = '{'
	return b
}

// TestLZ4Reads checks that lz4 frames, as pierrec/lz4 writes them with
// each of its options, and as the lz4 command wrote them (testdata), are
// recognised and read back, alone and in other compressions.
func TestLZ4Reads(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 3000)) // 117 KB: over a 64 KiB block
	random := incompressible(300 << 10)           // stored blocks
	fixture := readFixture(t)
	testdata := func(name string) []byte { return readTestdata(t, name) }
	dependent := lz4Edit(t, lz4Of(t, plain, lz4.BlockSizeOption(lz4.Block64Kb)), func(d []byte) { d[0] &^= 0x20 })
	if dependent[4]&0x20 != 0 {
		t.Fatal("the frame still states independent blocks")
	}
	frame := lz4Of(t, []byte(ledger))
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"default", lz4Of(t, plain), plain},
		{"empty", lz4Of(t, nil), nil},
		{"one line", frame, []byte(ledger)},
		{"64 KiB blocks", lz4Of(t, plain, lz4.BlockSizeOption(lz4.Block64Kb)), plain},
		{"256 KiB blocks", lz4Of(t, random, lz4.BlockSizeOption(lz4.Block256Kb)), random},
		{"1 MiB blocks", lz4Of(t, plain, lz4.BlockSizeOption(lz4.Block1Mb)), plain},
		{"4 MiB blocks", lz4Of(t, random, lz4.BlockSizeOption(lz4.Block4Mb)), random},
		{"block checksums", lz4Of(t, plain, lz4.BlockSizeOption(lz4.Block64Kb), lz4.BlockChecksumOption(true)), plain},
		{"no content checksum", lz4Of(t, plain, lz4.ChecksumOption(false)), plain},
		{"no checksum at all", lz4Of(t, random, lz4.ChecksumOption(false), lz4.BlockSizeOption(lz4.Block64Kb)), random},
		{"content size", lz4Of(t, plain, lz4.SizeOption(uint64(len(plain)))), plain},
		{"everything", lz4Of(t, random, lz4.SizeOption(uint64(len(random))), lz4.BlockChecksumOption(true), lz4.BlockSizeOption(lz4.Block64Kb)), random},
		{"stored blocks", lz4Of(t, random, lz4.BlockSizeOption(lz4.Block64Kb)), random},
		{"level 9", lz4Of(t, plain, lz4.CompressionLevelOption(lz4.Level9)), plain},
		{"as the C library compresses", lz4Of(t, plain, lz4.CompressionLevelOption(lz4.CCompatFast)), plain},
		{"blocks flagged dependent", dependent, plain},
		// A size of 0 with the stored bit is an empty block, not an end
		// mark, for lz4 -d (1.9.4) as for the library.
		{"an empty stored block between blocks", emptyStoredBlockAfterFirst(t, lz4Of(t, plain, lz4.BlockSizeOption(lz4.Block64Kb))), plain},
		{"frames", slices.Concat(frame, lz4Of(t, plain, lz4.BlockChecksumOption(true))), slices.Concat([]byte(ledger), plain)},
		{"after a skippable frame", slices.Concat(skippable(0), frame), []byte(ledger)},
		{"after skippable frames", slices.Concat(skippable(0xf), skippable(4), frame), []byte(ledger)},
		{"after an empty skippable frame", slices.Concat([]byte{0x5a, 0x2a, 0x4d, 0x18, 0, 0, 0, 0}, frame), []byte(ledger)},
		{"skippable frames between frames", slices.Concat(frame, skippable(1), frame, skippable(2)), []byte(ledger + ledger)},
		{"gzip of lz4", gzipOf(t, lz4Of(t, plain)), plain},
		{"lz4 of gzip", lz4Of(t, gzipOf(t, plain)), plain},
		{"zstd of lz4", zstdOf(t, lz4Of(t, plain)), plain},
		{"lz4 of zstd after a skippable frame", lz4Of(t, slices.Concat(skippable(0), zstdOf(t, plain))), plain},
		{"xz of lz4", xzOf(t, lz4Of(t, plain)), plain},
		{"lz4 of lzma", lz4Of(t, lzmaOf(t, plain)), plain},
		{"lzma of lz4", lzmaOf(t, lz4Of(t, plain)), plain},
		{"lz4 of lz4 of lz4 of lz4", lz4Of(t, lz4Of(t, lz4Of(t, lz4Of(t, plain)))), plain},

		// Made by the lz4 command (v1.9.4): lz4 -9, and
		// lz4 -B4 -BD -BX --content-size (64 KiB blocks, each
		// depending on those before it, block checksums, content
		// size) of the fixture 30 times over.
		{"lz4 -9", testdata("four-operations.ndjson.lz4"), fixture},
		{"lz4 -B4 -BD -BX --content-size", testdata("four-operations-x30.ndjson.lz4"), bytes.Repeat(fixture, 30)},
		{"gzip of lz4 -BD", gzipOf(t, testdata("four-operations-x30.ndjson.lz4")), bytes.Repeat(fixture, 30)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readFromReader(t, tt.in)
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(bytes.Equal)); diff != "" {
				t.Errorf("read %d bytes, want %d:\n%s", len(got), len(tt.want), firstDiff(tt.want, got))
			}
		})
	}
}

// firstDiff describes where got first differs from want.
func firstDiff(want, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	return cmp.Diff(string(want[i:min(len(want), i+40)]), string(got[i:min(len(got), i+40)]))
}

// TestLZ4DescriptorEdit checks lz4Edit's checksum against the lz4
// command's: an edit that changes nothing gives the file back.
func TestLZ4DescriptorEdit(t *testing.T) {
	file := readTestdata(t, "four-operations-x30.ndjson.lz4")
	if diff := cmp.Diff(file, lz4Edit(t, file, func([]byte) {})); diff != "" {
		t.Errorf("mended descriptor checksum differs from lz4's (-want +got):\n%s", diff)
	}
	// The content checksum of lz4 -9's file is the fixture's XXH32.
	file = readTestdata(t, "four-operations.ndjson.lz4")
	fixture := readFixture(t)
	for _, tt := range []struct {
		in   []byte
		want uint32
	}{
		{nil, 0x02cc5d05},
		{[]byte("abc"), 0x32d153ff},
		{fixture, binary.LittleEndian.Uint32(file[len(file)-4:])},
	} {
		if got := xxh32(tt.in); got != tt.want {
			t.Errorf("xxh32 of %d bytes = %#x, want %#x", len(tt.in), got, tt.want)
		}
	}
}

// TestLZ4Refuses checks that a damaged lz4 file is an error, naming what
// is wrong where the library tells: checksums of the content, of a block
// and of the descriptor, the content size, and what follows the frames.
func TestLZ4Refuses(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 100))
	checked := lz4Of(t, plain)
	blockChecked := lz4Of(t, plain, lz4.BlockChecksumOption(true), lz4.ChecksumOption(false))
	sized := lz4Of(t, plain, lz4.SizeOption(uint64(len(plain))))
	flip := func(file []byte, i int) []byte {
		file = bytes.Clone(file)
		if i < 0 {
			i += len(file)
		}
		file[i] ^= 0x01
		return file
	}
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"content checksum wrong", flip(checked, -1), "lz4: invalid frame checksum"},
		{"content changed", flip(checked, len(checked)/2), "lz4: invalid frame checksum"},
		{"block checksum wrong", flip(blockChecked, -5), "lz4: invalid block checksum"},
		{"block changed", flip(blockChecked, len(blockChecked)/2), "lz4: invalid block checksum"},
		{"descriptor changed", flip(checked, 4), "lz4: invalid header checksum"},
		{"descriptor checksum wrong", flip(checked, 6), "lz4: invalid header checksum"},
		{"content size too large", lz4Edit(t, sized, func(d []byte) { d[2]++ }), "lz4: content size mismatch"},
		{"content size too small", lz4Edit(t, sized, func(d []byte) { d[2]-- }), "lz4: content size mismatch"},
		{"version 0", lz4Edit(t, checked, func(d []byte) { d[0] &^= 0x40 }), "lz4: invalid or unsupported frame descriptor"},
		{"a dictionary", lz4Edit(t, checked, func(d []byte) { d[0] |= 0x01 }), "lz4: invalid"},
		{"block size of 16 KiB", lz4Edit(t, checked, func(d []byte) { d[1] = 0x30 }), "lz4: invalid block size"},
		{"block over its frame's block size", lz4Edit(t, lz4Of(t, incompressible(100<<10), lz4.BlockSizeOption(lz4.Block256Kb)), func(d []byte) { d[1] = 0x40 }),
			"lz4: invalid block size"},
		{"no end mark", checked[:len(checked)-8], "unexpected EOF"},
		{"cut in the content checksum", checked[:len(checked)-1], "unexpected EOF"},
		{"garbage after", slices.Concat(checked, []byte("garbage\n")), "lz4: data after the last frame"},
		{"zeros after", slices.Concat(checked, make([]byte, 4)), "lz4: data after the last frame"},
		{"a byte after", slices.Concat(checked, []byte{0}), "unexpected EOF"},
		{"gzip after", slices.Concat(checked, gzipOf(t, plain)), "lz4: data after the last frame"},
		{"zstd after", slices.Concat(checked, zstdOf(t, plain)), "lz4: data after the last frame"},
		{"garbage after a skippable frame", slices.Concat(skippable(0), checked, skippable(1), []byte("garbage\n")), "lz4: data after the last frame"},
		{"legacy", lz4Of(t, plain, lz4.LegacyOption(true)), "the input is in lz4's legacy format (lz4 -l), which effectaudit does not read; decompress it first (lz4 -dc)"},
		{"lz4 -l", readTestdata(t, "four-operations.ndjson.legacy.lz4"), "lz4's legacy format"},
		{"legacy after a skippable frame", slices.Concat(skippable(0), lz4Of(t, plain, lz4.LegacyOption(true))), "lz4's legacy format"},
		{"legacy after a frame", slices.Concat(checked, lz4Of(t, plain, lz4.LegacyOption(true))), "lz4's legacy format"},
		// A run of legacy magic numbers cost the library a level of
		// stack each: 8 Mi of them, in a 5 KB xz, a fatal overflow.
		{"legacy magic numbers", bytes.Repeat(lz4LegacyMagic, 1<<20), "lz4's legacy format"},
		{"legacy inside gzip", gzipOf(t, lz4Of(t, plain, lz4.LegacyOption(true))), "inside the compressed stream: the input is in lz4's legacy format"},
		// A frame's matches reach no further back than its own start
		// (as lz4 -d has it; the library kept the frame before).
		{"match into the frame before", lz4MatchIntoFrameBefore, "lz4: invalid"},
		{"cut in a skippable frame", slices.Concat(skippable(0), frameOf(t))[:10], "unexpected EOF"},
		{"a frame, then a skippable frame cut in its content", slices.Concat(checked, skippable(1)[:10]), "unexpected EOF"},
		{"a frame, then a skippable frame cut in its header", slices.Concat(checked, skippable(1)[:6]), "unexpected EOF"},
		// A size of 2 GiB or more is no negative count: the frame after
		// is inside the skippable one, and the file ends first.
		{"a skippable frame of 2 GiB", slices.Concat(checked, []byte{0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0x80}, frameOf(t)), "unexpected EOF"},
		// Found when FromReader sniffs what the lz4 layer holds: an
		// error of the layer inside.
		{"damaged descriptor inside gzip", gzipOf(t, flip(checked, 4)), "inside the compressed stream: lz4: invalid header checksum"},
		{"cut in the descriptor inside gzip", gzipOf(t, checked[:6]), "inside the compressed stream: the lz4 stream is cut short (is the file complete?): unexpected EOF"},
		// Found while reading, after FromReader: as a damaged xz block
		// inside gzip is, the error as the decoder gives it.
		{"damaged inside gzip", gzipOf(t, flip(checked, -1)), "lz4: invalid frame checksum"},
		{"cut inside lzma", lzmaOf(t, checked[:len(checked)-8]), "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gotErr := readAll(tt.in)
			if gotErr == "" {
				t.Fatalf("read %d bytes and no error; want one containing %q", len(got), tt.want)
			}
			if !strings.Contains(gotErr, tt.want) {
				t.Errorf("error %q, want it to contain %q", gotErr, tt.want)
			}
		})
	}
}

func frameOf(t testing.TB) []byte { return lz4Of(t, []byte(ledger)) }

// emptyStoredBlockAfterFirst puts a block size of 0x80000000 (stored, 0
// bytes) after the first block of file, a frame with no content size,
// dictionary or block checksums.
func emptyStoredBlockAfterFirst(t testing.TB, file []byte) []byte {
	t.Helper()
	if file[4]&0x19 != 0 {
		t.Fatalf("frame flags %#x: want no content size, dictionary or block checksums", file[4])
	}
	end := 7 + 4 + int(binary.LittleEndian.Uint32(file[7:])&0x7fffffff)
	return slices.Concat(file[:end], []byte{0, 0, 0, 0x80}, file[end:])
}

// TestLZ4ReadErrors fails the reader under an lz4 file at every byte: the
// error read must be that failure, whichever part of a frame it cuts. The
// frame walker peeks at headers and block sizes, and bufio.Reader.Peek
// returns a read error only once.
func TestLZ4ReadErrors(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 60))
	file := slices.Concat(skippable(0), lz4Of(t, plain, lz4.BlockSizeOption(lz4.Block64Kb), lz4.BlockChecksumOption(true)), skippable(1), frameOf(t))
	failure := errors.New("the disk failed")
	for k := 1; k < len(file); k++ {
		r := io.MultiReader(bytes.NewReader(file[:k]), iotest.ErrReader(failure))
		src, err := FromReader("in", r, -1)
		if err == nil {
			_, err = io.ReadAll(src)
		}
		if err == nil || !strings.Contains(err.Error(), failure.Error()) {
			t.Errorf("the reader failing after %d bytes of %d: error %v; want %q", k, len(file), err, failure)
		}
	}
}

// lz4MatchIntoFrameBefore is two frames: the first of dependent blocks
// holding the alphabet, the second of independent blocks whose only block
// is a match 26 bytes back, into the first frame, and "hello". lz4 -d
// (1.9.4) refuses it ("Error 66 : Decompression error").
var lz4MatchIntoFrameBefore = []byte("\x04\x22\x4d\x18\x40\x40\xc0\x1a\x00\x00\x80ABCDEFGHIJKLMNOPQRSTUVWXYZ\x00\x00\x00\x00" +
	"\x04\x22\x4d\x18\x60\x40\x82\x09\x00\x00\x00\x0c\x1a\x00\x50hello\x00\x00\x00\x00")

// TestLZ4Damaged cuts small lz4 files short at every byte: each cut must
// read as an error, never a panic and never silently less. The exceptions
// are where the format cannot tell: fewer bytes than a magic number are no
// lz4 file, and are read as they are (binary, which no ledger line is); a
// file cut where a frame ends is a file of fewer frames. It then changes each byte after
// the magic number in turn: never a panic, and where a checksum covers
// every byte, an error.
func TestLZ4Damaged(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 40))
	// 64 KiB blocks: the decoder's buffers are of the block size, and
	// these are thousands of reads.
	b64 := lz4.BlockSizeOption(lz4.Block64Kb)
	frame := lz4Of(t, plain[:500], b64)
	files := []struct {
		name string
		file []byte
		// Lengths the file may be cut to that read without error,
		// besides those under 4 bytes, and what they read.
		ends map[int][]byte
		// Whether a checksum covers every byte after the magic
		// number, so that a changed one must be an error.
		checked bool
	}{
		{"content checksum", lz4Of(t, plain, b64), nil, true},
		{"4 MiB blocks", lz4Of(t, plain[:200]), nil, true},
		{"no checksum", lz4Of(t, plain, b64, lz4.ChecksumOption(false)), nil, false},
		{"block checksums", lz4Of(t, plain, b64, lz4.ChecksumOption(false), lz4.BlockChecksumOption(true)), nil, false},
		{"content size", lz4Of(t, plain, b64, lz4.ChecksumOption(false), lz4.SizeOption(uint64(len(plain)))), nil, false},
		{"stored", lz4Of(t, incompressible(300), b64), nil, true},
		{"empty", lz4Of(t, nil, b64), nil, true},
		{"frames", slices.Concat(frame, frame), map[int][]byte{len(frame): plain[:500]}, true},
		// Cut after its skippable frame, it is a stream of one skippable
		// frame, which zstd reads as empty. The skippable frame's
		// content is not checked.
		{"after a skippable frame", slices.Concat(skippable(0), frame), map[int][]byte{12: nil}, false},
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			if got := readFromReader(t, f.file); len(got) == 0 && f.name != "empty" {
				t.Fatal("read nothing from the whole file")
			}
			for i := range f.file {
				cut := f.file[:i]
				got, gotErr := readAll(cut)
				want, ok := f.ends[i]
				switch {
				case i < 4:
					if gotErr != "" || got != string(cut) {
						t.Errorf("cut to %d bytes: read %q, error %q; want the bytes as they are", i, got, gotErr)
					}
				case ok:
					if gotErr != "" || got != string(want) {
						t.Errorf("cut to %d bytes: read %d bytes, error %q; want %d bytes", i, len(got), gotErr, len(want))
					}
				case gotErr == "":
					t.Errorf("cut to %d bytes of %d: read %d bytes and no error", i, len(f.file), len(got))
				}
			}
			for i := 4; i < len(f.file); i++ {
				changed := bytes.Clone(f.file)
				changed[i] ^= 0x01
				// Unchecked, a change may go unnoticed; it must
				// not panic.
				if got, gotErr := readAll(changed); gotErr == "" && f.checked {
					t.Errorf("byte %d changed: read %d bytes and no error", i, len(got))
				}
			}
		})
	}
}

// TestLZ4Magic checks that no lz4 magic number is taken for zstd's, and
// that skippable frames go to lz4 only when an lz4 frame follows them.
func TestLZ4Magic(t *testing.T) {
	for _, tt := range []struct {
		magic           string
		lz4, zstd, skip bool
	}{
		{"\x04\x22\x4d\x18", true, false, false},
		{"\x02\x21\x4c\x18", true, false, false},
		{"\x50\x2a\x4d\x18", false, true, true},
		{"\x5f\x2a\x4d\x18", false, true, true},
		{"\x28\xb5\x2f\xfd", false, true, false},
		{"\x04\x22\x4d", false, false, false},
		{"\x04\x22\x4d\x19", false, false, false},
		{"\x03\x21\x4c\x18", false, false, false},
		{`{"ty`, false, false, false},
	} {
		m := []byte(tt.magic)
		if got := isLZ4(m); got != tt.lz4 {
			t.Errorf("isLZ4(%q) = %v, want %v", tt.magic, got, tt.lz4)
		}
		if got := isZstd(m); got != tt.zstd {
			t.Errorf("isZstd(%q) = %v, want %v", tt.magic, got, tt.zstd)
		}
		if got := isSkippable(m); got != tt.skip {
			t.Errorf("isSkippable(%q) = %v, want %v", tt.magic, got, tt.skip)
		}
	}

	frame := frameOf(t)
	big := slices.Concat([]byte{0x50, 0x2a, 0x4d, 0x18}, binary.LittleEndian.AppendUint32(nil, 70<<10), make([]byte, 70<<10))
	for _, tt := range []struct {
		name string
		in   []byte
		want []byte
	}{
		{"lz4 frame", slices.Concat(skippable(0), frame), lz4Magic},
		{"legacy frame", slices.Concat(skippable(0), skippable(1), lz4LegacyMagic), lz4LegacyMagic},
		{"zstd frame", slices.Concat(skippable(3), zstdOf(t, nil)), zstdMagic},
		{"nothing", skippable(0), nil},
		{"cut in the next magic", slices.Concat(skippable(0), frame[:3]), nil},
		{"cut in the size", skippable(0)[:6], nil},
		{"not skippable", frame, lz4Magic},
		{"beyond the buffer", slices.Concat(big, frame), nil},
		{"size near 4 GiB", []byte{0x50, 0x2a, 0x4d, 0x18, 0xff, 0xff, 0xff, 0xff, 0x04, 0x22, 0x4d, 0x18}, nil},
	} {
		br := bufio.NewReaderSize(bytes.NewReader(tt.in), 64<<10)
		if got := afterSkippable(br); !bytes.Equal(got, tt.want) {
			t.Errorf("%s: afterSkippable = % x, want % x", tt.name, got, tt.want)
		}
		if br.Buffered() > 0 {
			if b, _ := br.Peek(4); !bytes.Equal(b, tt.in[:4]) {
				t.Errorf("%s: afterSkippable read the reader", tt.name)
			}
		}
	}

	// Skippable frames larger than the sniffer sees are left to zstd,
	// which does not read the lz4 frame after them: an error, not data.
	if got, gotErr := readAll(slices.Concat(big, frame)); gotErr == "" {
		t.Errorf("an lz4 frame after 70 KiB of skippable frame read as %d bytes, no error", len(got))
	}
}

// TestLZ4Memory checks that lz4 needs no limit: whatever a frame holds
// and its header states, its decoder keeps a block compressed and one
// decompressed, 4 MiB each at most, and for dependent blocks the last one
// and 64 KiB before it. Here 20 MiB in the largest blocks, compressed to a
// few hundred KB, with the live heap sampled as it is read.
func TestLZ4Memory(t *testing.T) {
	plain := bytes.Repeat([]byte(ledger), (20<<20)/len(ledger))
	big := lz4Of(t, plain, lz4.BlockSizeOption(lz4.Block4Mb))
	for _, tt := range []struct {
		name  string
		file  []byte
		limit uint64
	}{
		{"4 MiB blocks", big, 10 << 20},
		{"4 MiB blocks, dependent", lz4Edit(t, big, func(d []byte) { d[0] &^= 0x20 }), 14 << 20},
	} {
		w := &heapWriter{every: 64}
		w.base = liveHeap()
		src, err := FromReader("in", bytes.NewReader(tt.file), -1)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(w, src)
		if err != nil || n != int64(len(plain)) {
			t.Fatalf("%s: read %d bytes, %v; want %d", tt.name, n, err, len(plain))
		}
		if w.peak > tt.limit {
			t.Errorf("%s: reading %d MiB from %d KB kept %.1f MiB, over %d MiB", tt.name, len(plain)>>20, len(tt.file)>>10, float64(w.peak)/(1<<20), tt.limit>>20)
		}
		t.Logf("%s: %d KB kept %.1f MiB at most", tt.name, len(tt.file)>>10, float64(w.peak)/(1<<20))
	}
}

// liveHeap returns the bytes of heap in use after a collection; two,
// since sync.Pool keeps what it holds through one.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// heapWriter discards what is written, every so many writes noting how
// much more heap is live than at base.
type heapWriter struct {
	every, n   int
	base, peak uint64
}

func (w *heapWriter) Write(p []byte) (int, error) {
	if w.n++; w.n%w.every == 0 {
		if live := liveHeap(); live > w.base {
			w.peak = max(w.peak, live-w.base)
		}
	}
	return len(p), nil
}

// FuzzLZ4Reader feeds any bytes after an lz4 magic number (and the whole
// input as it is) to FromReader: an error or bytes, never a panic or a
// hang.
func FuzzLZ4Reader(f *testing.F) {
	plain := []byte(strings.Repeat(ledger, 20))
	f.Add(lz4Of(f, plain))
	f.Add(lz4Of(f, plain, lz4.BlockChecksumOption(true), lz4.BlockSizeOption(lz4.Block64Kb), lz4.SizeOption(uint64(len(plain)))))
	f.Add(lz4Of(f, plain, lz4.LegacyOption(true)))
	f.Add(slices.Concat(skippable(0), lz4Of(f, plain[:50])))
	f.Add(lz4Of(f, lzmaWith(f, lzma.WriterConfig{DictCap: lzma.MinDictCap}, plain)))
	if b, err := os.ReadFile(filepath.Join("testdata", "four-operations-x30.ndjson.lz4")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, file := range [][]byte{in, slices.Concat(lz4Magic, in)} {
			src, err := FromReader("in", bytes.NewReader(file), int64(len(file)))
			if err != nil {
				continue
			}
			// Bounded: a few bytes may decompress to many.
			io.Copy(io.Discard, io.LimitReader(src, 16<<20))
			src.Close()
		}
	})
}

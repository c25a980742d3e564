package input

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ulikunitz/xz/lzma"
)

// lzmaWith compresses data into an .lzma file with ulikunitz/xz/lzma's
// Writer and config c.
func lzmaWith(t testing.TB, c lzma.WriterConfig, data []byte) []byte {
	t.Helper()
	return compress(t, data, func(w io.Writer) (io.WriteCloser, error) { return c.NewWriter(w) })
}

// lzmaOf is lzmaWith with the library's defaults: an 8 MiB dictionary, no
// size in the header and an end marker, as xz --format=lzma writes.
func lzmaOf(t testing.TB, data []byte) []byte { return lzmaWith(t, lzma.WriterConfig{}, data) }

// lzmaSized is data in an .lzma file whose header states its size, with
// an end marker after it or not.
func lzmaSized(t testing.TB, data []byte, eos bool) []byte {
	return lzmaWith(t, lzma.WriterConfig{DictCap: lzma.MinDictCap, SizeInHeader: true, Size: int64(len(data)), EOSMarker: eos}, data)
}

// withLZMAHeader returns file with its header's dictionary size set to
// dict and, when size is not nil, its uncompressed size to *size.
func withLZMAHeader(file []byte, dict uint32, size *uint64) []byte {
	file = bytes.Clone(file)
	binary.LittleEndian.PutUint32(file[1:5], dict)
	if size != nil {
		binary.LittleEndian.PutUint64(file[5:13], *size)
	}
	return file
}

func ptr[T any](v T) *T { return &v }

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "fixtures", "four-operations.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lzmaEmptyHeader is an .lzma header stating a size of 0.
var lzmaEmptyHeader = []byte{0x5d, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

const lzmaHint = "; decompress it first (xz -dc or unlzma -c) and give the plain ledger, or recompress it with xz -9 or lower"

// TestLZMAReads checks that .lzma files, as ulikunitz/xz/lzma writes them
// with each of its options and as xz --format=lzma and lzma wrote them
// (testdata), are recognised and read back, alone and in other
// compressions.
func TestLZMAReads(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 3000))
	random := incompressible(200 << 10)
	fixture := readFixture(t)
	small := lzma.WriterConfig{DictCap: lzma.MinDictCap}
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"default", lzmaOf(t, plain), plain},
		{"empty", lzmaOf(t, nil), nil},
		{"empty, its size stated, no end marker", slices.Concat(lzmaEmptyHeader, make([]byte, 5)), nil},
		{"one line", lzmaOf(t, []byte(ledger)), []byte(ledger)},
		{"4 KiB dictionary", lzmaWith(t, small, plain), plain},
		{"64 KiB dictionary", lzmaWith(t, lzma.WriterConfig{DictCap: 64 << 10}, random), random},
		{"3 MiB dictionary", lzmaWith(t, lzma.WriterConfig{DictCap: 3 << 20}, plain), plain},
		{"dictionary at the limit", withLZMAHeader(lzmaWith(t, small, plain), xzMaxDict, nil), plain},
		{"size in the header", lzmaSized(t, plain, false), plain},
		{"size in the header and an end marker", lzmaSized(t, plain, true), plain},
		{"size in the header, incompressible", lzmaSized(t, random, false), random},
		{"size in the header, dictionary over the size", lzmaWith(t, lzma.WriterConfig{DictCap: 1 << 20, Size: int64(len(ledger))}, []byte(ledger)), []byte(ledger)},
		{"other matcher", lzmaWith(t, lzma.WriterConfig{DictCap: 1 << 16, Matcher: lzma.BinaryTree}, plain), plain},
		{"gzip of lzma", gzipOf(t, lzmaOf(t, plain)), plain},
		{"lzma of gzip", lzmaOf(t, gzipOf(t, plain)), plain},
		{"zstd of lzma", zstdOf(t, lzmaOf(t, plain)), plain},
		{"lzma of xz", lzmaOf(t, xzOf(t, plain)), plain},
		{"xz of lzma", xzOf(t, lzmaSized(t, plain, false)), plain},
		{"lzma of lzma", lzmaWith(t, small, lzmaWith(t, small, plain)), plain},
		{"lz4 of lzma of lz4", lz4Of(t, lzmaOf(t, lz4Of(t, plain))), plain},

		// Made by xz 5.4.1: lzma -9 (a 64 MiB dictionary, at the
		// limit) and xz --format=lzma --lzma1=preset=1,dict=4KiB. Both
		// leave the size out and write an end marker, as xz always does.
		{"lzma -9", readTestdata(t, "four-operations.ndjson.lzma"), fixture},
		{"xz --format=lzma, 4 KiB dictionary", readTestdata(t, "four-operations.ndjson.dict4k.lzma"), fixture},
		{"gzip of lzma -9", gzipOf(t, readTestdata(t, "four-operations.ndjson.lzma")), fixture},
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

// TestLZMARefuses checks the .lzma files refused: a dictionary over the
// limit (before it is allocated), data after the stream's end (as xz -dc
// refuses it), a stream that does not end where its header says, one cut
// short.
func TestLZMARefuses(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 100))
	small := lzma.WriterConfig{DictCap: lzma.MinDictCap}
	eos := lzmaWith(t, small, plain)
	sized := lzmaSized(t, plain, false)
	tests := []struct {
		name string
		in   []byte
		want string // the whole error
	}{
		{"dictionary of 96 MiB", withLZMAHeader(eos, 96<<20, nil), "lzma dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + lzmaHint},
		{"dictionary of 128 MiB", withLZMAHeader(eos, 128<<20, nil), "lzma dictionary of 128 MiB is over effectaudit's limit of 64 MiB" + lzmaHint},
		{"dictionary of 2 GiB", withLZMAHeader(eos, 1<<31, nil), "lzma dictionary of 2 GiB is over effectaudit's limit of 64 MiB" + lzmaHint},
		{"dictionary of 4 GiB", withLZMAHeader(eos, math.MaxUint32, nil), "lzma dictionary of 4 GiB is over effectaudit's limit of 64 MiB" + lzmaHint},
		// The library would allocate only the stated size; the header
		// is refused all the same, as an xz block header is.
		{"dictionary over the limit, small size stated", withLZMAHeader(sized, 1<<30, nil), "lzma dictionary of 1 GiB is over effectaudit's limit of 64 MiB" + lzmaHint},
		{"xz --format=lzma --lzma1=dict=96MiB", readTestdata(t, "four-operations.ndjson.dict96m.lzma"), "lzma dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + lzmaHint},
		{"dictionary over the limit inside gzip", gzipOf(t, withLZMAHeader(eos, 96<<20, nil)),
			"inside the compressed stream: lzma dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + lzmaHint},
		{"dictionary over the limit inside lz4 inside zstd", zstdOf(t, lz4Of(t, withLZMAHeader(eos, 96<<20, nil))),
			"inside the compressed stream: lzma dictionary of 96 MiB is over effectaudit's limit of 64 MiB" + lzmaHint},

		{"garbage after", slices.Concat(eos, []byte("garbage\n")), "lzma: data after the end of the stream"},
		{"a zero byte after", slices.Concat(eos, []byte{0}), "lzma: data after the end of the stream"},
		{"a second stream", slices.Concat(eos, eos), "lzma: data after the end of the stream"},
		{"a ledger after", slices.Concat(sized, []byte(ledger)), "lzma: data after the end of the stream"},
		{"size stated one short", withLZMAHeader(sized, lzma.MinDictCap, ptr(uint64(len(plain)-1))), "lzma: wrong uncompressed data size"},
		{"size stated one over", withLZMAHeader(sized, lzma.MinDictCap, ptr(uint64(len(plain)+1))), "unexpected EOF"},
		{"size stated under the end marker", withLZMAHeader(eos, lzma.MinDictCap, ptr(uint64(len(plain)-1))), "lzma: wrong uncompressed data size"},
		{"size stated over the end marker", withLZMAHeader(eos, lzma.MinDictCap, ptr(uint64(len(plain)+1))), "lzma: wrong uncompressed data size"},
		{"no size and no end marker", withLZMAHeader(sized, lzma.MinDictCap, ptr(uint64(math.MaxUint64))), "unexpected EOF"},
		{"cut short", eos[:len(eos)-1], "unexpected EOF"},
		{"cut after the header", eos[:13], "starting the lzma decoder: unexpected EOF"},
		{"cut after the header inside gzip", gzipOf(t, eos[:15]), "inside the compressed stream: the lzma stream is cut short (is the file complete?): starting the lzma decoder: unexpected EOF"},
		// Found while reading, after FromReader: the error as the
		// decoder gives it, as for a damaged xz block inside gzip.
		{"cut short inside gzip", gzipOf(t, eos[:len(eos)-1]), "unexpected EOF"},
		{"garbage after, inside lz4", lz4Of(t, slices.Concat(eos, []byte("x"))), "lzma: data after the end of the stream"},
		// Met by looking past the stream's end: the layer around it
		// fails there, and says so.
		{"inside gzip whose checksum is wrong", badGzipChecksum(gzipOf(t, eos)), "gzip: invalid checksum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gotErr := readAll(tt.in)
			if gotErr == "" {
				t.Fatalf("read %d bytes and no error; want %q", len(got), tt.want)
			}
			if strings.HasPrefix(tt.want, "lzma dictionary") || strings.HasPrefix(tt.want, "inside the compressed stream: lzma dictionary") {
				if diff := cmp.Diff(tt.want, gotErr); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			} else if !strings.Contains(gotErr, tt.want) {
				t.Errorf("error %q, want it to contain %q", gotErr, tt.want)
			}
		})
	}
}

// badGzipChecksum returns gz with its CRC-32 (the trailer's first four
// bytes) changed.
func badGzipChecksum(gz []byte) []byte {
	gz = slices.Clone(gz)
	gz[len(gz)-8] ^= 0x01
	return gz
}

// TestLZMALimitBeforeAllocating checks that a dictionary over the limit is
// a *LimitError, from FromReader, before the dictionary is allocated.
func TestLZMALimitBeforeAllocating(t *testing.T) {
	file := withLZMAHeader(lzmaWith(t, lzma.WriterConfig{DictCap: lzma.MinDictCap}, []byte(ledger)), 1<<31, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	src, err := FromReader("in", bytes.NewReader(file), -1)
	runtime.ReadMemStats(&after)
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("FromReader: %v; want a *LimitError", err)
	}
	if src != nil {
		t.Errorf("FromReader returned a Source with its error")
	}
	want := &LimitError{Format: "lzma", Size: 1 << 31, Limit: xzMaxDict}
	if diff := cmp.Diff(want, le); diff != "" {
		t.Errorf("LimitError (-want +got):\n%s", diff)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing a 2 GiB dictionary allocated %d KiB", alloc>>10)
	}
}

// TestLZMADamaged cuts .lzma files short at every byte: each cut must be
// an error, never a panic and never silently less, except those under 13
// bytes, too short for an .lzma header, which are read as they are
// (binary, which no ledger line is). It then changes each byte: the format
// has no checksum, so that may go unnoticed, but must not panic, and a
// stream whose header states its size must never read to another size.
func TestLZMADamaged(t *testing.T) {
	plain := []byte(strings.Repeat(ledger, 40))
	small := lzma.WriterConfig{DictCap: lzma.MinDictCap}
	files := map[string][]byte{
		"end marker":                   lzmaWith(t, small, plain),
		"size in the header":           lzmaSized(t, plain, false),
		"size and end marker":          lzmaSized(t, plain, true),
		"incompressible":               lzmaSized(t, incompressible(300), false),
		"empty":                        lzmaWith(t, small, nil),
		"xz --format=lzma, 4 KiB dict": readTestdata(t, "four-operations.ndjson.dict4k.lzma"),
	}
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			readFromReader(t, file)
			for i := range file {
				cut := file[:i]
				got, gotErr := readAll(cut)
				switch {
				case i < lzma.HeaderLen:
					if gotErr != "" || got != string(cut) {
						t.Errorf("cut to %d bytes: read %q, error %q; want the bytes as they are", i, got, gotErr)
					}
				case gotErr == "":
					t.Errorf("cut to %d bytes of %d: read %d bytes and no error", i, len(file), len(got))
				}
			}
			size := binary.LittleEndian.Uint64(file[5:13])
			for i := lzma.HeaderLen; i < len(file); i++ {
				changed := bytes.Clone(file)
				changed[i] ^= 0x01
				got, gotErr := readAll(changed)
				if gotErr == "" && size != math.MaxUint64 && uint64(len(got)) != size {
					t.Errorf("byte %d changed: read %d bytes, where the header states %d", i, len(got), size)
				}
			}
		})
	}
}

// TestLZMASniff checks which 13-byte headers are taken for .lzma: those
// xz writes, and no text, nor an OTLP protobuf.
func TestLZMASniff(t *testing.T) {
	header := func(props byte, dict uint32, size uint64) string {
		b := []byte{props}
		b = binary.LittleEndian.AppendUint32(b, dict)
		return string(binary.LittleEndian.AppendUint64(b, size))
	}
	const unknown = math.MaxUint64
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{header(0x5d, 8<<20, unknown), true},
		{header(0x5d, lzma.MinDictCap, unknown), true},
		{header(0x5d, 6<<10, unknown), true}, // 2^12+2^11
		{header(0x5d, 3<<20, 4000), true},
		{header(0x5d, 64<<20, 0), true},
		{header(0x5d, 1<<31, unknown), true},
		{header(0x5d, 3<<30, unknown), true},
		{header(0x5d, math.MaxUint32, unknown), true},
		{header(0x5d, 1<<20, 1<<38), true},

		{header(0x5d, 1<<20, 1<<38+1), false}, // over liblzma's bound
		{header(0x5d, 1<<20, unknown-1), false},
		{header(0x5d, 2<<10, unknown), false}, // under 4 KiB
		{header(0x5d, 0, unknown), false},
		{header(0x5d, lzma.MinDictCap-1, unknown), false},
		{header(0x5d, lzma.MinDictCap+1, unknown), false},
		{header(0x5d, 5<<20, unknown), false}, // 2^22+2^20
		{header(0x5d, 7<<20, unknown), false},
		{header(0x5d, math.MaxUint32-1, unknown), false},
		{header(0x5e, 8<<20, unknown), false}, // lc=4
		{header(0x5c, 8<<20, unknown), false},
		{header(0x00, 8<<20, unknown), false},
		{header(0x0a, 8<<20, unknown), false}, // an OTLP protobuf's first byte
		{header(0x5d, 8<<20, unknown)[:12], false},
		{"", false},
		{"]", false},
		{"]\n", false},
		{"] not a ledger line\n", false},
		{"]]]]]]]]]]]]]]]]", false},
		{"]\x00\x00\x80\x00 text", false},
		{`{"type":"attempt"}`, false},
	} {
		if got := isLZMA([]byte(tt.header)); got != tt.want {
			t.Errorf("isLZMA(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}

	// An ExportTraceServiceRequest, as the OTLP file exporter writes it
	// with format: proto: resource_spans (0x0a) holding a resource with
	// the attribute service.name; and the same after a 4-byte length.
	str := func(tag byte, s []byte) []byte { return slices.Concat([]byte{tag, byte(len(s))}, s) }
	attr := str(0x0a, slices.Concat(str(0x0a, []byte("service.name")), str(0x12, str(0x0a, []byte("checkout")))))
	otlp := str(0x0a, str(0x0a, attr))
	framed := slices.Concat(binary.BigEndian.AppendUint32(nil, uint32(len(otlp))), otlp)
	for _, in := range [][]byte{
		otlp,
		framed,
		[]byte("]\n" + ledger),
		[]byte("] " + strings.Repeat("x", 100)),
		[]byte(header(0x5d, 1<<20, 1<<38+1) + "\n"),
		[]byte(header(0x5e, 1<<20, unknown) + "\n"),
		[]byte(header(0x5d, 5<<20, unknown) + "\n"),
		[]byte(header(0x5d, 8<<20, unknown)[:12]),
	} {
		if got := readFromReader(t, in); !bytes.Equal(got, in) {
			t.Errorf("% x read as % x, want it as it is", in, got)
		}
	}
}

// TestLZMADictSizesHoldNoText checks the reason no text is taken for
// .lzma: every dictionary size the sniffer takes holds a NUL byte, which
// text does not, or is four 0xFF bytes, which UTF-8 never holds. It checks
// every size the sniffer takes (2^n and 2^n+2^(n-1)) and many it does not.
func TestLZMADictSizesHoldNoText(t *testing.T) {
	taken := map[uint32]bool{}
	check := func(d uint32) {
		if !validLZMADict(d) {
			return
		}
		taken[d] = true
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], d)
		if bytes.Count(b[:], []byte{0}) < 2 && d != math.MaxUint32 {
			t.Errorf("dictionary size %#x is taken and holds fewer than two NUL bytes", d)
		}
	}
	check(math.MaxUint32)
	check(math.MaxUint32 - 1)
	for n := range 32 {
		for _, d := range []uint32{1 << n, 1<<n + 1<<max(n-1, 0), 1<<n - 1, 1<<n + 1} {
			check(d)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		check(r.Uint32())
	}
	// 2^12 to 2^31 (20), 3*2^11 to 3*2^30 (20), and 2^32-1.
	if len(taken) != 20+20+1 {
		t.Errorf("%d dictionary sizes taken, want 41", len(taken))
	}
	for n := 12; n < 32; n++ {
		if !validLZMADict(1<<n) || !validLZMADict(3<<(n-1)) {
			t.Errorf("2^%d or 3*2^%d not taken", n, n-1)
		}
	}
	if validLZMADict(1<<11) || validLZMADict(3<<10) {
		t.Errorf("a dictionary under 4 KiB taken")
	}
}

// TestLZMAAsXZ checks that what xz -dc --format=lzma reads, this reads,
// and what it refuses, this refuses: trailing data, a stated size with
// an end marker or without one, sizes that do not match. It is skipped
// without xz.
func TestLZMAAsXZ(t *testing.T) {
	xzPath, err := exec.LookPath("xz")
	if err != nil {
		t.Skip("no xz command")
	}
	plain := []byte(strings.Repeat(ledger, 100))
	small := lzma.WriterConfig{DictCap: lzma.MinDictCap}
	eos := lzmaWith(t, small, plain)
	sized := lzmaSized(t, plain, false)
	files := map[string][]byte{
		"end marker":                    eos,
		"size":                          sized,
		"size and end marker":           lzmaSized(t, plain, true),
		"empty":                         lzmaWith(t, small, nil),
		"garbage after":                 slices.Concat(eos, []byte("garbage\n")),
		"zeros after":                   slices.Concat(eos, make([]byte, 4)),
		"two streams":                   slices.Concat(eos, eos),
		"garbage after a stated size":   slices.Concat(sized, []byte("x")),
		"size one short":                withLZMAHeader(sized, lzma.MinDictCap, ptr(uint64(len(plain)-1))),
		"size one over":                 withLZMAHeader(sized, lzma.MinDictCap, ptr(uint64(len(plain)+1))),
		"size under the end marker":     withLZMAHeader(eos, lzma.MinDictCap, ptr(uint64(len(plain)-1))),
		"no size and no end marker":     withLZMAHeader(sized, lzma.MinDictCap, ptr(uint64(math.MaxUint64))),
		"cut by a byte":                 eos[:len(eos)-1],
		"cut by a byte, size stated":    sized[:len(sized)-1],
		"xz --format=lzma, 4 KiB dict":  readTestdata(t, "four-operations.ndjson.dict4k.lzma"),
		"a 1 MiB dictionary, incompr.":  lzmaWith(t, lzma.WriterConfig{DictCap: 1 << 20}, incompressible(5000)),
		"a 6 KiB dictionary, with size": lzmaWith(t, lzma.WriterConfig{DictCap: 6 << 10, Size: int64(len(plain))}, plain),
		// A stated size of 0: with the range coder's five zero bytes
		// alone (an empty file with its size stated), with an end
		// marker, with a range coder that has not ended, cut short,
		// with data after.
		"size 0":                             slices.Concat(lzmaEmptyHeader, make([]byte, 5)),
		"size 0 and an end marker":           withLZMAHeader(lzmaWith(t, small, nil), lzma.MinDictCap, ptr(uint64(0))),
		"size 0, range coder not at its end": slices.Concat(lzmaEmptyHeader, []byte{0, 0, 0, 0, 1}),
		"size 0, cut short":                  slices.Concat(lzmaEmptyHeader, make([]byte, 4)),
		"size 0, data after":                 slices.Concat(lzmaEmptyHeader, make([]byte, 6)),
	}
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(xzPath, "-dc", "--format=lzma")
			cmd.Stdin = bytes.NewReader(file)
			want, xzErr := cmd.Output()
			got, gotErr := readAll(file)
			if (xzErr == nil) != (gotErr == "") {
				t.Fatalf("error %q, where xz's is %v", gotErr, xzErr)
			}
			if xzErr == nil && got != string(want) {
				t.Errorf("read %d bytes, where xz reads %d", len(got), len(want))
			}
		})
	}
}

// FuzzLZMAReader feeds any bytes to FromReader, and to the .lzma reader
// whatever its header: an error or bytes, never a panic or a hang, and a
// stream whose header states its size never reads to another size.
func FuzzLZMAReader(f *testing.F) {
	plain := []byte(strings.Repeat(ledger, 20))
	small := lzma.WriterConfig{DictCap: lzma.MinDictCap}
	f.Add(lzmaWith(f, small, plain))
	f.Add(lzmaSized(f, plain, false))
	f.Add(lzmaSized(f, plain, true))
	f.Add(lzmaWith(f, small, nil))
	f.Add(slices.Concat(lzmaEmptyHeader, make([]byte, 5)))
	f.Add(lzmaWith(f, small, lz4Of(f, plain)))
	f.Add([]byte("]\n" + ledger))
	f.Fuzz(func(t *testing.T, in []byte) {
		// Through the sniffer, unless the header asks for a dictionary
		// that makes each run slow to allocate: the reader below takes
		// those with a smaller limit.
		if !isLZMA(in) || binary.LittleEndian.Uint32(in[1:5]) <= 1<<20 {
			if src, err := FromReader("in", bytes.NewReader(in), int64(len(in))); err == nil {
				io.Copy(io.Discard, io.LimitReader(src, 16<<20))
				src.Close()
			}
		}
		if len(in) < lzma.HeaderLen {
			return
		}
		lr, err := newLZMAReader(bufioReader(in), 1<<20, false)
		if err != nil {
			return
		}
		got, err := io.ReadAll(io.LimitReader(lr, 16<<20))
		size := binary.LittleEndian.Uint64(in[5:13])
		if err == nil && len(got) < 16<<20 && size != math.MaxUint64 && uint64(len(got)) != size {
			t.Errorf("read %d bytes, where the header states %d", len(got), size)
		}
	})
}

package input

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

const ledger = `{"type":"attempt","operationId":"op-1"}` + "\n"

// compress returns data as the writer that newWriter makes compresses
// it.
func compress(t testing.TB, data []byte, newWriter func(io.Writer) (io.WriteCloser, error)) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := newWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gzipOf(t testing.TB, data []byte) []byte {
	return compress(t, data, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil })
}

func zstdOf(t testing.TB, data []byte) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(data, nil)
}

func xzOf(t testing.TB, data []byte) []byte { return xzWith(t, xz.WriterConfig{}, data) }

// skippable is a zstd skippable frame of magic 0x184D2A5n holding four
// bytes, as pzstd writes one before every frame.
func skippable(n byte) []byte {
	return []byte{0x50 | n, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4}
}

// readFromReader reads in through FromReader, failing t on an error, and
// checks that the whole of in was read.
func readFromReader(t *testing.T, in []byte) []byte {
	t.Helper()
	src, err := FromReader("in", bytes.NewReader(in), int64(len(in)))
	if err != nil {
		t.Fatalf("FromReader: %v", err)
	}
	got, err := io.ReadAll(src)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if err := src.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if src.Consumed() != int64(len(in)) {
		t.Errorf("Consumed() = %d, want all %d bytes", src.Consumed(), len(in))
	}
	return got
}

// TestFromReaderSniffs checks that each compression, and compressions
// inside one another, are recognised by their first bytes alone, and that
// what is read is the ledger.
func TestFromReaderSniffs(t *testing.T) {
	plain := []byte(ledger)
	bz2, err := os.ReadFile(filepath.Join("testdata", "four-operations.ndjson.bz2"))
	if err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(filepath.Join("..", "fixtures", "four-operations.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	nested := plain
	for range maxLayers {
		nested = gzipOf(t, nested)
	}
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"plain", plain, plain},
		{"empty", nil, nil},
		{"one byte", []byte("{"), []byte("{")},
		{"gzip", gzipOf(t, plain), plain},
		{"zstd", zstdOf(t, plain), plain},
		{"zstd after a skippable frame", append(skippable(0), zstdOf(t, plain)...), plain},
		{"zstd after the last skippable magic", append(skippable(0xf), zstdOf(t, plain)...), plain},
		{"xz", xzOf(t, plain), plain},
		{"bzip2", bz2, fixture},
		{"gzip of zstd", gzipOf(t, zstdOf(t, plain)), plain},
		{"xz of gzip", xzOf(t, gzipOf(t, plain)), plain},
		{"as deep as allowed", nested, plain},
		{"BZh without a block size is text", []byte("BZh0 not bzip2\n"), []byte("BZh0 not bzip2\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readFromReader(t, tt.in)
			if diff := cmp.Diff(string(tt.want), string(got)); diff != "" {
				t.Errorf("read (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFromReaderRefuses checks the inputs refused before any line is read,
// each with an error saying what the input is.
func TestFromReaderRefuses(t *testing.T) {
	tooDeep := []byte(ledger)
	for range maxLayers + 1 {
		tooDeep = gzipOf(t, tooDeep)
	}
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"UTF-16LE with a byte order mark", []byte{0xff, 0xfe, '{', 0}, "the input is UTF-16"},
		{"UTF-16BE with a byte order mark", []byte{0xfe, 0xff, 0, '{'}, "the input is UTF-16"},
		{"UTF-16LE without one", []byte{'{', 0, '"', 0}, "the input looks like UTF-16"},
		{"UTF-16BE without one", []byte{0, '{', 0, '"'}, "the input looks like UTF-16"},
		{"zip", []byte("PK\x03\x04\x14\x00"), "the input is a zip archive"},
		{"compressed too often", tooDeep, "compressed more than 4 times over"},
		{"a gzip magic with no header", []byte{0x1f, 0x8b}, "reading the gzip header"},
		{"UTF-16 inside gzip", gzipOf(t, []byte{0xff, 0xfe, '{', 0}), "inside the compressed stream: the input is UTF-16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := FromReader("in", bytes.NewReader(tt.in), -1)
			if err == nil {
				src.Close()
				t.Fatalf("FromReader accepted the input; want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestMagic(t *testing.T) {
	for _, tt := range []struct {
		magic       string
		zstd, bzip2 bool
	}{
		{"\x28\xb5\x2f\xfd", true, false},
		{"\x50\x2a\x4d\x18", true, false},
		{"\x5f\x2a\x4d\x18", true, false},
		{"\x60\x2a\x4d\x18", false, false},
		{"\x4f\x2a\x4d\x18", false, false},
		{"\x28\xb5\x2f", false, false},
		{"BZh1", false, true},
		{"BZh9", false, true},
		{"BZh0", false, false},
		{"BZh:", false, false},
		{"BZh", false, false},
		{`{"ty`, false, false},
	} {
		if got := isZstd([]byte(tt.magic)); got != tt.zstd {
			t.Errorf("isZstd(%q) = %v, want %v", tt.magic, got, tt.zstd)
		}
		if got := isBzip2([]byte(tt.magic)); got != tt.bzip2 {
			t.Errorf("isBzip2(%q) = %v, want %v", tt.magic, got, tt.bzip2)
		}
	}
}

// FuzzFromReader feeds any bytes, and any bytes behind each magic number,
// to FromReader and reads what it gives: it must return an error or bytes,
// never panic, and a plain input must come out as it went in.
func FuzzFromReader(f *testing.F) {
	f.Add([]byte(ledger))
	f.Add(gzipOf(f, []byte(ledger)))
	f.Add(zstdOf(f, []byte(ledger)))
	f.Add(xzOf(f, []byte(ledger)))
	f.Add(lz4Of(f, []byte(ledger)))
	f.Add(lzmaOf(f, []byte(ledger)))
	f.Add(gzipOf(f, lzmaOf(f, lz4Of(f, []byte(ledger)))))
	f.Add([]byte("BZh91AY&SY"))
	f.Add([]byte{0xff, 0xfe, '{', 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		src, err := FromReader("in", bytes.NewReader(in), int64(len(in)))
		if err != nil {
			return
		}
		defer src.Close()
		// Bounded: a few bytes may decompress to many.
		got, _ := io.ReadAll(io.LimitReader(src, 1<<20))
		plain := len(in) == 0 || in[0] == '{'
		if plain && !bytes.Equal(got, in[:min(len(in), 1<<20)]) {
			t.Errorf("a plain input came out changed: %q, want %q", got, in)
		}
	})
}

// TestEndsAtFirstEOF checks that a source ends at the first end of file
// its reader reports, as a terminal does for each ^D typed before reading
// on: what comes after it is not read, however often the layers above
// read again.
func TestEndsAtFirstEOF(t *testing.T) {
	typed := []byte("typed after ^D\n")
	for _, tc := range []struct {
		name        string
		first, want []byte
	}{
		{"text", []byte(ledger), []byte(ledger)},
		{"empty", nil, nil},
		{"gzip", gzipOf(t, []byte(ledger)), []byte(ledger)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, err := FromReader("in", &typedTwice{parts: [][]byte{tc.first, typed}}, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var got []byte
			for range 3 { // read on after the end, as bufio may
				b, err := io.ReadAll(src)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, b...)
			}
			if !bytes.Equal(got, tc.want) {
				t.Errorf("read %q, want %q", got, tc.want)
			}
		})
	}
}

// typedTwice reads as a terminal that gets parts[0], ^D, parts[1], ^D.
type typedTwice struct {
	parts [][]byte
}

func (r *typedTwice) Read(p []byte) (int, error) {
	switch {
	case len(r.parts) == 0:
		return 0, io.EOF
	case len(r.parts[0]) == 0:
		r.parts = r.parts[1:]
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	return n, nil
}

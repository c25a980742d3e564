package input

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// TestGzipMembersAndPadding checks that gzip members are read one after
// another and that zero bytes after the last are ignored, as gzip -d
// ignores them, in any layer and however the reads fall.
func TestGzipMembersAndPadding(t *testing.T) {
	plain := []byte(ledger)
	other := []byte(`{"type":"effect","operationId":"op-2","result":"absent"}` + "\n")
	zeros := func(n int) []byte { return make([]byte, n) }
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"one member", gzipOf(t, plain), plain},
		{"two members", slices.Concat(gzipOf(t, plain), gzipOf(t, other)), slices.Concat(plain, other)},
		{"an empty member between", slices.Concat(gzipOf(t, plain), gzipOf(t, nil), gzipOf(t, other)), slices.Concat(plain, other)},
		{"one zero byte after", slices.Concat(gzipOf(t, plain), zeros(1)), plain},
		{"a tape block of zeros after", slices.Concat(gzipOf(t, plain), gzipOf(t, other), zeros(512)), slices.Concat(plain, other)},
		{"more zeros than a buffer holds", slices.Concat(gzipOf(t, plain), zeros(200<<10)), plain},
		{"padded gzip inside zstd", zstdOf(t, slices.Concat(gzipOf(t, plain), zeros(100))), plain},
		{"padded gzip inside padded gzip", slices.Concat(gzipOf(t, slices.Concat(gzipOf(t, plain), zeros(3))), zeros(3)), plain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, readFromReader(t, tt.in)); diff != "" {
				t.Errorf("read (-want +got):\n%s", diff)
			}
			// A byte at a time, so that a member's end falls at the end
			// of a read and the padding is met in pieces.
			src, err := FromReader("in", iotest.OneByteReader(bytes.NewReader(tt.in)), -1)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			got, err := io.ReadAll(iotest.OneByteReader(src))
			if err != nil {
				t.Fatalf("reading a byte at a time: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("read a byte at a time (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGzipTrailingData checks that data after the last gzip member that is
// neither a member nor zero bytes is refused by that name, not as a bad
// header, and that a stream cut short says so, for every format.
func TestGzipTrailingData(t *testing.T) {
	plain := []byte(ledger)
	member := gzipOf(t, plain)
	bz2, err := os.ReadFile(filepath.Join("testdata", "four-operations.ndjson.bz2"))
	if err != nil {
		t.Fatal(err)
	}
	half := func(b []byte) []byte { return b[:len(b)/2] }
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"text after", slices.Concat(member, []byte("garbage\n")), errAfterGzip.Error()},
		{"a zero, then text", slices.Concat(member, []byte{0, 0, 'x'}), errAfterPadding.Error()},
		{"zeros, then a member", slices.Concat(member, make([]byte, 10), member), errAfterPadding.Error()},
		{"zeros past a buffer, then a byte", slices.Concat(member, make([]byte, 100<<10), []byte{1}), errAfterPadding.Error()},
		{"inside zstd", zstdOf(t, slices.Concat(member, []byte("x"))), errAfterGzip.Error()},
		{"one byte of a magic after", slices.Concat(member, gzipMagic[:1]), errAfterGzip.Error()},
		{"a member cut in its header", slices.Concat(member, member[:5]), "the gzip stream is cut short (is the file complete?): unexpected EOF"},
		{"gzip cut short", half(member), "the gzip stream is cut short (is the file complete?): unexpected EOF"},
		{"zstd cut short", half(zstdOf(t, bytes.Repeat(plain, 50))), "the zstd stream is cut short (is the file complete?): unexpected EOF"},
		{"xz cut short", half(xzOf(t, plain)), "the xz stream is cut short (is the file complete?): unexpected EOF"},
		{"bzip2 cut short", half(bz2), "the bzip2 stream is cut short (is the file complete?): unexpected EOF"},
		{"lz4 cut short", half(lz4Of(t, plain)), "the lz4 stream is cut short (is the file complete?): unexpected EOF"},
		{"lzma cut short", half(lzmaOf(t, plain)), "the lzma stream is cut short (is the file complete?): unexpected EOF"},
		{"gzip cut short inside xz", xzOf(t, half(member)), "inside the compressed stream: the gzip stream is cut short (is the file complete?): unexpected EOF"},
		{"gzip cut in its header", member[:5], "the gzip stream is cut short (is the file complete?): reading the gzip header: unexpected EOF"},
		{"xz cut in its index", xzOf(t, plain)[:len(xzOf(t, plain))-18], "the xz stream is cut short (is the file complete?): xz: reading the index: unexpected EOF"},
		// The outer layer is cut where the inner one is sniffed: the
		// cut is the outer layer's, not inside it.
		{"gzip of zstd cut short", half(gzipOf(t, zstdOf(t, incompressible(3000)))), "the gzip stream is cut short (is the file complete?): unexpected EOF"},
		{"gzip of gzip cut short", half(gzipOf(t, gzipOf(t, incompressible(3000)))), "the gzip stream is cut short (is the file complete?): unexpected EOF"},
		{"zstd inside gzip cut short", gzipOf(t, half(zstdOf(t, incompressible(3000)))), "inside the compressed stream: the zstd stream is cut short (is the file complete?): unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := readAll(tt.in)
			if got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGzipReadError checks that a read error met where a member's end is
// looked past, or in the padding, is returned as it is, not taken for the
// end of the input: also an error that a reader returns once only, which
// bufio passes on once only.
func TestGzipReadError(t *testing.T) {
	broken := errors.New("disk on fire")
	member := gzipOf(t, []byte(ledger))
	tests := []struct {
		name  string
		after []byte // what comes between the member and the error
		once  bool   // EOF follows the error
	}{
		{"right after the member", nil, false},
		{"right after the member, once", nil, true},
		{"after a zero byte", []byte{0}, false},
		{"after a zero byte, once", []byte{0}, true},
		{"in the padding", make([]byte, 10), false},
		{"in the padding, once", make([]byte, 10), true},
		{"past a buffer of padding, once", make([]byte, 100<<10), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var failing io.Reader = iotest.ErrReader(broken)
			if tt.once {
				failing = &errOnce{err: broken}
			}
			r := io.MultiReader(bytes.NewReader(member), bytes.NewReader(tt.after), failing)
			gr, err := newGzipReader(bufio.NewReader(r))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadAll(gr); !errors.Is(err, broken) {
				t.Errorf("error %v, want %v", err, broken)
			}
		})
	}
}

// errOnce fails its first read with err, and reads as empty after that.
type errOnce struct {
	err  error
	done bool
}

func (e *errOnce) Read([]byte) (int, error) {
	if e.done {
		return 0, io.EOF
	}
	e.done = true
	return 0, e.err
}

package input

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestCutShortErrorIsTyped checks that a cut stream is a *CutShortError
// that still is io.ErrUnexpectedEOF, and that an inner layer does not take
// an outer layer's cut for its own.
func TestCutShortErrorIsTyped(t *testing.T) {
	plain := []byte(ledger)
	big := incompressible(200 << 10) // past the sniffing, so the cut is met by a read
	tests := []struct {
		name  string
		in    []byte
		want  string
		inner bool
	}{
		{"gzip", gzipOf(t, big)[:1000], "gzip", false},
		{"gzip of zstd, the gzip cut", gzipOf(t, zstdOf(t, big))[:100<<10], "gzip", false},
		{"zstd inside gzip, the zstd cut", gzipOf(t, zstdOf(t, big)[:100<<10]), "zstd", true},
		{"xz of gzip, the gzip cut", xzOf(t, gzipOf(t, plain)[:10]), "gzip", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := FromReader("in", bytes.NewReader(tt.in), -1)
			if err == nil {
				defer src.Close()
				_, err = io.ReadAll(src)
			}
			var ce *CutShortError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is no *CutShortError", err)
			}
			if ce.Format != tt.want || ce.Inner != tt.inner {
				t.Errorf("cut %s (inner %v), want %s (inner %v): %v", ce.Format, ce.Inner, tt.want, tt.inner, err)
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("error %v is not io.ErrUnexpectedEOF", err)
			}
		})
	}
}

// TestEveryCutIsCutShort cuts a file of each format at every byte past
// its first few and checks that reading it fails with a *CutShortError
// naming the format: what a user with a truncated download sees.
func TestEveryCutIsCutShort(t *testing.T) {
	plain := []byte(ledger)
	bz2, err := os.ReadFile(filepath.Join("testdata", "four-operations.ndjson.bz2"))
	if err != nil {
		t.Fatal(err)
	}
	files := []struct {
		format string
		file   []byte
	}{
		{"gzip", gzipOf(t, plain)}, {"zstd", zstdOf(t, plain)}, {"xz", xzOf(t, plain)},
		{"bzip2", bz2}, {"lz4", lz4Of(t, plain)}, {"lzma", lzmaOf(t, plain)},
	}
	for _, f := range files {
		// Shorter than sniffLen, a file may be no file of the format
		// at all (an .lzma header is 13 bytes): it is then text.
		for n := sniffLen; n < len(f.file); n++ {
			src, err := FromReader("in", bytes.NewReader(f.file[:n]), -1)
			if err == nil {
				_, err = io.ReadAll(src)
				src.Close()
			}
			var ce *CutShortError
			if !errors.As(err, &ce) || ce.Format != f.format || ce.Inner {
				t.Errorf("%s cut to %d of %d bytes: error %v, want the %s stream cut short", f.format, n, len(f.file), err, f.format)
			}
		}
	}
}

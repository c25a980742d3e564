package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ulikunitz/xz/lzma"
)

// TestBlockDict checks the dictionary a block's decoder gets: the header's,
// or the block's stated uncompressed size when smaller, never below the
// library's least.
func TestBlockDict(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		dict, uncompressed, want int64
	}{
		{64 * mib, -1, 64 * mib}, // no stated size
		{64 * mib, 0, lzma.MinDictCap},
		{64 * mib, 512, lzma.MinDictCap},
		{64 * mib, lzma.MinDictCap + 1, lzma.MinDictCap + 1},
		{64 * mib, 3 * mib, 3 * mib},
		{8 * mib, 8 * mib, 8 * mib},
		{8 * mib, 8*mib + 1, 8 * mib},
		{8 * mib, 1 << 40, 8 * mib},
	}
	for _, tt := range tests {
		if got := blockDict(tt.dict, tt.uncompressed); got != tt.want {
			t.Errorf("blockDict(%d, %d) = %d, want %d", tt.dict, tt.uncompressed, got, tt.want)
		}
	}
}

// TestXZStatedSizesSmallDict reads a file that xz -9 -T2 --block-size=512
// wrote: 50 blocks, each stating its sizes and asking for a 64 MiB
// dictionary. Each block's decoder must get a dictionary of the block's
// size, not 64 MiB: the library allocates the whole dictionary per block,
// which made 3.2 GB of allocations for this 6 KB file.
func TestXZStatedSizesSmallDict(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "blocks-stated-sizes.ndjson.xz"))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for i := range 400 {
		fmt.Fprintf(&want, `{"type":"attempt","operationId":"op-%d","attemptId":"att-%d"}`+"\n", i, i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	src, err := FromReader("blocks.xz", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if diff := cmp.Diff(want.String(), string(got)); diff != "" {
		t.Fatalf("content (-want +got):\n%s", diff)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading 50 blocks of 512 bytes allocated %d MiB; each block's dictionary should be its stated size", alloc>>20)
	}
}

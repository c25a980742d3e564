package input

import (
	"fmt"
	"math"
	"strconv"
)

// The decoder memory a compressed layer may ask for. xz, lzma and zstd
// headers name the dictionary or window their decoder must keep, and a
// decoder that takes them at their word holds that much, up to 4 GiB,
// whatever the file holds: a few hundred bytes of one record repeated would
// cost gigabytes. Each layer of a nested input is held to the same limit,
// so an input costs at most maxLayers of them. gzip, bzip2 and lz4 need
// none: deflate's window is 32 KiB, a gzip header's extra field 64 KiB at
// most, a bzip2 block 900 kB (3.6 MB of tables) at most, and an lz4 block
// 4 MiB at most: the decoder keeps one compressed and one decompressed, and
// for dependent blocks a copy of the last with 64 KiB of history, 12 MiB
// in all at most (TestLZ4Memory). The legacy lz4 format is refused (see
// newLZ4Reader).
const (
	// xz -9 (and -8) uses a 64 MiB dictionary; only a custom
	// --lzma2=dict=SIZE asks for more. lzma -9 (xz --format=lzma -9)
	// uses 64 MiB too, and is held to the same limit.
	xzMaxDict = 64 << 20
	// zstd --ultra -22 and --long use a 128 MiB window, the largest the
	// zstd command line decompresses without --long=N or --memory.
	zstdMaxWindow = 128 << 20
)

// LimitError is a compressed input, or a compressed layer inside one, that
// asks for more decoder memory than effectaudit allows.
type LimitError struct {
	Format string // "xz", "lzma" or "zstd"
	Size   uint64 // the dictionary or window size its header asks for
	Limit  uint64
	// Inner is set for a layer inside the file's own compression, whose
	// advice (decompress it first) yields another compressed file. The
	// layer that meets the limit sets it: an error read through the
	// layers cannot tell which of them it came from.
	Inner bool
}

func (e *LimitError) Error() string {
	if e.Inner {
		return "inside the compressed stream: " + e.message()
	}
	return e.message()
}

func (e *LimitError) message() string {
	size := sizeString(e.Size)
	if size == sizeString(e.Limit) { // just over, as a zstd content size may be
		size = strconv.FormatUint(e.Size, 10) + " bytes"
	}
	switch e.Format {
	case "xz":
		return fmt.Sprintf("xz dictionary of %s is over effectaudit's limit of %s; decompress it first (xz -dc) and give the plain ledger, or recompress it with xz -9 or lower",
			size, sizeString(e.Limit))
	case "lzma":
		return fmt.Sprintf("lzma dictionary of %s is over effectaudit's limit of %s; decompress it first (xz -dc or unlzma -c) and give the plain ledger, or recompress it with xz -9 or lower",
			size, sizeString(e.Limit))
	}
	return fmt.Sprintf("zstd window of %s is over effectaudit's limit of %s; decompress it first (zstd -dc --long=31) and give the plain ledger, or recompress it with --long=27 or lower",
		size, sizeString(e.Limit))
}

// sizeString renders n bytes in KiB, MiB or GiB, to a tenth at most:
// xz's largest dictionary, 4 GiB less one byte, is "4 GiB".
func sizeString(n uint64) string {
	unit, div := "KiB", float64(1<<10)
	switch {
	case n >= 1<<30:
		unit, div = "GiB", 1<<30
	case n >= 1<<20:
		unit, div = "MiB", 1<<20
	case n < 1<<10:
		return strconv.FormatUint(n, 10) + " bytes"
	}
	return strconv.FormatFloat(math.Round(float64(n)/div*10)/10, 'f', -1, 64) + " " + unit
}

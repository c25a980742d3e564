package progress

import (
	"strconv"
	"strings"
)

// frame is what one progress line shows; render turns it into text with no
// clock or I/O, so the wording is tested apart from the timing.
type frame struct {
	bytes, total, records, ops   int64
	byteRate, recordRate         float64
	hasBytes, hasRecords, hasOps bool
}

// render gives, for a file (the bar beside the text shows the percentage):
//
//	1.21 GiB of 4.00 GiB, 412 MiB/s, 1.83M records/s, 52.3k operations
//
// and for standard input, whose size is unknown:
//
//	1.21 GiB, 412 MiB/s, 1.83M records/s, 52.3k operations
//
// Plain ASCII only, so its length is its width in columns.
func render(f frame) string {
	var parts []string
	if f.hasBytes {
		read := formatBytes(float64(f.bytes))
		if f.total > 0 {
			read += " of " + formatBytes(float64(f.total))
		}
		parts = append(parts, read, formatBytes(f.byteRate)+"/s")
	}
	if f.hasRecords {
		parts = append(parts, formatCount(f.recordRate)+" records/s")
	}
	if f.hasOps {
		parts = append(parts, formatCount(float64(f.ops))+" operations")
	}
	return strings.Join(parts, ", ")
}

// formatBytes uses binary units, as file sizes are listed by ls -h and du -h.
func formatBytes(n float64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatInt(int64(max(n, 0)), 10) + " B"
	}
	i := -1
	for n >= 1024 && i+1 < len(units) {
		n /= 1024
		i++
	}
	return threeDigits(n) + " " + units[i:i+1] + "iB"
}

// formatCount uses SI suffixes: records and operations run to millions.
func formatCount(n float64) string {
	const units = "kMGTPE"
	if n < 1000 {
		return strconv.FormatInt(int64(max(n+0.5, 0)), 10)
	}
	i := -1
	for n >= 1000 && i+1 < len(units) {
		n /= 1000
		i++
	}
	return threeDigits(n) + units[i:i+1]
}

// threeDigits keeps figures about three significant digits wide so the line
// does not jitter in length from one redraw to the next.
func threeDigits(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

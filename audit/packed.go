package audit

import (
	"math"
	"slices"
	"unsafe"
)

// Compact forms of the values an operation keeps. Millions of operations
// live at once, so a field's bytes are the audit's memory.

// stamp is an instant as nanoseconds since 1970, the form nearly every
// operation keeps times in (smaller still; see times.go): 8 bytes instead of
// Instant's 16. It spans the years 1678 to 2262 exactly; an operation
// observed outside them keeps Instants (see farTimes).
type stamp int64

// noStamp marks a time that was never observed, or that no stamp spans.
const noStamp = stamp(math.MinInt64)

// stampOf converts i, or reports that it lies outside the years a stamp
// spans.
func stampOf(i Instant) (stamp, bool) {
	const maxSec = math.MaxInt64/int64(1e9) - 1
	if i.Sec > maxSec || i.Sec < -maxSec {
		return noStamp, false
	}
	return stamp(i.Sec*1e9 + int64(i.Nsec)), true
}

func (s stamp) instant() Instant {
	sec, nsec := int64(s)/1e9, int64(s)%1e9
	if nsec < 0 {
		sec, nsec = sec-1, nsec+1e9
	}
	return Instant{Sec: sec, Nsec: int32(nsec)}
}

func (s stamp) String() string { return s.instant().String() }

// packedPos is a Position in 8 bytes: 16 bits of input index, 32 of line
// and 16 of the record's index within its line, in that order, so packed
// positions compare as positions do. An input index never goes past 16
// bits (see MaxInputs). A line number or record index beyond its range
// saturates, which keeps packed positions in input order, as the report's
// merge needs: operations first seen past a saturated line or index tie,
// and are ordered by id. (An input index that saturated would not: line
// numbers start again with each input.)
type packedPos uint64

func pack(p Position) packedPos {
	sat := func(v int, bits uint) uint64 { return min(uint64(max(v, 0)), 1<<bits-1) } // in 64 bits on any platform
	return packedPos(sat(p.Input, 16)<<48 | sat(p.Line, 32)<<16 | sat(p.Seq, 16))
}

func (p packedPos) unpack() Position {
	return Position{Input: int(p >> 48), Line: int(p >> 16 & (1<<32 - 1)), Seq: int(p & (1<<16 - 1))}
}

// label is a Label in one byte.
type label uint8

const (
	lUncertain label = iota
	lKeyConflict
	lDuplicate
	lHealthy
	lAbsent
)

var labelNames = [...]Label{lUncertain: Uncertain, lKeyConflict: KeyConflict, lDuplicate: Duplicate, lHealthy: Healthy, lAbsent: Absent}

func (l label) name() Label { return labelNames[l] }

// findingSet has bit i set when findingCodes[i] applies.
type findingSet uint16

func (f findingSet) has(c findingCode) bool { return f&(1<<c) != 0 }

// The common payload hash, "sha256:" and 64 lower-case hex digits, is kept
// as its 32 bytes behind a 0xFF marker: 33 bytes instead of 71. No decoded
// JSON string holds the byte 0xFF (the reader rejects invalid UTF-8), so a
// compact hash never equals a hash kept as written.
const (
	sha256Prefix  = "sha256:"
	compactMarker = 0xFF
)

// compactHash returns the compact form of h in buf, or h itself.
func compactHash(h string, buf *[33]byte) string {
	if len(h) != len(sha256Prefix)+64 || h[:len(sha256Prefix)] != sha256Prefix {
		return h
	}
	buf[0] = compactMarker
	hex := h[len(sha256Prefix):]
	bad := byte(0)
	for i := range 32 {
		hi, lo := hexValue[hex[2*i]], hexValue[hex[2*i+1]]
		bad |= hi | lo
		buf[1+i] = hi<<4 | lo&15
	}
	if bad&0x10 != 0 { // a byte that is not a lower-case hex digit
		return h
	}
	// Aliases buf: the caller's set copies it only when it is new.
	return unsafe.String(&buf[0], len(buf))
}

// isCompact reports whether h is a hash compactHash made compact.
func isCompact(h string) bool { return len(h) == 33 && h[0] == compactMarker }

// expandHash undoes compactHash.
func expandHash(h string) string {
	if !isCompact(h) {
		return h
	}
	return string(appendExpandedHash(make([]byte, 0, len(sha256Prefix)+64), h))
}

// appendExpandedHash appends h as written, expanding it if it is compact.
func appendExpandedHash(dst []byte, h string) []byte {
	if !isCompact(h) {
		return append(dst, h...)
	}
	const digits = "0123456789abcdef"
	dst = append(dst, sha256Prefix...)
	for i := 1; i < 33; i++ {
		dst = append(dst, digits[h[i]>>4], digits[h[i]&15])
	}
	return dst
}

func expandHashes(hs []string) []string {
	for i, h := range hs {
		hs[i] = expandHash(h)
	}
	return hs
}

// sortHashes sorts hashes as their expansions sort. Compact hashes sort
// among themselves as their lower-case hex does, so when all are compact,
// as they mostly are, none is expanded.
func sortHashes(hs []string) []string {
	for _, h := range hs {
		if !isCompact(h) {
			slices.Sort(expandHashes(hs))
			return hs
		}
	}
	slices.Sort(hs)
	return hs
}

// hexValue maps a lower-case hex digit to its value and any other byte to
// 0x10, a bit no digit has.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0x10
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - 'a' + 10
	}
	return t
}()

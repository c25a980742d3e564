package audit

import "math"

// Compact forms of the values an operation keeps. Millions of operations
// live at once, so a field's bytes are the audit's memory.

// stamp is an instant as nanoseconds since 1970, the form operations keep
// their times in: 8 bytes instead of Instant's 16. It spans the years 1678
// to 2262 exactly; instants outside are clamped to those bounds (so two
// instants both before 1678 compare equal), which no trace of a running
// system reaches.
type stamp int64

// noStamp marks a time that was never observed.
const noStamp = stamp(math.MinInt64)

func stampOf(i Instant) stamp {
	const maxSec = math.MaxInt64/int64(1e9) - 1
	switch {
	case i.Sec > maxSec:
		return math.MaxInt64
	case i.Sec < -maxSec:
		return math.MinInt64 + 1
	}
	return stamp(i.Sec*1e9 + int64(i.Nsec))
}

func (s stamp) instant() Instant {
	sec, nsec := int64(s)/1e9, int64(s)%1e9
	if nsec < 0 {
		sec, nsec = sec-1, nsec+1e9
	}
	return Instant{Sec: sec, Nsec: int32(nsec)}
}

func (s stamp) String() string { return s.instant().String() }

// packedPos is a Position in 8 bytes: 12 bits of input index, 36 of line
// and 16 of the record's index within its line, in that order, so packed
// positions compare as positions do. Beyond those ranges positions saturate,
// and operations that then tie are ordered by id.
type packedPos uint64

func pack(p Position) packedPos {
	sat := func(v, bits int) uint64 { return uint64(min(max(v, 0), 1<<bits-1)) }
	return packedPos(sat(p.Input, 12)<<52 | sat(p.Line, 36)<<16 | sat(p.Seq, 16))
}

func (p packedPos) unpack() Position {
	return Position{Input: int(p >> 52), Line: int(p >> 16 & (1<<36 - 1)), Seq: int(p & (1<<16 - 1))}
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

// findingSet has bit i set when FindingCodes[i] applies.
type findingSet uint16

func (f findingSet) has(c findingCode) bool { return f&(1<<c) != 0 }

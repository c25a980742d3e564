package audit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTimesReadBackExactly folds instants into operations, compact, wide
// and far, and checks every instant and key-pair span against a plain model
// that keeps full instants. The second key pair comes halfway, after the
// operation may have gone wide or far.
func TestTimesReadBackExactly(t *testing.T) {
	const maxStamp = stamp(math.MaxInt64/int64(1e9)-1) * 1e9
	base := stamp(1_772_400_000) * 1e9 // 2026
	at := func(s stamp) Instant { return s.instant() }
	kinds := []func(rng *rand.Rand) Instant{
		func(rng *rand.Rand) Instant { return at(base + stamp(rng.IntN(600_000))*1e6) },       // ms, minutes apart
		func(rng *rand.Rand) Instant { return at(base + stamp(rng.IntN(600_000_000))) },       // ns
		func(rng *rand.Rand) Instant { return at(base + stamp(rng.IntN(100))*86_400*1e9) },    // days, beyond 24 of them
		func(rng *rand.Rand) Instant { return at([]stamp{maxStamp, -maxStamp}[rng.IntN(2)]) }, // the ends of a stamp's range
		func(rng *rand.Rand) Instant { // beyond them, years 0000 to 9999
			return Instant{Sec: -62_167_219_200 + rng.Int64N(315_537_897_600), Nsec: int32(rng.IntN(1e9))}
		},
	}
	for seed := range uint64(250) {
		rng := rand.New(rand.NewPCG(seed, 2))
		a := New(nil)
		op := a.op("op", Position{})
		a.bind(op, "", "k1", a.tableHash("\x00k1"), 0)
		pairs := []*opPair{a.findPair(op, 0)}

		var want [nTimes]Instant
		for i := range want {
			want[i] = noInstant
		}
		wantSpan := [2][2]Instant{{noInstant, noInstant}, {noInstant, noInstant}}
		// Mostly millisecond instants; a seed may bring two of the others
		// in at any point, and the operation goes wide or far from there
		// on, or wide and then far.
		odd := [2]func(rng *rand.Rand) Instant{kinds[1+rng.IntN(len(kinds)-1)], kinds[1+rng.IntN(len(kinds)-1)]}
		for k := range 40 {
			if k == 20 {
				a.bind(op, "", "k2", a.tableHash("\x00k2"), 0)
				pairs = append(pairs, a.findPair(op, 1))
			}
			i := kinds[0](rng)
			if rng.IntN(int(seed%8)+1) == 0 {
				i = odd[rng.IntN(2)](rng)
			}
			if rng.IntN(3) == 0 {
				p := rng.IntN(len(pairs))
				a.trackPair(op, pairs[p], momentOf(i))
				wantSpan[p] = [2]Instant{foldInstant(wantSpan[p][0], i, true), foldInstant(wantSpan[p][1], i, false)}
				continue
			}
			ti, min := rng.IntN(nTimes), rng.IntN(2) == 0
			a.track(op, ti, momentOf(i), min)
			want[ti] = foldInstant(want[ti], i, min)
		}
		for ti := range want {
			if got := a.time(op, ti); got != want[ti] {
				t.Fatalf("seed %d (flags %b): instant %d = %v, want %v", seed, op.flags, ti, got, want[ti])
			}
		}
		for p := range pairs {
			first, last := a.pairSpan(op, pairs[p])
			if first != wantSpan[p][0] || last != wantSpan[p][1] {
				t.Fatalf("seed %d (flags %b): pair %d spans %v to %v, want %v to %v",
					seed, op.flags, p, first, last, wantSpan[p][0], wantSpan[p][1])
			}
		}
	}
}

func TestDeltaOf(t *testing.T) {
	base := stamp(1_772_400_000) * 1e9
	for _, tt := range []struct {
		name string
		s    stamp
		ok   bool
	}{
		{"same instant", base, true},
		{"a millisecond later", base + 1e6, true},
		{"a millisecond earlier", base - 1e6, true},
		{"a nanosecond later", base + 1, false},
		{"24 days later", base + 24*86_400*1e9, true},
		{"25 days later", base + 25*86_400*1e9, false},
		{"25 days earlier", base - 25*86_400*1e9, false},
		{"the far end", stamp(math.MaxInt64), false},
	} {
		op := operation{base: base}
		d, ok := op.deltaOf(tt.s)
		if ok != tt.ok {
			t.Errorf("%s: ok = %v, want %v", tt.name, ok, tt.ok)
		}
		if ok && op.stampOf(d) != tt.s {
			t.Errorf("%s: reads back as %v", tt.name, op.stampOf(d))
		}
	}
}

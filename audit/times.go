package audit

import "math"

// An operation keeps nine instants (see tFirstSeen and the rest) and, for
// each key pair, the span of the attempts made under it: most of its
// memory, at 8 bytes an instant. Traces stamp records to the millisecond or
// coarser, and an operation's records lie within days of each other, so an
// operation keeps each instant as a signed count of milliseconds from its
// first one: 4 bytes. An operation with an instant that is not a whole
// number of milliseconds from the first, or more than 24 days away from it,
// goes wide: its instants move, exact, to a side table. So does one with
// an instant outside the years 1678 to 2262, which a stamp does not span.
// Either way an instant reads back exactly as it was observed.

// delta is an instant as milliseconds from its operation's base.
type delta int32

// noDelta marks an instant never observed.
const noDelta = delta(math.MinInt32)

// wideTimes are the instants of a wide operation.
type wideTimes struct {
	times [nTimes]Instant
	pairs map[int32][2]Instant // by binding: the first and last attempt
}

// noInstant marks an instant never observed; no date-time parses to it.
var noInstant = Instant{Sec: math.MinInt64}

// moment is a record's observedAt as the audit takes it: the instant, and
// its stamp, or noStamp where it lies outside the years a stamp spans.
type moment struct {
	at Instant
	s  stamp
}

func momentOf(at Instant) moment {
	s, _ := stampOf(at) // noStamp when it fails
	return moment{at: at, s: s}
}

// deltaOf returns s as a delta from op's base, making s the base if op has
// none; ok is false when s has no delta, noStamp included.
func (op *operation) deltaOf(s stamp) (d delta, ok bool) {
	if s == noStamp { // an instant no stamp spans
		return 0, false
	}
	if op.base == noStamp {
		op.base = s
		return 0, true
	}
	diff := s - op.base
	if (s > op.base) != (diff > 0) { // the difference overflowed
		return 0, false
	}
	const ms = 1e6
	if diff%ms != 0 || diff/ms <= math.MinInt32 || diff/ms > math.MaxInt32 {
		return 0, false
	}
	return delta(diff / ms), true
}

// stampOf is the inverse of deltaOf.
func (op *operation) stampOf(d delta) stamp {
	if d == noDelta {
		return noStamp
	}
	return op.base + stamp(d)*1e6
}

// instantOf is the instant of op's delta d, or noInstant.
func (op *operation) instantOf(d delta) Instant {
	if d == noDelta {
		return noInstant
	}
	return op.stampOf(d).instant()
}

// time returns op's instant t, or noInstant.
func (a *Auditor) time(op *operation, t int) Instant {
	if op.is(wide) {
		return a.wide[op.id].times[t]
	}
	return op.instantOf(op.times[t])
}

func (a *Auditor) has(op *operation, t int) bool { return a.time(op, t) != noInstant }

// track folds m into op's instant t, keeping the earliest (min) or the
// latest.
func (a *Auditor) track(op *operation, t int, m moment, min bool) {
	if !op.is(wide) {
		if d, ok := op.deltaOf(m.s); ok {
			op.times[t] = fold(op.times[t], d, noDelta, min)
			return
		}
		a.widen(op)
	}
	w := a.wide[op.id]
	w.times[t] = foldInstant(w.times[t], m.at, min)
}

// trackPair folds m into the span of op's key pair p.
func (a *Auditor) trackPair(op *operation, p *opPair, m moment) {
	if !op.is(wide) {
		if d, ok := op.deltaOf(m.s); ok {
			p.first = fold(p.first, d, noDelta, true)
			p.last = fold(p.last, d, noDelta, false)
			return
		}
		a.widen(op)
	}
	w := a.wide[op.id]
	span, ok := w.pairs[p.bind]
	if !ok {
		span = [2]Instant{noInstant, noInstant}
	}
	w.pairs[p.bind] = [2]Instant{foldInstant(span[0], m.at, true), foldInstant(span[1], m.at, false)}
}

// pairSpan returns the first and last attempt under op's key pair p, or
// noInstant for both.
func (a *Auditor) pairSpan(op *operation, p *opPair) (first, last Instant) {
	if !op.is(wide) {
		return op.instantOf(p.first), op.instantOf(p.last)
	}
	if span, ok := a.wide[op.id].pairs[p.bind]; ok {
		return span[0], span[1]
	}
	return noInstant, noInstant
}

// widen moves op's instants to the side table.
func (a *Auditor) widen(op *operation) {
	w := &wideTimes{pairs: map[int32][2]Instant{}}
	for t := range op.times {
		w.times[t] = op.instantOf(op.times[t])
	}
	a.eachPair(op, func(p *opPair) {
		if p.first != noDelta {
			w.pairs[p.bind] = [2]Instant{op.instantOf(p.first), op.instantOf(p.last)}
		}
	})
	if a.wide == nil {
		a.wide = map[sref]*wideTimes{}
	}
	a.wide[op.id] = w
	op.flags |= wide
}

// fold keeps the earliest (min) or the latest of cur and v; none is no
// value yet.
func fold[T delta | stamp](cur, v, none T, min bool) T {
	if cur == none || min && v < cur || !min && v > cur {
		return v
	}
	return cur
}

// foldInstant is fold for instants.
func foldInstant(cur, v Instant, min bool) Instant {
	if cur == noInstant || min && v.Before(cur) || !min && cur.Before(v) {
		return v
	}
	return cur
}

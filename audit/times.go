package audit

import "math"

// An operation keeps nine instants (see tFirstSeen and the rest), for each
// key pair the span of its attempt records without attemptId, and for each
// attempt with one when it was first observed: most of its memory, at 8
// bytes an instant. Traces stamp records to the millisecond or coarser,
// and an operation's records lie within days of each other, so an
// operation keeps each instant as a signed count of milliseconds from its
// first one: 4 bytes. An operation with an instant that is not a whole
// number of milliseconds from the first, or more than 24 days away from it,
// goes wide: its instants move, exact, to a side table of stamps. One with
// an instant outside the years 1678 to 2262, which a stamp does not span,
// goes far: to a side table of Instants, twice the size, which only such
// rare operations pay for. Either way an instant reads back exactly as it
// was observed.

// delta is an instant as milliseconds from its operation's base.
type delta int32

// noDelta marks an instant never observed.
const noDelta = delta(math.MinInt32)

// wideTimes are the instants of a wide operation.
type wideTimes struct {
	times    [nTimes]stamp
	pairs    map[int32][2]stamp // by binding: see opPair
	attempts []stamp            // when each attempt was first observed, by attempt.at
}

// farTimes are the instants of a far operation.
type farTimes struct {
	times    [nTimes]Instant
	pairs    map[int32][2]Instant // by binding: see opPair
	attempts []Instant            // when each attempt was first observed, by attempt.at
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
// none; ok is false when s has no delta. s is never noStamp: track,
// trackPair and trackAttempt send an operation far before an instant no
// stamp spans.
func (op *operation) deltaOf(s stamp) (d delta, ok bool) {
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
func (op *operation) instantOf(d delta) Instant { return stampInstant(op.stampOf(d)) }

// stampInstant is the instant of s, or noInstant.
func stampInstant(s stamp) Instant {
	if s == noStamp {
		return noInstant
	}
	return s.instant()
}

// time returns op's instant t, or noInstant.
func (a *Auditor) time(op *operation, t int) Instant {
	switch {
	case op.is(far):
		return a.far[op.id].times[t]
	case op.is(wide):
		return stampInstant(a.wide[op.id].times[t])
	}
	return op.instantOf(op.times[t])
}

func (a *Auditor) has(op *operation, t int) bool { return a.time(op, t) != noInstant }

// track folds m into op's instant t, keeping the earliest (min) or the
// latest.
func (a *Auditor) track(op *operation, t int, m moment, min bool) {
	switch d, form := a.formFor(op, m); form {
	case far:
		f := a.far[op.id]
		f.times[t] = foldInstant(f.times[t], m.at, min)
	case wide:
		w := a.wide[op.id]
		w.times[t] = fold(w.times[t], m.s, noStamp, min)
	default:
		op.times[t] = fold(op.times[t], d, noDelta, min)
	}
}

// formFor settles the form in which op keeps its instants so that it can
// keep m: far, wide, or compact (0), when it also returns m's delta. An
// operation goes wide or far as its instants need, never back.
func (a *Auditor) formFor(op *operation, m moment) (d delta, form opFlags) {
	if m.s == noStamp && !op.is(far) {
		a.goFar(op)
	}
	switch {
	case op.is(far):
		return 0, far
	case op.is(wide):
		return 0, wide
	}
	if d, ok := op.deltaOf(m.s); ok {
		return d, 0
	}
	a.widen(op)
	return 0, wide
}

// trackPair folds m into the span of op's key pair p.
func (a *Auditor) trackPair(op *operation, p *opPair, m moment) {
	switch d, form := a.formFor(op, m); form {
	case far:
		f := a.far[op.id]
		span, ok := f.pairs[p.bind]
		if !ok {
			span = [2]Instant{noInstant, noInstant}
		}
		f.pairs[p.bind] = [2]Instant{foldInstant(span[0], m.at, true), foldInstant(span[1], m.at, false)}
	case wide:
		w := a.wide[op.id]
		span, ok := w.pairs[p.bind]
		if !ok {
			span = [2]stamp{noStamp, noStamp}
		}
		w.pairs[p.bind] = [2]stamp{fold(span[0], m.s, noStamp, true), fold(span[1], m.s, noStamp, false)}
	default:
		p.first = fold(p.first, d, noDelta, true)
		p.last = fold(p.last, d, noDelta, false)
	}
}

// trackAttempt folds m into when attempt at of op was first observed.
func (a *Auditor) trackAttempt(op *operation, at *attempt, m moment) {
	switch d, form := a.formFor(op, m); form {
	case far:
		keepEarliest(&a.far[op.id].attempts, &at.at, m.at, Instant.Before)
	case wide:
		keepEarliest(&a.wide[op.id].attempts, &at.at, m.s, func(x, y stamp) bool { return x < y })
	default:
		at.at = fold(at.at, d, noDelta, true)
	}
}

// keepEarliest keeps v in list as the time at names there, unless at
// names an earlier one; an at of noDelta names none yet, and is given
// v's place at the end.
func keepEarliest[T any](list *[]T, at *delta, v T, before func(x, y T) bool) {
	switch {
	case *at == noDelta:
		*at = delta(len(*list))
		*list = append(*list, v)
	case before(v, (*list)[*at]):
		(*list)[*at] = v
	}
}

// attemptTime returns when attempt at of op was first observed, or
// noInstant.
func (a *Auditor) attemptTime(op *operation, at *attempt) Instant {
	switch {
	case at.at == noDelta:
		return noInstant
	case op.is(far):
		return a.far[op.id].attempts[at.at]
	case op.is(wide):
		return a.wide[op.id].attempts[at.at].instant()
	}
	return op.instantOf(at.at)
}

// lastAttemptStart returns the latest time at which one of op's attempts
// was first observed, or noInstant.
func (a *Auditor) lastAttemptStart(op *operation) Instant {
	latest := a.time(op, tLastAnonAttempt)
	a.st.eachAttempt(&op.attempts, func(at *attempt) {
		latest = foldInstant(latest, a.attemptTime(op, at), false)
	})
	return latest
}

// pairSpan returns the first and last attempt record without attemptId
// under op's key pair p (eachPairSpan adds the attempts with one), or
// noInstant for both.
func (a *Auditor) pairSpan(op *operation, p *opPair) (first, last Instant) {
	switch {
	case op.is(far):
		if span, ok := a.far[op.id].pairs[p.bind]; ok {
			return span[0], span[1]
		}
	case op.is(wide):
		if span, ok := a.wide[op.id].pairs[p.bind]; ok {
			return stampInstant(span[0]), stampInstant(span[1])
		}
	default:
		return op.instantOf(p.first), op.instantOf(p.last)
	}
	return noInstant, noInstant
}

// widen moves op's instants to the side table of stamps.
func (a *Auditor) widen(op *operation) {
	w := &wideTimes{pairs: map[int32][2]stamp{}}
	for t := range op.times {
		w.times[t] = op.stampOf(op.times[t])
	}
	a.st.eachAttempt(&op.attempts, func(at *attempt) {
		if at.at != noDelta {
			w.attempts = append(w.attempts, op.stampOf(at.at))
			at.at = delta(len(w.attempts) - 1)
		}
	})
	a.eachPair(op, func(p *opPair) {
		if p.first != noDelta {
			w.pairs[p.bind] = [2]stamp{op.stampOf(p.first), op.stampOf(p.last)}
		}
	})
	if a.wide == nil {
		a.wide = map[sref]*wideTimes{}
	}
	a.wide[op.id] = w
	op.flags |= wide
}

// goFar moves op's instants, compact or wide, to the side table of
// Instants.
func (a *Auditor) goFar(op *operation) {
	f := &farTimes{pairs: map[int32][2]Instant{}}
	for t := range f.times {
		f.times[t] = a.time(op, t)
	}
	a.st.eachAttempt(&op.attempts, func(at *attempt) {
		if t := a.attemptTime(op, at); t != noInstant {
			f.attempts = append(f.attempts, t)
			at.at = delta(len(f.attempts) - 1)
		}
	})
	a.eachPair(op, func(p *opPair) {
		if first, last := a.pairSpan(op, p); first != noInstant {
			f.pairs[p.bind] = [2]Instant{first, last}
		}
	})
	if op.is(wide) {
		delete(a.wide, op.id)
		op.flags &^= wide
	}
	if a.far == nil {
		a.far = map[sref]*farTimes{}
	}
	a.far[op.id] = f
	op.flags |= far
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

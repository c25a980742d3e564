package audit

import "slices"

// An operation's attempts are kept one by one, each as a fingerprint of its
// attemptId with what the rules need to know of it whatever order its
// records come in: when it was first observed (its earliest timed record)
// and the results it reported. Attempt ids are only ever counted, never
// printed, so the audit keeps a hash of each instead of its bytes,
// seeded at random for each run (Auditor.Hash): two ids of one operation
// would have to collide in 64 bits to be miscounted, and no ledger can be
// made to. A fingerprint of 0 is kept as 1, so that 0 can mark an empty
// set: one more such collision, as unlikely as any other.

// attempt is one distinct attempt of an operation.
type attempt struct {
	id halves // its fingerprint; 0 when the set is empty
	// at is its earliest observedAt (see times.go), or where a wide or far
	// operation keeps that; noDelta if none.
	at delta
	// result has bit c set if it reported the result of code c <
	// resultBits (see firstReport), and bit keyed if it carried a key.
	result uint32
}

const (
	resultBits = 31              // result codes an attempt keeps as bits
	keyed      = 1 << resultBits // in attempt.result: a record of it carries a key pair
)

// attemptSet holds an operation's distinct attempts, the first inline and
// the rest in a chain of nodes, in order of first appearance.
type attemptSet struct {
	first attempt
	more  int32 // 1 + index of the first node after it; 0 if none
}

type attemptNode struct {
	attempt
	next int32 // 1 + index of the next node; 0 at the end
}

// attemptStore is the store's share for attempt sets: their nodes, and an
// index of each set grown past indexAfter attempts.
type attemptStore struct {
	attemptNodes blocks[attemptNode]
	bigAttempts  map[int32]*bigAttemptSet // by the set's first node
}

type bigAttemptSet struct {
	at   map[uint64]int32 // fingerprint → node
	tail int32
	n    int // attempts after the first
}

func (s *attemptStore) attemptNode(i int32) *attemptNode { return s.attemptNodes.at(int(i - 1)) }

// linkAttempt appends a node for fingerprint fp after node tail (0: none)
// and returns it.
func (s *attemptStore) linkAttempt(tail int32, fp uint64) int32 {
	i := int32(s.attemptNodes.add()) + 1
	*s.attemptNode(i) = attemptNode{attempt: newAttempt(fp)}
	if tail != 0 {
		s.attemptNode(tail).next = i
	}
	return i
}

func newAttempt(fp uint64) attempt { return attempt{id: split(fp), at: noDelta} }

// findAttempt returns the attempt of set whose fingerprint is h, adding it
// if there is none, and whether it was added. Attempts never move: inline
// in their operation or in a node, both in blocks.
func (s *attemptStore) findAttempt(set *attemptSet, h uint64) (*attempt, bool) {
	fp := max(h, 1)
	switch {
	case set.first.id == halves{}:
		set.first = newAttempt(fp)
		return &set.first, true
	case set.first.id.value() == fp:
		return &set.first, false
	case set.more == 0:
		set.more = s.linkAttempt(0, fp)
		return &s.attemptNode(set.more).attempt, true
	}
	if b := s.bigAttempts[set.more]; b != nil {
		if i, ok := b.at[fp]; ok {
			return &s.attemptNode(i).attempt, false
		}
		b.tail = s.linkAttempt(b.tail, fp)
		b.at[fp] = b.tail
		b.n++
		return &s.attemptNode(b.tail).attempt, true
	}
	n, tail := 0, int32(0)
	for i := set.more; i != 0; i = s.attemptNode(i).next {
		if s.attemptNode(i).id.value() == fp {
			return &s.attemptNode(i).attempt, false
		}
		n, tail = n+1, i
	}
	tail = s.linkAttempt(tail, fp)
	if n+1 > indexAfter {
		b := &bigAttemptSet{at: make(map[uint64]int32, 2*(n+1)), tail: tail, n: n + 1}
		for i := set.more; i != 0; i = s.attemptNode(i).next {
			b.at[s.attemptNode(i).id.value()] = i
		}
		if s.bigAttempts == nil {
			s.bigAttempts = map[int32]*bigAttemptSet{}
		}
		s.bigAttempts[set.more] = b
	}
	return &s.attemptNode(tail).attempt, true
}

// countAttempts returns how many attempts set holds.
func (s *attemptStore) countAttempts(set attemptSet) int {
	switch {
	case set.first.id == halves{}:
		return 0
	case set.more == 0:
		return 1
	}
	if b := s.bigAttempts[set.more]; b != nil {
		return 1 + b.n
	}
	n := 1
	for i := set.more; i != 0; i = s.attemptNode(i).next {
		n++
	}
	return n
}

// eachAttempt calls fn for every attempt of set, in order of first
// appearance; fn may change the attempt.
func (s *attemptStore) eachAttempt(set *attemptSet, fn func(at *attempt)) {
	if set.first.id == (halves{}) {
		return
	}
	fn(&set.first)
	for i := set.more; i != 0; i = s.attemptNode(i).next {
		fn(&s.attemptNode(i).attempt)
	}
}

// A key pair's retention is measured over the attempts made under it, each
// at the time it was first observed, so that a re-exported attempt with a
// later observedAt is no retry, in whatever order the records come. An
// attempt made under a pair is one with a record that carries it. Most
// operations carry one pair, so an attempt is marked keyed and no more; an
// operation of two pairs or more lists in its extra the pairs each of its
// attempts carried.

// attemptPair says that the attempt of a fingerprint carried the key pair
// of a binding.
type attemptPair struct {
	fingerprint uint64
	bind        int32
}

// keyAttempt records that attempt at of op carried the key pair of binding
// bind.
func (a *Auditor) keyAttempt(op *operation, at *attempt, bind int32) {
	at.result |= keyed
	if len(a.pairsAfterFirst(op)) > 0 {
		a.extra(op).listPair(attemptPair{fingerprint: at.id.value(), bind: bind})
	}
}

// listPair adds p to x's attempt pairs unless it is there; past indexAfter
// of them it looks them up in a map rather than scan the list.
func (x *extra) listPair(p attemptPair) {
	if x.attemptPairIndex != nil {
		if _, ok := x.attemptPairIndex[p]; ok {
			return
		}
		x.attemptPairIndex[p] = struct{}{}
	} else {
		if slices.Contains(x.attemptPairs, p) {
			return
		}
		if len(x.attemptPairs) == indexAfter {
			x.attemptPairIndex = make(map[attemptPair]struct{}, 2*indexAfter)
			for _, it := range x.attemptPairs {
				x.attemptPairIndex[it] = struct{}{}
			}
			x.attemptPairIndex[p] = struct{}{}
		}
	}
	x.attemptPairs = append(x.attemptPairs, p)
}

// pairAttempts lists the pair each keyed attempt of op carried, as op
// takes its second pair: until then they could only carry its first.
func (a *Auditor) pairAttempts(op *operation) {
	x := a.extra(op)
	a.st.eachAttempt(&op.attempts, func(at *attempt) {
		if at.result&keyed != 0 {
			x.listPair(attemptPair{fingerprint: at.id.value(), bind: op.pair.bind})
		}
	})
}

// mayOutlast reports whether the attempts under one of op's key pairs may
// span longer than its retention: only if op's records do. Few operations
// span hours, so this spares most of them eachPairSpan.
func (a *Auditor) mayOutlast(op *operation) bool {
	first, last := a.time(op, tFirstSeen), a.time(op, tLastSeen)
	if first == noInstant || first == last {
		return false
	}
	may := false
	a.eachPair(op, func(p *opPair) {
		if keep := a.policy.Retention(a.scope(a.pairAt(p.bind))); keep > 0 && last.Beyond(first, keep) {
			may = true
		}
	})
	return may
}

// eachPairSpan calls fn for every key pair of op, in first-seen order, with
// the span of the attempts made under it, or noInstant for both ends.
func (a *Auditor) eachPairSpan(op *operation, fn func(p *opPair, first, last Instant)) {
	if op.pair.bind < 0 {
		return
	}
	stretch := func(span *[2]Instant, t Instant) {
		if t != noInstant {
			span[0], span[1] = foldInstant(span[0], t, true), foldInstant(span[1], t, false)
		}
	}
	more := a.pairsAfterFirst(op)
	if len(more) == 0 {
		// Every keyed attempt carried the one pair.
		var span [2]Instant
		span[0], span[1] = a.pairSpan(op, &op.pair) // attempts without ids
		a.st.eachAttempt(&op.attempts, func(at *attempt) {
			if at.result&keyed != 0 {
				stretch(&span, a.attemptTime(op, at))
			}
		})
		fn(&op.pair, span[0], span[1])
		return
	}
	spans := make([][2]Instant, 0, 1+len(more))
	position := make(map[int32]int, 1+len(more)) // by binding
	a.eachPair(op, func(p *opPair) {
		first, last := a.pairSpan(op, p)
		position[p.bind] = len(spans)
		spans = append(spans, [2]Instant{first, last})
	})
	times := map[uint64]Instant{}
	a.st.eachAttempt(&op.attempts, func(at *attempt) { times[at.id.value()] = a.attemptTime(op, at) })
	for _, p := range a.extras.at(int(op.extra - 1)).attemptPairs {
		stretch(&spans[position[p.bind]], times[p.fingerprint])
	}
	i := 0
	a.eachPair(op, func(p *opPair) {
		fn(p, spans[i][0], spans[i][1])
		i++
	})
}

// keylessAttempts counts op's attempts without an idempotencyKey: its
// attempt records with neither attemptId nor key, and its attempts with an
// id none of whose records carries a key.
func (a *Auditor) keylessAttempts(op *operation) int {
	n := int(op.keylessAnon)
	if op.is(keylessRecord) {
		a.st.eachAttempt(&op.attempts, func(at *attempt) {
			if at.result&keyed == 0 {
				n++
			}
		})
	}
	return n
}

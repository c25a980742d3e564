package audit

// An operation's attempts are kept one by one, each as a fingerprint of its
// attemptId with what the rules need to know of it whatever order its
// records come in: when it was first observed (its earliest timed record)
// and the results it reported. Attempt ids are only ever counted,
// never printed, so the audit keeps a hash of each instead of its bytes,
// seeded at random for each run (Auditor.Hash): two ids of one operation
// would have to collide in 64 bits to be miscounted, and no ledger can be
// made to. A fingerprint of 0 is kept as 1, so that 0 can mark an empty
// set: one more such collision, as unlikely as any other.

// attempt is one distinct attempt of an operation.
type attempt struct {
	id     halves // its fingerprint; 0 when the set is empty
	at     delta  // its earliest observedAt (see times.go), or where a wide or far operation keeps it; noDelta if none
	result uint32 // bit c: it reported the result of code c, for c < 32 (see firstReport)
}

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

// attempts is the store's share for attempt sets: their nodes, and an
// index of each set grown past indexAfter attempts.
type attempts struct {
	attemptNodes blocks[attemptNode]
	bigAttempts  map[int32]*bigAttemptSet // by the set's first node
}

type bigAttemptSet struct {
	at   map[uint64]int32 // fingerprint → node
	tail int32
	n    int // attempts after the first
}

func (s *attempts) attemptNode(i int32) *attemptNode { return s.attemptNodes.at(int(i - 1)) }

// linkAttempt appends a node for fingerprint fp after node tail (0: none)
// and returns it.
func (s *attempts) linkAttempt(tail int32, fp uint64) int32 {
	i := int32(s.attemptNodes.add()) + 1
	*s.attemptNode(i) = attemptNode{attempt: newAttempt(fp)}
	if tail != 0 {
		s.attemptNode(tail).next = i
	}
	return i
}

func newAttempt(fp uint64) attempt { return attempt{id: split(fp), at: noDelta} }

// findAttempt returns the attempt of set s whose fingerprint is h, adding
// it if there is none, and whether it was added. The pointer is valid
// until the next call.
func (s *attempts) findAttempt(set *attemptSet, h uint64) (*attempt, bool) {
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
func (s *attempts) countAttempts(set attemptSet) int {
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
func (s *attempts) eachAttempt(set *attemptSet, fn func(at *attempt)) {
	if set.first.id == (halves{}) {
		return
	}
	fn(&set.first)
	for i := set.more; i != 0; i = s.attemptNode(i).next {
		fn(&s.attemptNode(i).attempt)
	}
}

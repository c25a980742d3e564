// Package audit holds the ledger model, the labelling rules and the findings
// of SPEC.md: records in, a report out. It never does I/O and never reads a
// clock, so every rule is a plain function of its input that tests can drive.
//
// Memory is bounded by distinct values: an operation keeps counters and the
// distinct attempt ids, effect refs, hashes and key pairs it has seen, never
// records.
package audit

import (
	"time"

	"github.com/cespare/xxhash/v2"
)

// Policy says which attempt results must not be retried and how long a
// provider remembers an idempotency key. The policy package implements it.
type Policy interface {
	IsFinal(result string) bool
	Retention(scope string) time.Duration
}

// Auditor accumulates records and produces a Report. Several Auditors, each
// fed the records of a disjoint set of operations, can be combined with
// Merge; each operation's records must reach its Auditor in input order.
type Auditor struct {
	policy Policy
	strs   arena

	opIndex map[string]int32
	ops     []*[chunkSize]operation // fixed blocks: growing never copies them
	nops    int

	pairIndex map[string]int32 // by scope + "\x00" + key
	pairs     []*[chunkSize]binding
	npairs    int
	pairKey   []byte // scratch for lookups
	hashBuf   [33]byte

	resultIndex map[string]uint32 // results are few: intern them
	results     []resultInfo

	lines, blankLines, records int
	invalidLines               int
	invalid                    []Invalid
	keepInvalid                int // 0 keeps every invalid line
}

const chunkSize = 1 << 12

type resultInfo struct {
	name  string
	final bool
}

// New returns an empty Auditor. A nil policy means no result is final and
// keys never expire.
func New(policy Policy) *Auditor { return NewSized(policy, 0) }

// NewSized is New for about ops operations: sizing the indexes up front
// spares the audit rehashing them as they grow.
func NewSized(policy Policy, ops int) *Auditor {
	return &Auditor{
		policy:      policy,
		opIndex:     make(map[string]int32, ops),
		pairIndex:   make(map[string]int32, ops),
		resultIndex: make(map[string]uint32),
	}
}

// binding is everything known about one (scope, idempotencyKey) pair
// across this Auditor's input.
type binding struct {
	joined string    // scope + "\x00" + key
	hashes stringSet // distinct payload hashes bound to the pair
	ops    int32     // distinct operations carrying the pair

	// Across every part of a merged audit, set by Merge.
	allHashes, allOps int32
	conflict          *conflictInfo // when allHashes >= 2
}

// conflictInfo is what a key-conflict reason says about a pair, worked out
// once per pair rather than once per operation that carries it.
type conflictInfo struct {
	hashes string // the first few hashes in sorted order
	n, ops int
}

func (b *binding) scope() string { return b.joined[:len(b.joined)-len(b.key())-1] }

func (b *binding) key() string {
	for i := 0; i < len(b.joined); i++ {
		if b.joined[i] == 0 {
			return b.joined[i+1:]
		}
	}
	return b.joined
}

// opPair is one key pair of an operation, with the span of the attempts
// made under it (for retry-past-retention).
type opPair struct {
	bind     int32
	attempts int32 // attempt records carrying the pair
	first    stamp
	last     stamp
}

// Instants an operation keeps; see operation.times.
const (
	tFirstSeen = iota
	tLastSeen
	tFirstAttempt
	tLastAttempt
	tLastAbsent
	tFirstEffect
	tFirstSuccess
	tFirstFinal
	tLastNewAttempt // latest first record of a distinct attempt
	nTimes
)

// operation is the per-operation state: counters and distinct values only.
// Its size is the audit's memory, so fields are packed.
type operation struct {
	id    string
	first packedPos

	attemptIDs      fingerprintSet
	anonAttempts    int32 // attempt records without attemptId, each its own attempt
	attemptRecords  int32
	untimedAttempts int32 // attempt records without observedAt
	keylessAttempts int32 // attempt records without idempotencyKey
	unhashedKeyed   int32 // attempt records with a key but no payloadHash
	effectObs       int32 // effect records that are not "absent"
	absentObs       int32

	label    label
	findings findingSet // set when the report is computed

	results     [2]resultCount
	moreResults *[]resultCount

	effects stringSet // distinct effectRefs
	hashes  stringSet // distinct payloadHashes
	pair    opPair    // the first key pair; bind < 0 when none
	more    *morePairs

	unhashedAt packedPos // first attempt with a key but no hash
	times      [nTimes]stamp
}

// morePairs are an operation's key pairs after the first.
type morePairs struct {
	items []opPair
	index map[int32]int32 // binding → position in items, past indexAfter
}

type resultCount struct {
	code uint32
	n    int32
}

func (op *operation) has(t int) bool { return op.times[t] != noStamp }

// track folds s into times[t], keeping the earliest (min) or the latest.
func (op *operation) track(t int, s stamp, min bool) {
	cur := op.times[t]
	if cur == noStamp || min && s < cur || !min && s > cur {
		op.times[t] = s
	}
}

func (a *Auditor) op(id string, pos Position) *operation {
	if i, ok := a.opIndex[id]; ok {
		return a.opAt(int(i))
	}
	i := a.nops
	if i%chunkSize == 0 {
		a.ops = append(a.ops, new([chunkSize]operation))
	}
	a.nops++
	op := a.opAt(i)
	op.id = a.strs.clone(id)
	op.first = pack(pos)
	op.pair.bind = -1
	for t := range op.times {
		op.times[t] = noStamp
	}
	a.opIndex[op.id] = int32(i)
	return op
}

func (a *Auditor) opAt(i int) *operation { return &a.ops[i/chunkSize][i%chunkSize] }

func (a *Auditor) pairAt(i int32) *binding { return &a.pairs[i/chunkSize][i%chunkSize] }

// Add folds one valid record into the audit. The record's strings may alias
// a reused buffer: Add copies whatever it keeps.
func (a *Auditor) Add(r *Record) {
	op := a.op(r.OperationID, r.Pos)

	when := noStamp
	if r.HasObservedAt {
		if s, ok := stampOf(r.ObservedAt); ok {
			when = s
			op.track(tFirstSeen, when, true)
			op.track(tLastSeen, when, false)
		}
	}
	hash := ""
	if r.PayloadHash != "" {
		hash, _ = op.hashes.add(&a.strs, compactHash(r.PayloadHash, &a.hashBuf))
	}
	var pair *opPair
	if r.IdempotencyKey != "" {
		pair = a.bind(op, r.Scope, r.IdempotencyKey, hash)
	}

	switch r.Type {
	case Attempt:
		a.addAttempt(op, r, when, pair, hash)
	case Effect:
		if r.Result == "absent" {
			op.absentObs++
			if when != noStamp {
				op.track(tLastAbsent, when, false)
			}
			return
		}
		op.effectObs++
		if when != noStamp {
			op.track(tFirstEffect, when, true)
		}
		op.effects.add(&a.strs, r.EffectRef)
	}
}

func (a *Auditor) addAttempt(op *operation, r *Record, when stamp, pair *opPair, hash string) {
	op.attemptRecords++
	// The absence rule looks at every attempt record...
	if when != noStamp {
		op.track(tFirstAttempt, when, true)
		op.track(tLastAttempt, when, false)
	} else {
		op.untimedAttempts++
	}
	newAttempt := true
	if r.AttemptID == "" {
		op.anonAttempts++
	} else {
		newAttempt = op.attemptIDs.add(xxhash.Sum64String(r.AttemptID))
	}
	if pair == nil {
		op.keylessAttempts++
	} else {
		pair.attempts++
		if hash == "" {
			if op.unhashedKeyed == 0 {
				op.unhashedAt = pack(r.Pos)
			}
			op.unhashedKeyed++
		}
	}
	code, hasResult := uint32(0), r.Result != ""
	if hasResult {
		code = a.result(r.Result)
		if newAttempt {
			op.countResult(code)
		}
	}
	if when == noStamp {
		return
	}
	// The earliest success or final result, from any record that says so...
	if hasResult && a.results[code].name == "success" {
		op.track(tFirstSuccess, when, true)
	}
	if hasResult && a.results[code].final {
		op.track(tFirstFinal, when, true)
	}
	// ...is compared with attempts timed by their first record only: a
	// re-exported attempt, with another observedAt, is not a retry.
	if !newAttempt {
		return
	}
	op.track(tLastNewAttempt, when, false)
	if pair != nil {
		if pair.first == noStamp || when < pair.first {
			pair.first = when
		}
		if pair.last == noStamp || when > pair.last {
			pair.last = when
		}
	}
}

// bind records that op carries the pair (scope, key) with payload hash h
// ("" binds nothing but still ties the pair to op), and returns op's entry
// for the pair.
func (a *Auditor) bind(op *operation, scope, key, h string) *opPair {
	a.pairKey = append(append(append(a.pairKey[:0], scope...), 0), key...)
	bi, ok := a.pairIndex[string(a.pairKey)]
	if !ok {
		bi = int32(a.npairs)
		if a.npairs%chunkSize == 0 {
			a.pairs = append(a.pairs, new([chunkSize]binding))
		}
		a.npairs++
		b := a.pairAt(bi)
		b.joined = a.strs.clone(string(a.pairKey))
		a.pairIndex[b.joined] = bi
	}
	b := a.pairAt(bi)
	if h != "" {
		b.hashes.add(&a.strs, h)
	}
	p := op.findPair(bi)
	if p == nil {
		b.ops++
		entry := opPair{bind: bi, first: noStamp, last: noStamp}
		if op.pair.bind < 0 {
			op.pair = entry
			p = &op.pair
		} else {
			if op.more == nil {
				op.more = &morePairs{}
			}
			m := op.more
			m.items = append(m.items, entry)
			switch {
			case m.index != nil:
				m.index[bi] = int32(len(m.items) - 1)
			case len(m.items) > indexAfter:
				m.index = make(map[int32]int32, 2*len(m.items))
				for i, it := range m.items {
					m.index[it.bind] = int32(i)
				}
			}
			p = &m.items[len(m.items)-1]
		}
	}
	return p
}

func (op *operation) findPair(bi int32) *opPair {
	if op.pair.bind == bi {
		return &op.pair
	}
	if m := op.more; m != nil {
		if m.index != nil {
			if i, ok := m.index[bi]; ok {
				return &m.items[i]
			}
			return nil
		}
		for i := range m.items {
			if m.items[i].bind == bi {
				return &m.items[i]
			}
		}
	}
	return nil
}

// eachPair calls fn for every key pair of op, in first-seen order.
func (op *operation) eachPair(fn func(p *opPair)) {
	if op.pair.bind < 0 {
		return
	}
	fn(&op.pair)
	if op.more != nil {
		for i := range op.more.items {
			fn(&op.more.items[i])
		}
	}
}

func (a *Auditor) result(name string) uint32 {
	if c, ok := a.resultIndex[name]; ok {
		return c
	}
	c := uint32(len(a.results))
	stored := a.strs.clone(name)
	a.results = append(a.results, resultInfo{name: stored, final: a.policy != nil && a.policy.IsFinal(stored)})
	a.resultIndex[stored] = c
	return c
}

func (op *operation) countResult(code uint32) {
	for i := range op.results {
		rc := &op.results[i]
		switch {
		case rc.n > 0 && rc.code == code:
			rc.n++
			return
		case rc.n == 0:
			*rc = resultCount{code: code, n: 1}
			return
		}
	}
	if op.moreResults == nil {
		op.moreResults = &[]resultCount{}
	}
	for i := range *op.moreResults {
		if (*op.moreResults)[i].code == code {
			(*op.moreResults)[i].n++
			return
		}
	}
	*op.moreResults = append(*op.moreResults, resultCount{code: code, n: 1})
}

// eachResult calls fn for every (result, count) of op, in first-seen order.
func (op *operation) eachResult(fn func(code uint32, n int)) {
	for _, rc := range op.results {
		if rc.n == 0 {
			return
		}
		fn(rc.code, int(rc.n))
	}
	if op.moreResults != nil {
		for _, rc := range *op.moreResults {
			fn(rc.code, int(rc.n))
		}
	}
}

func (op *operation) attempts() int { return int(op.attemptIDs.n) + int(op.anonAttempts) }

// AddInvalid accounts for an invalid line and keeps it for the report,
// unless KeepInvalid's limit is reached.
func (a *Auditor) AddInvalid(inv Invalid) {
	a.invalidLines++
	if a.keepInvalid == 0 || len(a.invalid) < a.keepInvalid {
		a.invalid = append(a.invalid, inv)
	}
}

// KeepInvalid limits how many invalid lines are kept (n > 0); all are still
// counted. A strict run that only shows the first few needs no more.
func (a *Auditor) KeepInvalid(n int) { a.keepInvalid = n }

// AddLines accounts for lines read: all of them, how many were blank and
// how many held records. Invalid lines are counted by AddInvalid. Lines are
// the reader's business: an OTLP line holds one record line's worth of
// spans, each added as a ledger record.
func (a *Auditor) AddLines(lines, blank, records int) {
	a.lines += lines
	a.blankLines += blank
	a.records += records
}

// Operations returns how many operations the Auditor has seen.
func (a *Auditor) Operations() int { return a.nops }

// Report computes the labels, the findings and the summary.
func (a *Auditor) Report() *Report { return Merge(a) }

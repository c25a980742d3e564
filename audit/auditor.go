// Package audit holds the ledger model and the labelling rules of SPEC.md:
// records in, a report out. It never does I/O and never reads a clock, so
// every rule is a plain function of its input that tests can drive.
//
// Memory is bounded by distinct values: an operation keeps the distinct
// attempt ids, effect refs, hashes and key pairs it has seen, never records.
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
	ops     []*opChunk
	nops    int

	pairIndex map[string]int32 // scope + "\x00" + key
	pairs     []*binding
	pairKey   []byte // scratch for lookups

	resultIndex map[string]uint16 // results are few: intern them
	results     []resultInfo

	lines, blankLines, records int
	invalidLines               int
	invalid                    []Invalid
	keepInvalid                int // 0 keeps every invalid line
}

const opChunkSize = 1 << 12

// opChunk stores operations in fixed blocks so growing never copies them.
type opChunk [opChunkSize]operation

type resultInfo struct {
	name  string
	final bool
}

// New returns an empty Auditor. A nil policy means no result is final and
// keys never expire.
func New(policy Policy) *Auditor {
	return &Auditor{
		policy:      policy,
		opIndex:     make(map[string]int32),
		pairIndex:   make(map[string]int32),
		resultIndex: make(map[string]uint16),
	}
}

// binding is everything known about one (scope, idempotencyKey) pair
// across this Auditor's input.
type binding struct {
	joined     string // scope + "\x00" + key, the index key
	scope, key string
	hashes     stringSet // distinct payload hashes bound to the pair
	ops        stringSet // distinct operations carrying the pair
}

// opPair is one key pair of an operation, with the span of the attempts
// made under it (for retry-past-retention).
type opPair struct {
	bind     int32
	attempts int32 // attempt records carrying the pair
	first    Instant
	last     Instant
	timed    bool
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
	nTimes
)

// operation is the per-operation state: counters and distinct values only.
type operation struct {
	id    string
	first Position
	label Label // set when the report is computed

	attemptIDs      fingerprintSet
	anonAttempts    int32 // attempt records without attemptId, each its own attempt
	attemptRecords  int32
	untimedAttempts int32 // attempt records without observedAt
	keylessAttempts int32 // attempt records without idempotencyKey
	unhashedKeyed   int32 // attempt records with a key but no payloadHash
	effectObs       int32 // effect records that are not "absent"
	absentObs       int32
	absentTimed     bool // some absent observation carries observedAt

	results     [2]resultCount
	moreResults *[]resultCount

	effects stringSet // distinct effectRefs
	hashes  stringSet // distinct payloadHashes
	pair    opPair    // the first key pair; bind < 0 when none
	more    *[]opPair

	unhashedAt Position // first attempt with a key but no hash

	timeSet uint16 // bit i: times[i] is set
	secs    [nTimes]int64
	nsecs   [nTimes]int32
}

type resultCount struct {
	code uint16
	n    int32
}

func (op *operation) has(t int) bool { return op.timeSet&(1<<t) != 0 }

func (op *operation) at(t int) Instant { return Instant{op.secs[t], op.nsecs[t]} }

// track folds instant i into times[t], keeping the earliest (min) or latest.
func (op *operation) track(t int, i Instant, min bool) {
	if op.has(t) {
		cur := op.at(t)
		if min && !i.Before(cur) || !min && !cur.Before(i) {
			return
		}
	}
	op.secs[t], op.nsecs[t] = i.Sec, i.Nsec
	op.timeSet |= 1 << t
}

func (a *Auditor) op(id string, pos Position) *operation {
	if i, ok := a.opIndex[id]; ok {
		return &a.ops[i/opChunkSize][i%opChunkSize]
	}
	i := a.nops
	if i%opChunkSize == 0 {
		a.ops = append(a.ops, new(opChunk))
	}
	a.nops++
	op := &a.ops[i/opChunkSize][i%opChunkSize]
	op.id = a.strs.clone(id)
	op.first = pos
	op.pair.bind = -1
	a.opIndex[op.id] = int32(i)
	return op
}

func (a *Auditor) opAt(i int) *operation { return &a.ops[i/opChunkSize][i%opChunkSize] }

// Add folds one valid record into the audit. The record's strings may alias
// a reused buffer: Add copies whatever it keeps.
func (a *Auditor) Add(r *Record) {
	a.records++
	op := a.op(r.OperationID, r.Pos)

	if r.HasObservedAt {
		op.track(tFirstSeen, r.ObservedAt, true)
		op.track(tLastSeen, r.ObservedAt, false)
	}
	hash := ""
	if r.PayloadHash != "" {
		hash, _ = op.hashes.add(&a.strs, r.PayloadHash)
	}
	var pair *opPair
	if r.IdempotencyKey != "" {
		pair = a.bind(op, r.Scope, r.IdempotencyKey, hash)
	}

	switch r.Type {
	case Attempt:
		op.attemptRecords++
		if r.HasObservedAt {
			op.track(tFirstAttempt, r.ObservedAt, true)
			op.track(tLastAttempt, r.ObservedAt, false)
		} else {
			op.untimedAttempts++
		}
		if pair == nil {
			op.keylessAttempts++
		} else {
			pair.attempts++
			if r.HasObservedAt {
				if !pair.timed || r.ObservedAt.Before(pair.first) {
					pair.first = r.ObservedAt
				}
				if !pair.timed || pair.last.Before(r.ObservedAt) {
					pair.last = r.ObservedAt
				}
				pair.timed = true
			}
			if hash == "" {
				if op.unhashedKeyed == 0 {
					op.unhashedAt = r.Pos
				}
				op.unhashedKeyed++
			}
		}
		newAttempt := true
		if r.AttemptID == "" {
			op.anonAttempts++
		} else {
			newAttempt = op.attemptIDs.add(xxhash.Sum64String(r.AttemptID))
		}
		if r.Result != "" {
			code := a.result(r.Result)
			if newAttempt {
				op.countResult(code)
			}
			if r.HasObservedAt {
				if a.results[code].name == "success" {
					op.track(tFirstSuccess, r.ObservedAt, true)
				}
				if a.results[code].final {
					op.track(tFirstFinal, r.ObservedAt, true)
				}
			}
		}
	case Effect:
		if r.Result == "absent" {
			op.absentObs++
			if r.HasObservedAt {
				op.track(tLastAbsent, r.ObservedAt, false)
				op.absentTimed = true
			}
			return
		}
		op.effectObs++
		if r.HasObservedAt {
			op.track(tFirstEffect, r.ObservedAt, true)
		}
		op.effects.add(&a.strs, r.EffectRef)
	}
}

// bind records that op carries the pair (scope, key) with payload hash h
// ("" binds nothing but still ties the pair to op), and returns op's entry
// for the pair.
func (a *Auditor) bind(op *operation, scope, key, h string) *opPair {
	a.pairKey = append(append(append(a.pairKey[:0], scope...), 0), key...)
	bi, ok := a.pairIndex[string(a.pairKey)]
	if !ok {
		joined := a.strs.clone(string(a.pairKey))
		b := &binding{joined: joined, scope: joined[:len(scope)], key: joined[len(scope)+1:]}
		bi = int32(len(a.pairs))
		a.pairs = append(a.pairs, b)
		a.pairIndex[joined] = bi
	}
	b := a.pairs[bi]
	if h != "" {
		b.hashes.add(&a.strs, h)
	}
	p := op.findPair(bi)
	if p == nil {
		b.ops.add(&a.strs, op.id)
		switch {
		case op.pair.bind < 0:
			op.pair.bind = bi
			p = &op.pair
		default:
			if op.more == nil {
				op.more = &[]opPair{}
			}
			*op.more = append(*op.more, opPair{bind: bi})
			p = &(*op.more)[len(*op.more)-1]
		}
	}
	return p
}

func (op *operation) findPair(bi int32) *opPair {
	if op.pair.bind == bi {
		return &op.pair
	}
	if op.more != nil {
		for i := range *op.more {
			if (*op.more)[i].bind == bi {
				return &(*op.more)[i]
			}
		}
	}
	return nil
}

// eachPair calls fn for every key pair of op.
func (op *operation) eachPair(fn func(p *opPair)) {
	if op.pair.bind < 0 {
		return
	}
	fn(&op.pair)
	if op.more != nil {
		for i := range *op.more {
			fn(&(*op.more)[i])
		}
	}
}

func (a *Auditor) result(name string) uint16 {
	if c, ok := a.resultIndex[name]; ok {
		return c
	}
	c := uint16(len(a.results))
	if int(c) != len(a.results) {
		// More than 65535 distinct results: fold the rest into the last
		// code rather than miscount. No real transport has that many.
		return c - 1
	}
	stored := a.strs.clone(name)
	a.results = append(a.results, resultInfo{name: stored, final: a.policy != nil && a.policy.IsFinal(stored)})
	a.resultIndex[stored] = c
	return c
}

func (op *operation) countResult(code uint16) {
	for i := range op.results {
		rc := &op.results[i]
		if rc.n > 0 && rc.code == code {
			rc.n++
			return
		}
		if rc.n == 0 {
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
func (op *operation) eachResult(fn func(code uint16, n int)) {
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

// AddLines accounts for lines read: all of them, and how many were blank.
// Records and invalid lines are counted by Add and AddInvalid.
func (a *Auditor) AddLines(lines, blank int) {
	a.lines += lines
	a.blankLines += blank
}

// Operations returns how many operations the Auditor has seen.
func (a *Auditor) Operations() int { return a.nops }

// Report computes the labels and the summary.
func (a *Auditor) Report() *Report { return Merge(a) }

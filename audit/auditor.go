// Package audit holds the ledger model and the labelling rules of SPEC.md:
// records in, a report out. It never does I/O and never reads a clock, so
// every rule is a plain function of its input that tests can drive.
//
// Memory is bounded by distinct values: an operation keeps the distinct
// attempt ids, effect refs, hashes and key pairs it has seen, never records.
package audit

import (
	"slices"
	"strings"
)

// Auditor accumulates records and produces a Report. Records may be added in
// any grouping (several Auditors, one per shard of operations, can be merged
// with Merge) as long as each operation's records reach one Auditor in input
// order.
type Auditor struct {
	ops      map[string]*operation
	order    []*operation // in order of first record
	bindings map[pairKey]*binding

	lines, blankLines, records int
	invalidLines               int
	invalid                    []Invalid
	keepInvalid                int // 0 keeps every invalid line
}

// New returns an empty Auditor.
func New() *Auditor {
	return &Auditor{
		ops:      make(map[string]*operation),
		bindings: make(map[pairKey]*binding),
	}
}

// pairKey is a (scope, idempotencyKey) pair; scope "" is the default scope.
type pairKey struct{ scope, key string }

// binding is everything known about one key pair across the whole input.
type binding struct {
	pairKey
	hashes stringSet    // distinct payload hashes bound to the pair
	ops    []*operation // distinct operations carrying the pair
}

// operation is the per-operation state: counters and distinct values only.
type operation struct {
	id    string
	first Position

	attemptIDs   stringSet
	anonAttempts int // attempt records without attemptId, each its own attempt
	results      []resultCount

	effectObs int       // effect records that are not "absent"
	effects   stringSet // distinct effectRefs among them

	hashes stringSet
	pairs  []*binding

	absentObs   int
	absentTimed bool    // some absent observation carries observedAt
	lastAbsent  Instant // latest such observation

	attemptRecords  int
	untimedAttempts int     // attempt records without observedAt
	lastAttempt     Instant // latest observedAt among attempt records

	timed     bool // some record carries observedAt
	firstSeen Instant
	lastSeen  Instant
}

type resultCount struct {
	result string
	n      int
}

// Add folds one valid record into the audit. The record's strings may alias
// a reused buffer: Add copies whatever it keeps.
func (a *Auditor) Add(r *Record) {
	a.records++
	op := a.ops[r.OperationID]
	if op == nil {
		op = &operation{id: strings.Clone(r.OperationID), first: r.Pos}
		a.ops[op.id] = op
		a.order = append(a.order, op)
	}

	if r.HasObservedAt {
		if !op.timed || r.ObservedAt.Before(op.firstSeen) {
			op.firstSeen = r.ObservedAt
		}
		if !op.timed || op.lastSeen.Before(r.ObservedAt) {
			op.lastSeen = r.ObservedAt
		}
		op.timed = true
	}
	if r.PayloadHash != "" {
		addClone(&op.hashes, r.PayloadHash)
	}
	if r.IdempotencyKey != "" {
		a.bind(op, r.Scope, r.IdempotencyKey, r.PayloadHash)
	}

	switch r.Type {
	case Attempt:
		op.attemptRecords++
		if r.HasObservedAt {
			if op.attemptRecords-op.untimedAttempts == 1 || op.lastAttempt.Before(r.ObservedAt) {
				op.lastAttempt = r.ObservedAt
			}
		} else {
			op.untimedAttempts++
		}
		newAttempt := true
		if r.AttemptID == "" {
			op.anonAttempts++
		} else {
			_, newAttempt = addClone(&op.attemptIDs, r.AttemptID)
		}
		if newAttempt && r.Result != "" {
			op.countResult(r.Result)
		}
	case Effect:
		if r.Result == "absent" {
			op.absentObs++
			if r.HasObservedAt {
				if !op.absentTimed || op.lastAbsent.Before(r.ObservedAt) {
					op.lastAbsent = r.ObservedAt
				}
				op.absentTimed = true
			}
			return
		}
		op.effectObs++
		addClone(&op.effects, r.EffectRef)
	}
}

// bind records that op carries the pair (scope, key) with payload hash h
// ("" binds nothing but still ties the pair to op).
func (a *Auditor) bind(op *operation, scope, key, h string) {
	b := a.bindings[pairKey{scope, key}]
	if b == nil {
		b = &binding{pairKey: pairKey{strings.Clone(scope), strings.Clone(key)}}
		a.bindings[b.pairKey] = b
	}
	if !slices.Contains(op.pairs, b) {
		op.pairs = append(op.pairs, b)
		b.ops = append(b.ops, op)
	}
	if h != "" {
		addClone(&b.hashes, h)
	}
}

func (op *operation) countResult(result string) {
	for i := range op.results {
		if op.results[i].result == result {
			op.results[i].n++
			return
		}
	}
	op.results = append(op.results, resultCount{strings.Clone(result), 1})
}

func (op *operation) attempts() int { return op.attemptIDs.len() + op.anonAttempts }

// addClone adds v to s, copying it only when it is new.
func addClone(s *stringSet, v string) (int, bool) {
	if i := s.find(v); i >= 0 {
		return i, false
	}
	return s.add(strings.Clone(v))
}

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

// Report computes the labels and the summary.
func (a *Auditor) Report() *Report { return Merge(a) }

package audit

import (
	"fmt"
	"slices"
	"strings"
)

// Label is the verdict on one operation.
type Label string

const (
	KeyConflict Label = "key-conflict"
	Duplicate   Label = "duplicate"
	Healthy     Label = "healthy"
	Absent      Label = "absent"
	Uncertain   Label = "uncertain"
)

// Labels lists every label in SPEC's precedence order.
var Labels = []Label{KeyConflict, Duplicate, Healthy, Absent, Uncertain}

// NextAction is what SPEC tells the operator to do for each label.
func (l Label) NextAction() string {
	switch l {
	case KeyConflict:
		return "block execution; review the intent; only a new operation with a new key may proceed"
	case Duplicate:
		return "block retries; reconcile or compensate the extra effects, with approval"
	case Healthy:
		return "stop retrying; confirm the surviving effect is the intended deliverable"
	case Absent:
		return "safe to retry with the same key and payload"
	}
	return "do not retry blindly; query the provider by key, wait for evidence, or ask a human"
}

// SchemaVersion is the version of the JSON report document.
const SchemaVersion = 1

// Report is the result of an audit, in the shape of SPEC's json report.
type Report struct {
	SchemaVersion int         `json:"schemaVersion"`
	Summary       Summary     `json:"summary"`
	Operations    []Operation `json:"operations"`
	Invalid       []Invalid   `json:"invalid"`
}

// Summary accounts for every input line: Lines = BlankLines + Records + InvalidLines.
type Summary struct {
	Lines              int           `json:"lines"`
	BlankLines         int           `json:"blankLines"`
	Records            int           `json:"records"`
	InvalidLines       int           `json:"invalidLines"`
	Attempts           int           `json:"attempts"`
	EffectObservations int           `json:"effectObservations"`
	Operations         int           `json:"operations"`
	Labels             map[Label]int `json:"labels"`
}

// Operation is the report on one operation.
type Operation struct {
	OperationID        string         `json:"operationId"`
	Label              Label          `json:"label"`
	Reason             string         `json:"reason"`
	NextAction         string         `json:"nextAction"`
	Attempts           int            `json:"attempts"`
	Results            map[string]int `json:"results"`
	EffectObservations int            `json:"effectObservations"`
	DistinctEffects    int            `json:"distinctEffects"`
	EffectRefs         []string       `json:"effectRefs"`
	IdempotencyKeys    []string       `json:"idempotencyKeys"`
	PayloadHashes      []string       `json:"payloadHashes"`
	FirstObservedAt    *string        `json:"firstObservedAt"`
	LastObservedAt     *string        `json:"lastObservedAt"`

	// First is where the operation's first record is; not part of the JSON
	// document, but printers use it to point at the input.
	First Position `json:"-"`
}

// Invalid is one invalid input line.
type Invalid struct {
	Input string   `json:"input"`
	Line  int      `json:"line"`
	Error string   `json:"error"`
	Pos   Position `json:"-"`
}

// Merge computes the report of several Auditors that saw disjoint sets of
// operations of one input (shards). Operations are listed in order of their
// first record, whatever the sharding, so the report is deterministic.
func Merge(parts ...*Auditor) *Report {
	rep := &Report{
		SchemaVersion: SchemaVersion,
		Summary:       Summary{Labels: make(map[Label]int, len(Labels))},
		Operations:    []Operation{},
		Invalid:       []Invalid{},
	}
	for _, l := range Labels {
		rep.Summary.Labels[l] = 0
	}
	bindings := mergeBindings(parts)
	var ops []*operation
	for _, p := range parts {
		rep.Summary.Lines += p.lines
		rep.Summary.BlankLines += p.blankLines
		rep.Summary.Records += p.records
		rep.Summary.InvalidLines += p.invalidLines
		rep.Invalid = append(rep.Invalid, p.invalid...)
		ops = append(ops, p.order...)
	}
	if len(parts) > 1 {
		slices.SortFunc(ops, func(a, b *operation) int { return comparePos(a.first, b.first) })
		slices.SortFunc(rep.Invalid, func(a, b Invalid) int { return comparePos(a.Pos, b.Pos) })
	}
	rep.Summary.Operations = len(ops)
	rep.Operations = make([]Operation, 0, len(ops))
	for _, op := range ops {
		o := op.report(bindings)
		rep.Summary.Labels[o.Label]++
		rep.Summary.Attempts += o.Attempts
		rep.Summary.EffectObservations += o.EffectObservations
		rep.Operations = append(rep.Operations, o)
	}
	return rep
}

func comparePos(a, b Position) int {
	switch {
	case a.Before(b):
		return -1
	case b.Before(a):
		return 1
	}
	return 0
}

// mergeBindings returns the whole input's key bindings. With one part they
// are that part's own; shards are united by pair.
func mergeBindings(parts []*Auditor) map[pairKey]*binding {
	if len(parts) == 1 {
		return parts[0].bindings
	}
	all := make(map[pairKey]*binding)
	for _, p := range parts {
		for k, b := range p.bindings {
			m := all[k]
			if m == nil {
				m = &binding{pairKey: k}
				all[k] = m
			}
			for _, h := range b.hashes.items {
				m.hashes.add(h)
			}
			m.ops = append(m.ops, b.ops...)
		}
	}
	for _, m := range all {
		slices.SortFunc(m.ops, func(a, b *operation) int { return comparePos(a.first, b.first) })
	}
	return all
}

// report applies the labelling rules to one operation.
func (op *operation) report(bindings map[pairKey]*binding) Operation {
	o := Operation{
		OperationID:        op.id,
		Attempts:           op.attempts(),
		Results:            make(map[string]int, len(op.results)),
		EffectObservations: op.effectObs,
		DistinctEffects:    op.effects.len(),
		EffectRefs:         op.effects.list(),
		IdempotencyKeys:    make([]string, 0, len(op.pairs)),
		PayloadHashes:      op.hashes.list(),
		First:              op.first,
	}
	for _, rc := range op.results {
		o.Results[rc.result] = rc.n
	}
	for _, b := range op.pairs {
		if !slices.Contains(o.IdempotencyKeys, b.key) {
			o.IdempotencyKeys = append(o.IdempotencyKeys, b.key)
		}
	}
	if op.timed {
		first, last := op.firstSeen.String(), op.lastSeen.String()
		o.FirstObservedAt, o.LastObservedAt = &first, &last
	}
	o.Label, o.Reason = op.label(bindings)
	o.NextAction = o.Label.NextAction()
	return o
}

// label returns the first rule of SPEC's Labels that matches, and the
// evidence for it in words.
func (op *operation) label(bindings map[pairKey]*binding) (Label, string) {
	if op.hashes.len() >= 2 {
		return KeyConflict, fmt.Sprintf("%d payload hashes under one operation: %s",
			op.hashes.len(), list(op.hashes.items))
	}
	for _, p := range op.pairs {
		b := bindings[p.pairKey]
		if b.hashes.len() >= 2 {
			return KeyConflict, fmt.Sprintf("key %s is bound to %d payload hashes (%s) by %s",
				describePair(b.pairKey), b.hashes.len(), list(b.hashes.items), describeOps(b.ops))
		}
	}
	switch n := op.effects.len(); {
	case n >= 2:
		return Duplicate, fmt.Sprintf("%s resolve to %d effectRefs: %s",
			plural(op.effectObs, "effect observation"), n, list(op.effects.items))
	case n == 1:
		verb := "resolves"
		if op.effectObs > 1 {
			verb = "resolve"
		}
		return Healthy, fmt.Sprintf("%s %s to 1 effectRef: %s",
			plural(op.effectObs, "effect observation"), verb, op.effects.items[0])
	}
	attempts := plural(op.attempts(), "attempt")
	switch {
	case op.absentObs == 0:
		return Uncertain, fmt.Sprintf("%s%s, no effect observation and no proof of absence",
			attempts, op.resultSummary())
	case op.attemptRecords == 0:
		return Absent, fmt.Sprintf("%s with no attempt records", plural(op.absentObs, "absent observation"))
	case !op.absentTimed:
		return Uncertain, fmt.Sprintf("%s, but no absent observation carries observedAt", attempts)
	case op.untimedAttempts > 0:
		return Uncertain, fmt.Sprintf("%s lack observedAt, so the absence observed at %s is not reliable",
			plural(op.untimedAttempts, "attempt record"), op.lastAbsent)
	case op.lastAbsent.Before(op.lastAttempt):
		return Uncertain, fmt.Sprintf("latest absent observation (%s) precedes the last attempt (%s)",
			op.lastAbsent, op.lastAttempt)
	}
	return Absent, fmt.Sprintf("absent observed at %s, at or after every attempt (%s, last at %s)",
		op.lastAbsent, attempts, op.lastAttempt)
}

// resultSummary renders the attempt results, e.g. " (timeout ×2)".
func (op *operation) resultSummary() string {
	if len(op.results) == 0 {
		return ""
	}
	parts := make([]string, len(op.results))
	for i, rc := range op.results {
		parts[i] = rc.result
		if rc.n > 1 {
			parts[i] += fmt.Sprintf(" ×%d", rc.n)
		}
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func describePair(p pairKey) string {
	if p.scope == "" {
		return p.key
	}
	return p.key + " (scope " + p.scope + ")"
}

func describeOps(ops []*operation) string {
	ids := make([]string, len(ops))
	for i, op := range ops {
		ids[i] = op.id
	}
	if len(ids) == 1 {
		return "operation " + ids[0]
	}
	return "operations " + list(ids)
}

// list joins values, naming at most a few so a reason stays one line.
func list(values []string) string {
	const max = 3
	if len(values) <= max {
		return strings.Join(values, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(values[:max], ", "), len(values)-max)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

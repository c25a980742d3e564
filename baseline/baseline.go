// Package baseline compares an audit with an earlier one, so that a CI gate
// fails only on what got worse: operations that are new, or that fail on a
// label or finding they did not fail on before.
package baseline

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/effectaudit/effectaudit/audit"
)

// Statuses an operation can have against a baseline.
const (
	New       = "new"       // not in the baseline, or failing on something it did not fail on before
	Unchanged = "unchanged" // in the baseline, failing on nothing new
	Resolved  = "resolved"  // failed the gate in the baseline, passes now
)

// Baseline is what an earlier report said about each operation.
type Baseline struct {
	ops   map[string]entry
	order []string // operation ids in baseline order
}

type entry struct {
	names []string // label and finding codes
}

// document is the part of a JSON report (effectaudit audit --format json)
// a baseline needs.
type document struct {
	SchemaVersion int `json:"schemaVersion"`
	Operations    []struct {
		OperationID string `json:"operationId"`
		Label       string `json:"label"`
		Findings    []struct {
			Code string `json:"code"`
		} `json:"findings"`
	} `json:"operations"`
}

// Load reads a JSON report written by an earlier run (--format json or
// --write-baseline); name is used in errors.
func Load(name string, r io.Reader) (*Baseline, error) {
	var doc document
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", name, err)
	}
	if doc.SchemaVersion != audit.SchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d; want %d (a report of effectaudit audit --format json)",
			name, doc.SchemaVersion, audit.SchemaVersion)
	}
	b := &Baseline{ops: make(map[string]entry, len(doc.Operations))}
	for _, o := range doc.Operations {
		if o.OperationID == "" {
			return nil, fmt.Errorf("%s: an operation without operationId", name)
		}
		e := entry{names: []string{o.Label}}
		for _, f := range o.Findings {
			e.names = append(e.names, f.Code)
		}
		if _, dup := b.ops[o.OperationID]; !dup {
			b.order = append(b.order, o.OperationID)
		}
		b.ops[o.OperationID] = e
	}
	return b, nil
}

// Comparison marks the operations of one report against a baseline. Use
// Mark on every operation (Report.Annotate), then Resolved.
type Comparison struct {
	base     *Baseline
	failOn   []string
	seen     map[string]bool
	resolved map[string]bool
	failed   bool // an operation marked new fails the gate
}

// Compare starts a comparison under the gate failOn (--fail-on).
func (b *Baseline) Compare(failOn []string) *Comparison {
	return &Comparison{base: b, failOn: failOn, seen: make(map[string]bool), resolved: make(map[string]bool)}
}

// Mark sets op.Baseline.
func (c *Comparison) Mark(op *audit.Operation) {
	now := c.failing(op.Label, op.Findings)
	c.seen[op.OperationID] = true
	before, ok := c.base.ops[op.OperationID]
	switch {
	case !ok:
		op.Baseline = New
	case len(now) > 0 && hasNew(now, c.matched(before.names)):
		op.Baseline = New // worse: fails on something it did not before
	case len(now) == 0 && len(c.matched(before.names)) > 0:
		op.Baseline = Resolved
	default:
		op.Baseline = Unchanged
	}
	if op.Baseline == New && len(now) > 0 {
		c.failed = true
	}
	if op.Baseline == Resolved {
		c.resolved[op.OperationID] = true
	}
}

// Failed reports whether an operation marked so far fails the gate anew.
func (c *Comparison) Failed() bool { return c.failed }

// Resolved returns the baseline's failing operations that now pass or are
// gone, in baseline order.
func (c *Comparison) Resolved() []string {
	var out []string
	for _, id := range c.base.order {
		if len(c.matched(c.base.ops[id].names)) > 0 && (!c.seen[id] || c.resolved[id]) {
			out = append(out, id)
		}
	}
	return out
}

// failing returns the gate names an operation with this label and these
// findings matches.
func (c *Comparison) failing(label audit.Label, findings []audit.Finding) []string {
	names := []string{string(label)}
	for _, f := range findings {
		names = append(names, f.Code)
	}
	return c.matched(names)
}

func (c *Comparison) matched(names []string) []string {
	var out []string
	for _, n := range names {
		if slices.Contains(c.failOn, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func hasNew(now, before []string) bool {
	for _, n := range now {
		if !slices.Contains(before, n) {
			return true
		}
	}
	return false
}

// Package baseline compares an audit with an earlier one, so that a CI gate
// fails only on what got worse: operations that are new, or that fail on a
// label or finding they did not fail on before.
package baseline

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/effectaudit/effectaudit/audit"
)

// Statuses an operation can have against a baseline.
const (
	New       = "new"       // not in the baseline, or failing on something it did not fail on before
	Unchanged = "unchanged" // in the baseline, failing on nothing new
	Resolved  = "resolved"  // failed the gate in the baseline, passes now
)

// Baseline is what an earlier report said about each operation. A report
// may list millions of operations, so each keeps its id and its names as
// bits, and the report is read one operation at a time.
type Baseline struct {
	gates []string         // audit.GateNames: what the bits of names stand for
	index map[string]int32 // operation id → its position in ids
	ids   []string         // in baseline order
	names []names          // of ids[i]: its label and finding codes
}

// names is a set of gate names (labels and finding codes) as bits, in the
// order of audit.GateNames (TestGateNamesFit: there are fewer than 32).
// Other names, which a report of another version may hold, never match a
// gate (--fail-on takes only these), so they are left out.
type names uint32

// bit returns the bit of a gate name, 0 for any other name.
func (b *Baseline) bit(name string) names {
	if i := slices.Index(b.gates, name); i >= 0 {
		return 1 << i
	}
	return 0
}

// operation is the part of a report's operation a baseline needs.
type operation struct {
	OperationID string `json:"operationId"`
	Label       string `json:"label"`
	Findings    []struct {
		Code string `json:"code"`
	} `json:"findings"`
}

// Load reads a JSON report written by an earlier run (--format json or
// --write-baseline); name is used in errors.
func Load(name string, r io.Reader) (*Baseline, error) {
	b := &Baseline{gates: audit.GateNames(), index: map[string]int32{}}
	version, err := b.read(json.NewDecoder(r))
	if err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", name, err)
	}
	if version != audit.SchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d; want %d (a report of effectaudit audit --format json)",
			name, version, audit.SchemaVersion)
	}
	if _, ok := b.index[""]; ok {
		return nil, fmt.Errorf("%s: an operation without operationId", name)
	}
	return b, nil
}

// read reads the report's members, its operations one at a time, and
// returns its schemaVersion (0 if it has none).
func (b *Baseline) read(dec *json.Decoder) (version int, err error) {
	if err := delim(dec, '{'); err != nil {
		return 0, unexpected(err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, unexpected(err)
		}
		key := tok.(string) // a member name: the decoder checks the syntax
		if seen[key] {
			return 0, fmt.Errorf("member %q given twice", key)
		}
		seen[key] = true
		switch key {
		case "schemaVersion":
			err = dec.Decode(&version)
		case "operations":
			err = b.readOperations(dec)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", key, unexpected(err))
		}
	}
	return version, unexpected(delim(dec, '}'))
}

// unexpected returns io.ErrUnexpectedEOF for io.EOF: the input ended inside
// the document.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (b *Baseline) readOperations(dec *json.Decoder) error {
	if err := delim(dec, '['); err != nil {
		return err
	}
	for dec.More() {
		var o operation
		if err := dec.Decode(&o); err != nil {
			return err
		}
		set := b.bit(o.Label)
		for _, f := range o.Findings {
			set |= b.bit(f.Code)
		}
		if i, dup := b.index[o.OperationID]; dup {
			b.names[i] = set // the last one listed holds, as a map's would
			continue
		}
		b.index[o.OperationID] = int32(len(b.ids))
		b.ids = append(b.ids, o.OperationID)
		b.names = append(b.names, set)
	}
	return delim(dec, ']')
}

// delim reads the next token, which must be d.
func delim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		if s, ok := tok.(string); ok {
			tok = strconv.Quote(s)
		}
		return fmt.Errorf("found %v where %v belongs", tok, d)
	}
	return nil
}

// Comparison marks the operations of one report against a baseline. Use
// Mark on every operation (Report.Annotate), then Resolved.
type Comparison struct {
	base     *Baseline
	failOn   names
	seen     []bool // by position in the baseline
	resolved []bool
	failed   bool // an operation marked new fails the gate
}

// Compare starts a comparison under the gate failOn (--fail-on).
func (b *Baseline) Compare(failOn []string) *Comparison {
	c := &Comparison{base: b, seen: make([]bool, len(b.ids)), resolved: make([]bool, len(b.ids))}
	for _, n := range failOn {
		c.failOn |= b.bit(n)
	}
	return c
}

// Mark sets op.Baseline. An operation may be marked more than once.
func (c *Comparison) Mark(op *audit.Operation) {
	now := c.base.bit(string(op.Label))
	for _, f := range op.Findings {
		now |= c.base.bit(f.Code)
	}
	now &= c.failOn
	i, ok := c.base.index[op.OperationID]
	var before names
	if ok {
		c.seen[i] = true
		before = c.base.names[i] & c.failOn
	}
	switch {
	case !ok:
		op.Baseline = New
	case now&^before != 0:
		op.Baseline = New // worse: fails on something it did not before
	case now == 0 && before != 0:
		op.Baseline = Resolved
	default:
		op.Baseline = Unchanged
	}
	if op.Baseline == New && now != 0 {
		c.failed = true
	}
	if ok {
		c.resolved[i] = op.Baseline == Resolved
	}
}

// Failed reports whether an operation marked so far fails the gate anew.
func (c *Comparison) Failed() bool { return c.failed }

// Resolved returns the baseline's failing operations that now pass or are
// gone, in baseline order.
func (c *Comparison) Resolved() []string {
	var out []string
	for i, id := range c.base.ids {
		if c.base.names[i]&c.failOn != 0 && (!c.seen[i] || c.resolved[i]) {
			out = append(out, id)
		}
	}
	return out
}

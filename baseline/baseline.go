// Package baseline compares an audit with an earlier one, so that a CI gate
// fails only on what got worse: operations that are new, or that fail on a
// label or finding they did not fail on before.
package baseline

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	jsoniter "github.com/json-iterator/go"

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

// Load reads a JSON report written by an earlier run (--format json or
// --write-baseline); name is used in errors.
func Load(name string, r io.Reader) (*Baseline, error) {
	b := &Baseline{gates: audit.GateNames(), index: map[string]int32{}}
	version, err := b.read(r)
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
// returns its schemaVersion (0 if it has none). A report can be gigabytes:
// json-iterator's streaming iterator reads one five times as fast as
// encoding/json's Decoder, in a buffer of its own size. Members that are
// null are as good as missing, as encoding/json has them.
func (b *Baseline) read(r io.Reader) (version int, err error) {
	in := &endReader{r: r}
	it := jsoniter.Parse(jsoniter.ConfigDefault, in, 64<<10)
	defer func() {
		if err == nil && it.Error != nil {
			err = it.Error
		}
		switch {
		case err == nil:
		case in.ended:
			err = io.ErrUnexpectedEOF // the input ended inside the document
		default:
			// json-iterator's messages end with the text around the error
			// twice, the second time at length.
			msg, _, _ := strings.Cut(err.Error(), ", bigger context")
			err = errors.New(msg)
		}
	}()
	fail := func(format string, args ...any) bool {
		if it.Error == nil {
			err = fmt.Errorf(format, args...)
		}
		return false
	}
	if it.WhatIsNext() != jsoniter.ObjectValue {
		fail("the document is not an object")
	}
	seen := map[string]bool{} // of the members read: which one would hold is unclear
	it.ReadObjectCB(func(it *jsoniter.Iterator, key string) bool {
		if key == "schemaVersion" || key == "operations" {
			if seen[key] {
				return fail("member %q given twice", key)
			}
			seen[key] = true
		}
		switch key {
		case "schemaVersion":
			switch it.WhatIsNext() {
			case jsoniter.NilValue:
				it.ReadNil()
			case jsoniter.NumberValue:
				version = it.ReadInt()
			default:
				return fail("schemaVersion is not a number")
			}
		case "operations":
			return b.readOperations(it, fail)
		default:
			it.Skip()
		}
		return it.Error == nil
	})
	return version, err
}

// endReader reads from r and notes when a read found nothing more: a
// parser that asks for more once the input has ended found it cut short.
type endReader struct {
	r     io.Reader
	ended bool
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if n == 0 && err == io.EOF {
		e.ended = true
	}
	return n, err
}

// readOperations reads the operations array; fail reports a report that
// is not one and returns false.
func (b *Baseline) readOperations(it *jsoniter.Iterator, fail func(string, ...any) bool) bool {
	switch it.WhatIsNext() {
	case jsoniter.NilValue:
		it.ReadNil()
		return true
	case jsoniter.ArrayValue:
	default:
		return fail("operations is not a list")
	}
	n := 0
	return it.ReadArrayCB(func(it *jsoniter.Iterator) bool {
		n++
		var id string
		var label, findings names
		switch it.WhatIsNext() {
		case jsoniter.NilValue:
			it.ReadNil()
		case jsoniter.ObjectValue:
			ok := it.ReadObjectCB(func(it *jsoniter.Iterator, key string) bool {
				switch key {
				case "operationId":
					if !readString(it, &id) {
						return fail("operation %d: operationId is not a string", n)
					}
				case "label":
					var l string
					if !readString(it, &l) {
						return fail("operation %d: label is not a string", n)
					}
					label = b.bit(l)
				case "findings":
					findings = 0 // the last member of a name holds
					return b.readFindings(it, &findings, func(format string, args ...any) bool {
						return fail("operation %d: %s", n, fmt.Sprintf(format, args...))
					})
				default:
					it.Skip()
				}
				return it.Error == nil
			})
			if !ok {
				return false
			}
		default:
			return fail("operation %d is not an object", n)
		}
		b.add(id, label|findings)
		return it.Error == nil
	})
}

// readFindings adds the codes of a findings array to set.
func (b *Baseline) readFindings(it *jsoniter.Iterator, set *names, fail func(string, ...any) bool) bool {
	switch it.WhatIsNext() {
	case jsoniter.NilValue:
		it.ReadNil()
		return true
	case jsoniter.ArrayValue:
	default:
		return fail("findings is not a list")
	}
	return it.ReadArrayCB(func(it *jsoniter.Iterator) bool {
		var code string
		switch it.WhatIsNext() {
		case jsoniter.NilValue:
			it.ReadNil()
		case jsoniter.ObjectValue:
			ok := it.ReadObjectCB(func(it *jsoniter.Iterator, key string) bool {
				if key != "code" {
					it.Skip()
				} else if !readString(it, &code) {
					return fail("a finding's code is not a string")
				}
				return it.Error == nil
			})
			if !ok {
				return false
			}
		default:
			return fail("a finding is not an object")
		}
		*set |= b.bit(code)
		return it.Error == nil
	})
}

// readString reads a string, or null as "", into s; it reports false for
// any other value, which it leaves unread.
func readString(it *jsoniter.Iterator, s *string) bool {
	switch it.WhatIsNext() {
	case jsoniter.StringValue:
		*s = it.ReadString()
	case jsoniter.NilValue:
		it.ReadNil()
		*s = ""
	default:
		return false
	}
	return true
}

// add records an operation of the baseline; an id listed twice keeps its
// first place and its last names, as a map would.
func (b *Baseline) add(id string, set names) {
	if i, dup := b.index[id]; dup {
		b.names[i] = set
		return
	}
	b.index[id] = int32(len(b.ids))
	b.ids = append(b.ids, id)
	b.names = append(b.names, set)
}

// Comparison marks the operations of one report against a baseline. Use
// Mark on every operation, then Resolved and Failed; Annotate marks them
// again as the report is printed (Report.Annotate).
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

// Mark sets op.Baseline and notes it for Resolved and Failed. An operation
// may be marked more than once.
func (c *Comparison) Mark(op *audit.Operation) {
	i, listed, fails := c.status(op)
	if op.Baseline == New && fails {
		c.failed = true
	}
	if listed {
		c.seen[i] = true
		c.resolved[i] = op.Baseline == Resolved
	}
}

// Annotate sets op.Baseline as Mark does, and only that: it is safe for
// concurrent use.
func (c *Comparison) Annotate(op *audit.Operation) { c.status(op) }

// status sets op.Baseline, and returns op's position in the baseline, if
// it is listed there, and whether op fails the gate now.
func (c *Comparison) status(op *audit.Operation) (i int32, listed, fails bool) {
	now := c.base.bit(string(op.Label))
	for _, f := range op.Findings {
		now |= c.base.bit(f.Code)
	}
	now &= c.failOn
	i, listed = c.base.index[op.OperationID]
	var before names
	if listed {
		before = c.base.names[i] & c.failOn
	}
	switch {
	case !listed:
		op.Baseline = New
	case now&^before != 0:
		op.Baseline = New // worse: fails on something it did not before
	case now == 0 && before != 0:
		op.Baseline = Resolved
	default:
		op.Baseline = Unchanged
	}
	return i, listed, now != 0
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

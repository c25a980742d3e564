// Package baseline compares an audit with an earlier one, so that a CI gate
// fails only on what got worse: operations that are new, or that fail on a
// label or finding they did not fail on before.
package baseline

import (
	"bufio"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math/bits"
	"slices"
	"strings"

	"github.com/effectaudit/effectaudit/audit"
)

// Baseline is what an earlier report said about each operation. A report
// may list millions of operations, so each keeps its id and its names as
// bits, and the report is read one operation at a time. Nothing here holds
// a Go pointer per operation: the audit runs with little headroom for the
// garbage collector (see gctune), which would otherwise scan millions of
// strings at every cycle; at 10M records that took a third of the run.
type Baseline struct {
	gates []string         // audit.GateNames: what the bits of names stand for
	seed  maphash.Seed     // of index
	index map[uint64]int32 // by the hash of an operation id: its position
	clash map[string]int32 // ids whose hash an earlier id has; next to never
	ids   []byte           // the operation ids, one after another
	ends  []int64          // operation i's id ends at ends[i]
	names []nameSet        // of operation i: its label and finding codes
}

// len returns the number of operations.
func (b *Baseline) len() int { return len(b.ends) }

// id returns operation i's id, sharing the baseline's bytes.
func (b *Baseline) id(i int32) []byte {
	start := int64(0)
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.ids[start:b.ends[i]]
}

// find returns the position of the operation with this id.
func (b *Baseline) find(id string) (int32, bool) { return b.findHashed(id, maphash.String(b.seed, id)) }

// findHashed is find, given the id's hash.
func (b *Baseline) findHashed(id string, h uint64) (int32, bool) {
	if i, ok := b.index[h]; ok && string(b.id(i)) == id {
		return i, true
	}
	i, ok := b.clash[id]
	return i, ok
}

// add records an operation of the baseline; an id listed twice keeps its
// first place and its last names, as a map would. id may alias a buffer
// that changes after the call: what is kept is copied.
func (b *Baseline) add(id string, set nameSet) {
	h := maphash.String(b.seed, id)
	if i, dup := b.findHashed(id, h); dup {
		b.names[i] = set
		return
	}
	i := int32(b.len())
	if _, taken := b.index[h]; taken {
		if b.clash == nil {
			b.clash = map[string]int32{}
		}
		b.clash[strings.Clone(id)] = i // id may alias the reader's buffer
	} else {
		b.index[h] = i
	}
	b.ids = append(b.ids, id...)
	b.ends = append(b.ends, int64(len(b.ids)))
	b.names = append(b.names, set)
}

// nameSet is a set of gate names (labels and finding codes) as bits, in the
// order of audit.GateNames (TestGateNamesFit: there are fewer than 32).
// Other names, which a report of another version may hold, never match a
// gate (--fail-on takes only these), so they are left out.
type nameSet uint32

// bit returns the bit of a gate name, 0 for any other name.
func (b *Baseline) bit(name string) nameSet {
	if i := slices.Index(b.gates, name); i >= 0 {
		return 1 << i
	}
	return 0
}

// Load reads a JSON report written by an earlier run (--format json or
// --write-baseline) to its end; name is used in errors. A leading byte
// order mark is skipped, and only white space may follow the report.
func Load(name string, r io.Reader) (*Baseline, error) { return load(name, r, 64<<10) }

// load is Load with reads of the given size.
func load(name string, r io.Reader, read int) (*Baseline, error) {
	br := bufio.NewReaderSize(r, read)
	p, err := br.Peek(len(bom))
	if err != nil && err != io.EOF {
		return nil, readError(name, err)
	}
	if string(p) == bom {
		_, _ = br.Discard(len(bom))
	}
	b := &Baseline{gates: audit.GateNames(), seed: maphash.MakeSeed(), index: map[uint64]int32{}}
	rd := newReader(b, br, read)
	version := rd.report()
	rd.end(version)
	if rd.readErr != nil {
		return nil, readError(name, rd.readErr)
	}
	if err := rd.error(); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", name, err)
	}
	if version == 0 {
		return nil, fmt.Errorf("%s: no schemaVersion: --baseline takes the report of audit --format json or --write-baseline, not NDJSON or a ledger", name)
	}
	if version != audit.SchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d; want %d (a report of effectaudit audit --format json)",
			name, version, audit.SchemaVersion)
	}
	return b, nil
}

const bom = "\xef\xbb\xbf"

// readError is a failure to read name; an error of the file system names
// the file already.
func readError(name string, err error) error {
	if errors.As(err, new(*fs.PathError)) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Comparison marks the operations of one report against a baseline. Use
// Mark on every operation, then Resolved and Failed; Annotate marks them
// again as the report is printed (Report.Annotate).
type Comparison struct {
	base     *Baseline
	failOn   nameSet
	seen     []bool // by position in the baseline
	resolved []bool
	failed   bool // an operation marked new fails the gate
}

// Compare starts a comparison under the gate failOn (--fail-on).
func (b *Baseline) Compare(failOn []string) *Comparison {
	c := &Comparison{base: b, seen: make([]bool, b.len()), resolved: make([]bool, b.len())}
	for _, n := range failOn {
		c.failOn |= b.bit(n)
	}
	return c
}

// Mark sets op.Baseline and notes it for Resolved and Failed. An operation
// may be marked more than once.
func (c *Comparison) Mark(op *audit.Operation) {
	i, listed, fails := c.status(op)
	if op.Baseline == audit.BaselineNew && fails {
		c.failed = true
	}
	if listed {
		c.seen[i] = true
		c.resolved[i] = op.Baseline == audit.BaselineResolved
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
	i, listed = c.base.find(op.OperationID)
	var before nameSet
	if listed {
		before = c.base.names[i] & c.failOn
	}
	op.FailsAnew = ""
	switch {
	case !listed:
		op.Baseline = audit.BaselineNew
	case now&^before != 0:
		op.Baseline = audit.BaselineNew // worse: fails on something it did not before
		op.FailsAnew = c.base.gates[bits.TrailingZeros32(uint32(now&^before))]
	case now == 0 && before != 0:
		op.Baseline = audit.BaselineResolved
	default:
		op.Baseline = audit.BaselineUnchanged
	}
	return i, listed, now != 0
}

// Failed reports whether an operation marked so far fails the gate anew.
func (c *Comparison) Failed() bool { return c.failed }

// Resolved returns the baseline's failing operations that now pass or are
// gone, in baseline order.
func (c *Comparison) Resolved() []string {
	out := []string{} // not nil: a report with a baseline lists none as []
	for i := range c.base.len() {
		if c.base.names[i]&c.failOn != 0 && (!c.seen[i] || c.resolved[i]) {
			out = append(out, string(c.base.id(int32(i))))
		}
	}
	return out
}

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
	"slices"
	"strconv"
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
// first place and its last names, as a map would.
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
		b.clash[id] = i
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
func Load(name string, r io.Reader) (*Baseline, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	p, err := br.Peek(len(bom))
	if err != nil && err != io.EOF {
		return nil, readError(name, err)
	}
	if string(p) == bom {
		_, _ = br.Discard(len(bom))
	}
	b := &Baseline{gates: audit.GateNames(), seed: maphash.MakeSeed(), index: map[uint64]int32{}}
	rd := newReader(b, br)
	version := rd.report()
	rd.end()
	if rd.in.err != nil {
		return nil, readError(name, rd.in.err)
	}
	if err := rd.error(); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", name, err)
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

// reader reads a report into a Baseline one operation at a time. A report
// can be gigabytes: json-iterator's streaming iterator reads one five times
// as fast as encoding/json's Decoder, in a buffer of its own size. Members
// are read as encoding/json reads them into structs, except that their
// names must match exactly: null leaves a string as it was and empties a
// list, and of a member given twice in an operation the last holds. The
// members the baseline does not need are skipped, and json-iterator skips
// some things encoding/json refuses (numbers such as 01, a null where a
// member name belongs but first) and refuses some numbers it takes (such
// as 0.5e39 and 1e400). A lone surrogate escape, which encoding/json reads
// as U+FFFD, json-iterator reads otherwise when another escape follows it.
// No report of effectaudit has any of these: it writes ids as UTF-8, a
// lone surrogate already replaced.
type reader struct {
	b   *Baseline
	it  *jsoniter.Iterator
	in  *source
	err error // the first problem found that is not a syntax error
	op  int   // 1 + index of the operation being read, for errors
}

func newReader(b *Baseline, r io.Reader) *reader {
	in := &source{r: r}
	it := jsoniter.Parse(jsoniter.ConfigDefault, in, 64<<10)
	in.it = it
	return &reader{b: b, it: it, in: in}
}

// source reads the input for the iterator and notes when the iterator asks
// for more after the input has ended, before finding any error: the
// document was cut short. It keeps a read error, which the iterator turns
// into text.
type source struct {
	r     io.Reader
	it    *jsoniter.Iterator
	n     int64 // bytes read
	ended bool
	err   error
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += int64(n)
	switch {
	case n == 0 && err == io.EOF:
		s.ended = s.ended || s.it.Error == nil
	case err != nil && err != io.EOF:
		s.err = err
	}
	return n, err
}

// fail notes a report that is not one, unless the iterator has already
// found an error, and returns false to stop the iterator.
func (r *reader) fail(format string, args ...any) bool {
	if r.err == nil && r.it.Error == nil {
		r.err = fmt.Errorf(format, args...)
	}
	return false
}

// error returns what stopped the reading, or nil.
func (r *reader) error() error {
	switch {
	case r.err != nil:
		return r.err
	case r.it.Error == nil:
		return nil
	case r.in.ended && r.in.n == 0:
		return errors.New("the file is empty")
	case r.in.ended:
		return io.ErrUnexpectedEOF
	}
	return syntaxError(r.it.Error)
}

// end reads on to the end of the input, where nothing but white space may
// follow the report. Reading to the end also has a compressed input check
// its checksum, which a decompressor does only there.
func (r *reader) end() {
	if r.err != nil || r.it.Error != nil {
		return
	}
	if r.it.WhatIsNext() != jsoniter.InvalidValue || r.it.Error == nil {
		r.fail("something follows the report")
		return
	}
	if r.it.Error == io.EOF {
		r.it.Error = nil // the end the report should have
	}
}

// syntaxError rewords an error of json-iterator's, whose message names the
// function that found it and ends with the input around it, raw, twice. It
// keeps what was found and the shorter excerpt, escaped, so that the
// message stays on one line and a baseline cannot write control characters
// to a terminal.
func syntaxError(err error) error {
	what, rest, found := strings.Cut(err.Error(), ", error found in #")
	if _, after, ok := strings.Cut(what, ": "); ok {
		what = after
	}
	q := strconv.QuoteToGraphic(what)
	what = q[1 : len(q)-1]
	if !found {
		return errors.New(what)
	}
	_, near, _ := strings.Cut(rest, "...|")
	near, _, _ = strings.Cut(near, "|...")
	return fmt.Errorf("%s near %s", what, strconv.QuoteToGraphic(near))
}

// report reads the report's members and returns its schemaVersion (0 if it
// has none).
func (r *reader) report() (version int) {
	if r.it.WhatIsNext() != jsoniter.ObjectValue {
		r.fail("the document is not a JSON object")
		return 0
	}
	seen := map[string]bool{} // of the members read: which would hold is unclear
	r.it.ReadObjectCB(func(it *jsoniter.Iterator, key string) bool {
		if key == "schemaVersion" || key == "operations" {
			if seen[key] {
				return r.fail("member %q given twice", key)
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
				return r.fail("schemaVersion is not a number")
			}
		case "operations":
			return r.operations()
		default:
			it.Skip()
		}
		return it.Error == nil
	})
	return version
}

// operations reads the operations array.
func (r *reader) operations() bool {
	notList := func() bool { return r.fail("operations is not a list") }
	return r.list(notList, func() bool {
		r.op++
		var id, label string
		var findings nameSet
		notObject := func() bool { return r.fail("operation %d is missing or not an object", r.op) }
		ok := r.object(notObject, func(key string) bool {
			switch key {
			case "operationId":
				return r.string(&id, "operationId")
			case "label":
				return r.string(&label, "label")
			case "findings":
				findings = 0
				return r.findings(&findings)
			}
			r.it.Skip()
			return r.it.Error == nil
		})
		if !ok {
			return false
		}
		if id == "" {
			return r.fail("operation %d has no operationId", r.op)
		}
		r.b.add(id, r.b.bit(label)|findings)
		return true
	})
}

// findings adds the codes of an operation's findings to set.
func (r *reader) findings(set *nameSet) bool {
	notList := func() bool { return r.fail("operation %d: findings is not a list", r.op) }
	notObject := func() bool { return r.fail("operation %d: a finding is missing or not an object", r.op) }
	return r.list(notList, func() bool {
		var code string
		ok := r.object(notObject, func(key string) bool {
			if key == "code" {
				return r.string(&code, "a finding's code")
			}
			r.it.Skip()
			return r.it.Error == nil
		})
		*set |= r.b.bit(code)
		return ok
	})
}

// list reads a list, calling elem for each element, or null; notList
// fails any other value.
func (r *reader) list(notList func() bool, elem func() bool) bool {
	switch r.it.WhatIsNext() {
	case jsoniter.NilValue:
		r.it.ReadNil()
		return true
	case jsoniter.ArrayValue:
		return r.it.ReadArrayCB(func(*jsoniter.Iterator) bool { return elem() && r.it.Error == nil })
	}
	return notList()
}

// object reads an object, calling member for each member, or null;
// notObject fails any other value.
func (r *reader) object(notObject func() bool, member func(key string) bool) bool {
	switch r.it.WhatIsNext() {
	case jsoniter.NilValue:
		r.it.ReadNil()
		return true
	case jsoniter.ObjectValue:
		return r.it.ReadObjectCB(func(_ *jsoniter.Iterator, key string) bool { return member(key) })
	}
	return notObject()
}

// string reads a string member into s; null leaves s as it was.
func (r *reader) string(s *string, what string) bool {
	switch r.it.WhatIsNext() {
	case jsoniter.StringValue:
		*s = r.it.ReadString()
	case jsoniter.NilValue:
		r.it.ReadNil()
	default:
		return r.fail("operation %d: %s is not a string", r.op, what)
	}
	return r.it.Error == nil
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
	i, listed = c.base.find(op.OperationID)
	var before nameSet
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
	for i := range c.base.len() {
		if c.base.names[i]&c.failOn != 0 && (!c.seen[i] || c.resolved[i]) {
			out = append(out, string(c.base.id(int32(i))))
		}
	}
	return out
}

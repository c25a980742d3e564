package audit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
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

// labels lists every label in SPEC's precedence order.
var labels = []Label{KeyConflict, Duplicate, Healthy, Absent, Uncertain}

// Labels returns every label in SPEC's precedence order, a copy the caller
// may change.
func Labels() []Label { return slices.Clone(labels) }

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
// Operations are not held in memory all at once: Operations renders them one
// by one, so a report on millions of operations streams out.
type Report struct {
	SchemaVersion int       `json:"schemaVersion"`
	Summary       Summary   `json:"summary"`
	Invalid       []Invalid `json:"invalid"`

	// Annotate, if set, completes each operation once it is rendered (a
	// baseline comparison marks it). It runs on the goroutines that render,
	// several at once, so it must be safe for concurrent use.
	Annotate func(*Operation) `json:"-"`

	view *view
	list []Operation // instead of view, for a report built by NewReport
}

// NewReport builds a report from operations already rendered: for tests of
// printers, and for tools that transform reports.
func NewReport(s Summary, ops []Operation, invalid []Invalid) *Report {
	if invalid == nil {
		invalid = []Invalid{}
	}
	return &Report{SchemaVersion: SchemaVersion, Summary: s, Invalid: invalid, list: ops}
}

// Summary accounts for every input line: Lines = BlankLines + Records + InvalidLines.
type Summary struct {
	Lines              int            `json:"lines"`
	BlankLines         int            `json:"blankLines"`
	Records            int            `json:"records"`
	InvalidLines       int            `json:"invalidLines"`
	Attempts           int            `json:"attempts"`
	EffectObservations int            `json:"effectObservations"`
	Operations         int            `json:"operations"`
	Labels             map[Label]int  `json:"labels"`
	Findings           map[string]int `json:"findings"` // every code, zero or not
	// Resolved lists, with a baseline, the operations that failed the gate
	// in the baseline and no longer do (or are gone), in baseline order;
	// nil, and left out of the JSON, without a baseline.
	Resolved []string `json:"resolved,omitzero"`
}

// Results counts an operation's attempts by result, in order of the
// results' names. JSON has it as an object, {"success":1,"timeout":2}: a
// slice rather than a map because the report renders millions of them.
type Results []ResultCount

// ResultCount is how many attempts had one result.
type ResultCount struct {
	Result   string
	Attempts int
}

// Count returns the attempts whose result is name.
func (r Results) Count(name string) int {
	for _, c := range r {
		if c.Result == name {
			return c.Attempts
		}
	}
	return 0
}

// MarshalJSON writes r as a JSON object, as encoding/json writes a map of
// the same counts. It leaves <, > and & alone: the encoder it is called
// from escapes them, or not, as it was told.
func (r Results) MarshalJSON() ([]byte, error) {
	m := make(map[string]int, len(r))
	for _, c := range r {
		m[c.Result] = c.Attempts
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads the object MarshalJSON writes.
func (r *Results) UnmarshalJSON(b []byte) error {
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*r = make(Results, 0, len(m))
	for name, n := range m {
		*r = append(*r, ResultCount{Result: name, Attempts: n})
	}
	slices.SortFunc(*r, func(x, y ResultCount) int { return strings.Compare(x.Result, y.Result) })
	return nil
}

// The statuses an operation can have against a baseline (Operation.Baseline).
const (
	BaselineNew       = "new"       // not in the baseline, or failing on something it did not fail on before
	BaselineUnchanged = "unchanged" // in the baseline, failing on nothing new
	BaselineResolved  = "resolved"  // failed the gate in the baseline, passes now
)

// Operation is the report on one operation.
type Operation struct {
	OperationID        string    `json:"operationId"`
	Label              Label     `json:"label"`
	Reason             string    `json:"reason"`
	NextAction         string    `json:"nextAction"`
	Attempts           int       `json:"attempts"`
	Results            Results   `json:"results"`
	EffectObservations int       `json:"effectObservations"`
	DistinctEffects    int       `json:"distinctEffects"`
	EffectRefs         []string  `json:"effectRefs"`
	IdempotencyKeys    []string  `json:"idempotencyKeys"`
	PayloadHashes      []string  `json:"payloadHashes"`
	FirstObservedAt    *string   `json:"firstObservedAt"`
	LastObservedAt     *string   `json:"lastObservedAt"`
	Findings           []Finding `json:"findings"`
	// Baseline is, with --baseline, one of the Baseline statuses.
	Baseline string `json:"baseline,omitempty"`
	// FailsAnew is, with --baseline, a name in --fail-on that an operation
	// listed in the baseline fails on now and did not then: what makes it
	// new, and what reports on it name. Not part of the JSON document.
	FailsAnew string `json:"-"`

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

// Operations calls fn for every operation in report order: the order of
// each operation's first record. It stops at the first error fn returns.
// The *Operation is reused once fn returns, and so are its slices and the
// bytes of its strings, but for the strings of OperationID, EffectRefs and
// IdempotencyKeys (which stay valid as long as the report): fn must Clone
// what it keeps.
// Operations are rendered ahead in parallel batches, so that building them
// is not the bottleneck of a large report; fn still sees them one at a
// time, in order, on the calling goroutine.
func (r *Report) Operations(fn func(*Operation) error) error {
	if r.view == nil {
		for i := range r.list {
			o := r.list[i].Clone()
			if r.Annotate != nil {
				r.Annotate(&o)
			}
			if err := fn(&o); err != nil {
				return err
			}
		}
		return nil
	}
	return r.view.batches(nil, false, r.Annotate, each(fn))
}

// each returns what hands a batch's operations to fn, one at a time.
func each(fn func(*Operation) error) func(*batch) error {
	return func(b *batch) error {
		for i := range b.ops {
			if err := fn(&b.ops[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// Briefs is Operations for callers that need no words: the operations it
// hands out have no Reason, no times (FirstObservedAt, LastObservedAt) and
// findings without their messages, which saves most of the rendering (a
// report built by NewReport hands out its operations whole). The table
// lays out its rows from briefs, and a baseline compares them.
func (r *Report) Briefs(fn func(*Operation) error) error {
	if r.view == nil {
		return r.Operations(fn)
	}
	return r.view.batches(nil, true, r.Annotate, each(fn))
}

// An Encoder appends the encoding of one operation to dst. Each goroutine
// that encodes gets its own from a NewEncoder, so it may keep state.
type Encoder func(dst []byte, o *Operation) []byte

// EncodeOperations is Operations for printers that turn each operation into
// bytes: the goroutines that render operations encode them too, so encoding
// is spread over the cores as well, and write receives the encoded bytes of
// one or more operations at a time, in report order, on the calling
// goroutine. It stops at the first error write returns.
func (r *Report) EncodeOperations(newEncoder func() Encoder, write func([]byte) error) error {
	if r.view == nil {
		enc := newEncoder()
		var buf []byte
		return r.Operations(func(o *Operation) error {
			buf = enc(buf[:0], o)
			return write(buf)
		})
	}
	return r.view.batches(newEncoder, false, r.Annotate, func(b *batch) error { return write(b.data) })
}

// batch is a run of operations in report order, rendered and, if the
// caller encodes, encoded.
type batch struct {
	ops   []Operation
	times [][2]string // each operation's observed-at strings
	text  text        // the operations' strings
	data  []byte
	last  bool // the last piece of its run of operations (see batches)

	warmed uint64 // what warm read, kept so the reads are not optimized away
}

// Batches hold batchSize operations, or fewer when their text and encoding
// pass batchBytes: operations with very long strings must not make a batch
// hold hundreds of megabytes. A batch's text and encoding stay in the
// core's cache while it is filled: measured on 1M records, printing took 7%
// less time than with 512 and 1 MiB, and more with 64 and 128 KiB, whose
// hand-offs cost more than the cache saves.
const (
	batchSize  = 128
	batchBytes = 256 << 10
)

// fill renders operations of refs into b, in brief or not, annotates them
// with annotate and encodes them with enc if these are not nil, until they
// are all done or the batch holds batchBytes; it returns how many it did.
func (b *batch) fill(v *view, refs []opRef, enc Encoder, brief bool, annotate func(*Operation)) int {
	if cap(b.ops) < len(refs) {
		b.ops = make([]Operation, len(refs))
		b.times = make([][2]string, len(refs))
	}
	b.ops = b.ops[:len(refs)]
	b.data = b.data[:0]
	b.text.b = b.text.b[:0]
	b.warmed += v.warm(refs)
	for i, ref := range refs {
		v.render(&b.ops[i], ref, &b.text, &b.times[i], brief)
		if annotate != nil {
			annotate(&b.ops[i])
		}
		if enc != nil {
			b.data = enc(b.data, &b.ops[i])
		}
		if len(b.text.b)+len(b.data) >= batchBytes {
			b.ops = b.ops[:i+1]
			return i + 1
		}
	}
	return len(refs)
}

// warm reads the first byte of the strings rendering refs reads, all
// before any is rendered: the reads are independent of one another, so the
// processor overlaps their cache misses, where rendering would take them
// one after another.
func (v *view) warm(refs []opRef) uint64 {
	var strs [4 * batchSize]sref
	var parts [4 * batchSize]*Auditor
	n := 0
	for _, ref := range refs[:min(len(refs), batchSize)] {
		a, op := v.op(ref)
		strs[n], parts[n] = op.id, a
		n++
		if h := op.effects.head(); h != 0 {
			strs[n], parts[n] = h, a
			n++
		}
		if h := op.hashes.head(); h != 0 {
			strs[n], parts[n] = h, a
			n++
		}
		if op.pair.bind >= 0 {
			strs[n], parts[n] = a.pairAt(op.pair.bind).joined, a
			n++
		}
	}
	var sum uint64
	for k := range n {
		if s := parts[k].st.str(strs[k]); s != "" {
			sum += uint64(s[0])
		}
	}
	return sum
}

// shrink drops buffers a batch of unusually long operations grew, before
// the batch is reused.
func (b *batch) shrink() {
	if cap(b.text.b) > 4*batchBytes {
		b.text.b = nil
	}
	if cap(b.data) > 4*batchBytes {
		b.data = nil
	}
}

// batches renders the operations in batches (in brief or not; annotated
// with annotate and encoded with newEncoder if these are not nil) and hands
// each batch to consume in report order, on the calling goroutine. Run i of
// batchSize operations is rendered by worker i%workers into its own
// channel, in one or more pieces (see fill), so reading the channels
// round-robin, a run's pieces at a time, gives report order. Batches
// consume is done with go back to the workers, so their slices and buffers
// are reused: a report on millions of operations would otherwise make the
// garbage collector re-mark the audit's large live heap over and over.
func (v *view) batches(newEncoder func() Encoder, brief bool, annotate func(*Operation), consume func(*batch) error) error {
	total := 0
	for _, p := range v.parts {
		total += p.ops.len()
	}
	merge := newMerger(v.parts)
	workers := cmp.Or(v.renderers, runtime.GOMAXPROCS(0))
	workers = max(1, min(workers, (total+batchSize-1)/batchSize))
	newEnc := func() Encoder {
		if newEncoder == nil {
			return nil
		}
		return newEncoder()
	}
	// run renders a run of operations piece by piece, handing each to send;
	// it stops when send reports false.
	run := func(refs []opRef, enc Encoder, get func() *batch, send func(*batch) bool) bool {
		for len(refs) > 0 {
			b := get()
			refs = refs[b.fill(v, refs, enc, brief, annotate):]
			b.last = len(refs) == 0
			if !send(b) {
				return false
			}
		}
		return true
	}
	if workers == 1 {
		var b batch
		enc := newEnc()
		var err error
		send := func(b *batch) bool {
			err = consume(b)
			b.shrink()
			return err == nil
		}
		refs := make([]opRef, 0, batchSize)
		for err == nil {
			if refs = merge.fill(refs[:0], batchSize); len(refs) == 0 {
				break
			}
			run(refs, enc, func() *batch { return &b }, send)
		}
		return err
	}
	done := make(chan struct{})
	defer close(done)
	// The merge deals runs out to the workers in turn.
	runs := make([]chan []opRef, workers)
	spare := make(chan []opRef, 4*workers) // runs the workers are done with
	for w := range runs {
		runs[w] = make(chan []opRef, 2)
	}
	go func() {
		defer func() {
			for _, c := range runs {
				close(c)
			}
		}()
		for i := 0; ; i++ {
			var refs []opRef
			select {
			case refs = <-spare:
			default:
				refs = make([]opRef, 0, batchSize)
			}
			if refs = merge.fill(refs[:0], batchSize); len(refs) == 0 {
				return
			}
			select {
			case runs[i%workers] <- refs:
			case <-done:
				return
			}
		}
	}()
	free := make(chan *batch, 4*workers)
	outs := make([]chan *batch, workers)
	for w := range outs {
		outs[w] = make(chan *batch, 2)
		go func() {
			defer close(outs[w])
			enc := newEnc()
			get := func() *batch {
				select {
				case b := <-free:
					return b
				default:
					return &batch{}
				}
			}
			send := func(b *batch) bool {
				select {
				case outs[w] <- b:
					return true
				case <-done:
					return false
				}
			}
			for refs := range runs[w] {
				if !run(refs, enc, get, send) {
					return
				}
				select {
				case spare <- refs:
				default:
				}
			}
		}()
	}
	for i := 0; ; {
		b, ok := <-outs[i%workers]
		if !ok {
			return nil
		}
		if err := consume(b); err != nil {
			return err
		}
		if b.last {
			i++
		}
		b.shrink()
		select {
		case free <- b:
		default:
		}
	}
}

// OperationList returns every operation; for tests and small reports.
func (r *Report) OperationList() []Operation {
	out := []Operation{}
	r.Operations(func(o *Operation) error {
		out = append(out, o.Clone())
		return nil
	})
	return out
}

// Clone returns a deep copy of o: no map, slice or string bytes shared.
func (o *Operation) Clone() Operation {
	c := *o
	c.OperationID = strings.Clone(o.OperationID)
	c.Reason = strings.Clone(o.Reason)
	if o.Results != nil {
		c.Results = make(Results, len(o.Results))
		for i, r := range o.Results {
			c.Results[i] = ResultCount{Result: strings.Clone(r.Result), Attempts: r.Attempts}
		}
	}
	c.EffectRefs = cloneStrings(o.EffectRefs)
	c.IdempotencyKeys = cloneStrings(o.IdempotencyKeys)
	c.PayloadHashes = cloneStrings(o.PayloadHashes)
	c.Findings = slices.Clone(o.Findings)
	for i := range c.Findings {
		c.Findings[i].Message = strings.Clone(c.Findings[i].Message)
	}
	for _, p := range []**string{&c.FirstObservedAt, &c.LastObservedAt} {
		if *p != nil {
			s := strings.Clone(**p)
			*p = &s
		}
	}
	return c
}

func cloneStrings(list []string) []string {
	out := slices.Clone(list)
	for i := range out {
		out[i] = strings.Clone(out[i])
	}
	return out
}

// view is the merged state of one or more Auditors, read-only once built.
type view struct {
	parts         []*Auditor
	sharedEffects map[opRef]sharedWith
	renderers     int // goroutines that render batches; 0 is GOMAXPROCS (tests set it)
}

type opRef struct {
	part  uint16
	index int32
}

func (v *view) op(ref opRef) (*Auditor, *operation) {
	a := v.parts[ref.part]
	return a, a.opAt(int(ref.index))
}

// Merge computes the report of several Auditors that saw disjoint sets of
// operations of one input (shards). Operations are listed in order of their
// first record, whatever the sharding, so the report is deterministic.
// The Auditors are the report's from then on: they take no more records,
// the indexes only records needed are let go, and merging one again panics.
func Merge(parts ...*Auditor) *Report {
	for _, p := range parts {
		if p.merged {
			panic("audit: Auditor merged twice")
		}
		p.merged = true
		p.opIndex.drop()
	}
	v := &view{parts: parts}
	rep := &Report{
		SchemaVersion: SchemaVersion,
		Summary:       Summary{Labels: make(map[Label]int, len(labels)), Findings: newFindingCounts()},
		view:          v,
	}
	for _, l := range labels {
		rep.Summary.Labels[l] = 0
	}
	kept := 0
	for _, p := range parts {
		kept += p.invalid.len()
	}
	rep.Invalid = make([]Invalid, 0, kept)
	for _, p := range parts {
		rep.Summary.Lines += p.lines
		rep.Summary.BlankLines += p.blankLines
		rep.Summary.Records += p.records
		rep.Summary.InvalidLines += p.invalidLines
		rep.Summary.Operations += p.ops.len()
		for i := range p.invalid.len() {
			rep.Invalid = append(rep.Invalid, *p.invalid.at(i))
		}
		p.invalid = chunks[Invalid]{} // the report holds them now
	}
	slices.SortStableFunc(rep.Invalid, func(a, b Invalid) int { return comparePos(a.Pos, b.Pos) })
	// The key pairs' totals are the last use of the pair indexes, and the
	// shared effects take memory of their own: one after the other, each
	// on every core, the audit's peak memory is the lower.
	v.totalPairs()
	for _, p := range parts {
		p.pairIndex.drop()
	}
	v.sharedEffects = v.findSharedEffects()
	// Labels and findings of one part's operations depend only on reads of
	// the others, so parts are judged in parallel.
	tallies := make([]tally, len(parts))
	v.eachPart(func(pi int, _ *Auditor) { tallies[pi] = v.judge(pi) })
	for _, t := range tallies {
		for l, n := range t.labels {
			rep.Summary.Labels[label(l).name()] += n
		}
		for c, n := range t.findings {
			rep.Summary.Findings[findingCodes[c]] += n
		}
		rep.Summary.Attempts += t.attempts
		rep.Summary.EffectObservations += t.effectObs
	}
	return rep
}

// totalPairs unites each key pair's bindings across the parts, so that
// judging an operation reads its own binding only.
func (v *view) totalPairs() {
	// Each part writes only its own totals and reads the others' bindings,
	// which no longer change: parts go in parallel.
	v.eachPart(func(_ int, a *Auditor) { v.totalPartPairs(a) })
}

// eachPart calls fn for every part, in parallel, and waits for them all.
func (v *view) eachPart(fn func(pi int, a *Auditor)) {
	var wg sync.WaitGroup
	for pi, a := range v.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(pi, a)
		}()
	}
	wg.Wait()
}

func (v *view) totalPartPairs(a *Auditor) {
	var others []*Auditor
	for _, p := range v.parts {
		if p != a {
			others = append(others, p)
		}
	}
	// Most pairs are carried by one operation with one hash, in one part:
	// their binding is their total. The rest are marked first, and only
	// they are looked at again.
	n := a.pairs.len()
	marked := make([]uint64, (n+63)/64)
	for i := range n {
		if b := a.pairAt(int32(i)); b.ops >= 2 || b.hashes.more != 0 {
			marked[i/64] |= 1 << (i % 64)
		}
	}
	for _, p := range others {
		markShared(a, p, marked)
	}
	// The totals are sized for every marked pair at once, and their text
	// goes to a.notes: grown entry by entry, in many small allocations,
	// they took most of the merge's page faults.
	candidates := 0
	for _, word := range marked {
		candidates += bits.OnesCount64(word)
	}
	a.totals = make(map[int32]pairTotal, candidates)
	a.totaled = make([]uint64, (n+63)/64)
	th := make([]uint32, len(others))
	var sc pairScratch
	for w, word := range marked {
		for ; word != 0; word &= word - 1 {
			i := int32(w*64 + bits.TrailingZeros64(word))
			joined := a.st.str(a.pairAt(i).joined)
			for k, p := range others {
				th[k] = p.tableHash(joined)
			}
			v.totalPair(a, i, others, th, &sc)
		}
	}
}

// pairScratch is space totalPair reuses from one pair to the next.
type pairScratch struct {
	hashes []string
	text   text
}

// markShared marks, in marked, the pairs of part a that part p has too.
func markShared(a, p *Auditor, marked []uint64) {
	if p.pairIndex.used == 0 {
		return
	}
	same := func(i, j int32) bool { return a.st.str(a.pairAt(i).joined) == p.st.str(p.pairAt(j).joined) }
	if p.seed != a.seed {
		// Not siblings: each pair is hashed again, and looked up at random.
		for i := range int32(a.pairs.len()) {
			if marked[i/64]&(1<<(i%64)) == 0 {
				joined := a.st.str(a.pairAt(i).joined)
				if _, ok := p.findBinding(p.tableHash(joined), joined); ok {
					marked[i/64] |= 1 << (i % 64)
				}
			}
		}
		return
	}
	// Siblings hash a pair alike, and an index's slots lie in the order of
	// their hashes, but for the few that wrap around its end: going through
	// a's slots in order, the lookups in p's index move forward through it,
	// and the pairs' strings are read only where 32 bits of hash agree.
	for _, s := range a.pairIndex.slots {
		if s == 0 {
			continue
		}
		i := int32(uint32(s)) - 1
		if marked[i/64]&(1<<(i%64)) != 0 {
			continue
		}
		if _, ok := p.pairIndex.find(uint32(s>>32), func(j int32) bool { return same(i, j) }); ok {
			marked[i/64] |= 1 << (i % 64)
		}
	}
}

// totalPair keeps the total of binding i of part a, if it differs from the
// binding; th is its tableHash in each of the others.
func (v *view) totalPair(a *Auditor, i int32, others []*Auditor, th []uint32, sc *pairScratch) {
	b := a.pairAt(i)
	t := pairTotal{hashes: int32(a.st.len(b.hashes)), ops: b.ops}
	hashes, ops, shared := pairTotals(a, b, others, th, sc.hashes[:0])
	if shared {
		t.hashes, t.ops = int32(len(hashes)), int32(ops)
	}
	if t.hashes < 2 && t.ops < 2 {
		return // the binding is the total
	}
	if t.hashes >= 2 {
		if !shared {
			hashes = a.st.appendTo(hashes[:0], b.hashes)
		}
		// Sorted: a pair's hashes arrive in an order that depends on how
		// operations were sharded.
		sc.text.b = sc.text.b[:0]
		sc.text.hashList(sortHashes(hashes))
		t.listed = a.notes.put(sc.text.since(0))
	}
	sc.hashes = hashes[:0]
	a.totals[i] = t
	a.totaled[i/64] |= 1 << (i % 64)
}

// tally counts one part's labels and findings.
type tally struct {
	labels              [len(labelNames)]int
	findings            [nFindings]int
	attempts, effectObs int
}

// judge labels every operation of part pi and records its findings.
func (v *view) judge(pi int) tally {
	var t tally
	a := v.parts[pi]
	for i := range a.ops.len() {
		op := a.opAt(i)
		ref := opRef{part: uint16(pi), index: int32(i)}
		op.label = a.label(op)
		op.findings, _ = v.findings(ref, nil, nil)
		t.labels[op.label]++
		for c := range nFindings {
			if op.findings.has(c) {
				t.findings[c]++
			}
		}
		t.attempts += a.attempts(op)
		t.effectObs += int(op.effectObs)
	}
	return t
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

// merger hands out the parts' operations in report order: by first
// position, and by id where positions tie (they tie only where they
// saturate; see packedPos), the same however operations were sharded.
// Each part's operations are already in order of first position, so this
// is a k-way merge, worked out as the report is written rather than held:
// at millions of operations the order would take tens of megabytes.
type merger struct {
	parts []*Auditor
	next  []int   // each part's next operation
	group []opRef // the operations at the last position handed out
	tied  []opRef // what of group is still to hand out, sorted by id
}

func newMerger(parts []*Auditor) *merger {
	return &merger{parts: parts, next: make([]int, len(parts))}
}

// fill appends up to n operations to refs, fewer only at the end.
func (m *merger) fill(refs []opRef, n int) []opRef {
	for range n {
		r, ok := m.pop()
		if !ok {
			break
		}
		refs = append(refs, r)
	}
	return refs
}

func (m *merger) pop() (opRef, bool) {
	if len(m.tied) > 0 {
		r := m.tied[0]
		m.tied = m.tied[1:]
		return r, true
	}
	best := -1
	var first packedPos
	for pi, p := range m.parts {
		if m.next[pi] < p.ops.len() {
			if f := p.opAt(m.next[pi]).first; best < 0 || f < first {
				best, first = pi, f
			}
		}
	}
	if best < 0 {
		return opRef{}, false
	}
	// Gather every operation at this position; where there are several,
	// hand them out by id.
	group := m.group[:0]
	for pi, p := range m.parts {
		for m.next[pi] < p.ops.len() && p.opAt(m.next[pi]).first == first {
			group = append(group, opRef{part: uint16(pi), index: int32(m.next[pi])})
			m.next[pi]++
		}
	}
	if len(group) > 1 {
		slices.SortFunc(group, func(x, y opRef) int {
			return strings.Compare(idAtRef(m.parts, x), idAtRef(m.parts, y))
		})
	}
	m.group, m.tied = group, group[1:]
	return group[0], true
}

func idAtRef(parts []*Auditor, r opRef) string {
	a := parts[r.part]
	return a.st.str(a.opAt(int(r.index)).id)
}

// conflict returns the first of op's key pairs bound to two or more hashes
// anywhere in the input, as an index of a's bindings.
func (a *Auditor) conflict(op *operation) (int32, bool) {
	found := int32(-1)
	a.eachPair(op, func(p *opPair) {
		if found < 0 && a.total(p.bind).hashes >= 2 {
			found = p.bind
		}
	})
	return found, found >= 0
}

// label returns the first rule of SPEC's Labels that matches.
func (a *Auditor) label(op *operation) label {
	if a.st.len(op.hashes) >= 2 {
		return lKeyConflict
	}
	if _, bound := a.conflict(op); bound {
		return lKeyConflict
	}
	switch {
	case a.st.len(op.effects) >= 2:
		return lDuplicate
	case a.st.len(op.effects) == 1:
		return lHealthy
	case a.absent(op):
		return lAbsent
	}
	return lUncertain
}

// absent is SPEC's rule 4, given that op has no effect.
func (a *Auditor) absent(op *operation) bool {
	switch {
	case op.absentObs == 0:
		return false
	case op.attemptRecords == 0:
		return true
	case !a.has(op, tLastAbsent) || op.untimedAttempts > 0:
		return false
	}
	return !a.time(op, tLastAbsent).Before(a.time(op, tLastAttempt))
}

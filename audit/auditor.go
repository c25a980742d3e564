// Package audit holds the ledger model, the labelling rules and the findings
// of SPEC.md: records in, a report out. It never does I/O and never reads a
// clock, so every rule is a plain function of its input that tests can drive.
//
// Memory is bounded by distinct values: an operation keeps counters and the
// distinct attempt ids, effect refs, hashes and key pairs it has seen, never
// records.
package audit

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"github.com/effectaudit/effectaudit/hugemem"
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
	st     store
	seed   maphash.Seed // of tableHash

	opIndex table // by tableHash of the id
	// The operations found last, as opIndex's slots hold them, by the top
	// bits of their tableHash: an export's records of one operation come
	// close together, and this small array stays in the cache where
	// opIndex's slot for them is a miss once the index is large.
	recentOps [1 << recentBits]uint64
	ops       blocks[operation]

	pairIndex table // by tableHash of the joined pair (see joinPair)
	pairs     blocks[binding]
	pairKey   []byte // scratch for lookups
	hashBuf   [33]byte
	touched   uint64 // what touch read, kept so the reads are not optimized away

	extras   chunks[extra]              // what few operations have; see operation.extra
	totals   map[int32]pairTotal        // by binding, set by Merge; see total
	totaled  []uint64                   // bitmap by binding: which have totals
	notes    arena                      // text Merge works out: pairTotal.listed
	unhashed map[sref]missingHashes     // by operation id, for those flagged unhashed
	reported map[attemptResult]struct{} // results past resultBits that attempts reported; see firstReport
	wide     map[sref]*wideTimes        // by operation id; see times.go
	far      map[sref]*farTimes         // likewise

	resultIndex map[string]uint32 // results are few: intern them
	results     []resultInfo

	merged bool // Merge has taken it over: it takes no more records

	lines, blankLines, records int
	invalidLines               int
	effectCount                int             // distinct effectRefs of each operation, summed
	invalid                    chunks[Invalid] // not a slice: appending to a long one stalls the collector
	keepInvalid                int             // see KeepInvalid
}

type resultInfo struct {
	name  string
	final bool
}

// New returns an empty Auditor. A nil policy means no result is final and
// keys never expire.
func New(policy Policy) *Auditor {
	a := &Auditor{
		policy:      policy,
		seed:        maphash.MakeSeed(),
		opIndex:     newTable(0),
		pairIndex:   newTable(0),
		resultIndex: make(map[string]uint32),
	}
	// Merge drops the indexes, whose large slots are mapped outside the Go
	// heap; an Auditor never merged gives them back once it is garbage,
	// by a cleanup that holds only them. (A finalizer on the Auditor kept
	// it, and all it holds, for a collection more, queued for the
	// finalizer goroutine: in a process auditing over and over on busy
	// cores, as a fuzz test of the pipeline does, the queue outgrew that
	// goroutine, to 16 GB.)
	held := new(mappedSlots)
	a.opIndex.held, a.pairIndex.held = &held[0], &held[1]
	a.opIndex.hold()
	a.pairIndex.hold()
	runtime.AddCleanup(a, (*mappedSlots).unmap, held)
	return a
}

// mappedSlots are the slots of an Auditor's two indexes while they are
// mapped outside the Go heap, kept apart from the Auditor for its cleanup.
type mappedSlots [2][]uint64

func (m *mappedSlots) unmap() {
	for i, slots := range m {
		if slots != nil {
			hugemem.UnmapBlock(slots, true)
			m[i] = nil
		}
	}
}

// Sibling returns an empty Auditor for another share of the operations of
// a's audit, for Merge to combine with a: it has a's policy and a's hash
// seed, so that one Hash of an operation id serves to pick the Auditor
// that owns the operation and, through AddHashed, to find it there.
func (a *Auditor) Sibling() *Auditor {
	s := New(a.policy)
	s.seed = a.seed
	return s
}

// Hash returns the hash of an operation id that a and its siblings index
// operations by. It reads only the seed, so any goroutine may call it while
// a takes records.
func (a *Auditor) Hash(id string) uint64 { return maphash.String(a.seed, id) }

// binding is everything known about one (scope, idempotencyKey) pair
// across this Auditor's input.
type binding struct {
	joined sref      // the pair, joined (see joinPair)
	hashes stringSet // distinct payload hashes bound to the pair
	ops    int32     // distinct operations carrying the pair
}

// pairTotal is a key pair across every part of a merged audit: its
// distinct hashes and the operations that carry it.
type pairTotal struct {
	hashes, ops int32
	// When hashes >= 2, what a key-conflict reason lists of them, in notes:
	// worked out once per pair rather than once per operation carrying it.
	listed sref
}

// total returns the pair total of binding bi. Merge keeps totals only for
// pairs carried by two or more operations or bound to two or more hashes,
// the few that findings and labels look at; for any other pair the binding
// is the total.
func (a *Auditor) total(bi int32) pairTotal {
	// Most pairs have no total: the bitmap spares them a map lookup.
	if w := int(bi / 64); w < len(a.totaled) && a.totaled[w]&(1<<(bi%64)) != 0 {
		return a.totals[bi]
	}
	b := a.pairAt(bi)
	return pairTotal{hashes: int32(a.st.len(b.hashes)), ops: b.ops}
}

// scope and key split a binding's joined pair.
func (a *Auditor) scope(b *binding) string {
	scope, _ := splitPair(a.st.str(b.joined))
	return scope
}

func (a *Auditor) key(b *binding) string {
	_, key := splitPair(a.st.str(b.joined))
	return key
}

// opPair is one key pair of an operation, with the span of its attempt
// records without attemptId, each an attempt of its own (eachPairSpan adds
// the attempts with one, for retry-past-retention).
type opPair struct {
	bind        int32
	attempts    int32 // attempt records carrying the pair
	first, last delta // see times.go
}

// Instants an operation keeps; see times.go.
const (
	tFirstSeen = iota
	tLastSeen
	tFirstAttempt
	tLastAttempt
	tLastAbsent
	tFirstEffect
	tFirstSuccess
	tFirstFinal
	tLastAnonAttempt // latest attempt record without attemptId
	nTimes
)

// operation is the per-operation state: counters and distinct values only.
// Its size is the audit's memory, so fields are packed, and it holds no Go
// pointers, so the garbage collector never scans the blocks of operations.
type operation struct {
	id       sref
	first    packedPos
	base     stamp // what times are relative to; see times.go
	attempts attemptSet

	times   [nTimes]delta // or in Auditor.wide or far; see times.go
	pair    opPair        // the first key pair; bind < 0 when none
	effects stringSet     // distinct effectRefs
	hashes  stringSet     // distinct payloadHashes

	results [2]inlineResult // see countInline
	extra   int32           // 1 + index in Auditor.extras; 0 when none

	anonAttempts    int32 // attempt records without attemptId, each its own attempt
	attemptRecords  int32
	untimedAttempts int32 // attempt records without observedAt
	keylessAnon     int32 // attempt records without attemptId or idempotencyKey
	effectObs       int32 // effect records that are not "absent"
	absentObs       int32

	findings findingSet // set when the report is computed
	label    label
	flags    opFlags
}

// opFlags mark an operation whose state is partly kept aside.
type opFlags uint8

const (
	wide          opFlags = 1 << iota // times are in Auditor.wide; see times.go
	far                               // times are in Auditor.far; see times.go
	spilled                           // results are all in the extra; see countInline
	unhashed                          // it has attempt records with a key but no payloadHash
	keylessRecord                     // a record of an attempt with an id carries no key
)

// missingHashes is what the missing-payload-hash finding says of an operation:
// how many attempt records carry a key but no payloadHash, and where the
// first is. Few operations have any, so they are kept aside.
type missingHashes struct {
	n     int
	first packedPos
}

func (a *Auditor) addUnhashed(op *operation, pos Position) {
	if a.unhashed == nil {
		a.unhashed = map[sref]missingHashes{}
	}
	u, ok := a.unhashed[op.id]
	if !ok {
		u.first = pack(pos)
		op.flags |= unhashed
	}
	u.n++
	a.unhashed[op.id] = u
}

func (op *operation) is(f opFlags) bool { return op.flags&f != 0 }

// extra is what few operations have: key pairs after the first, results
// after the first two, and with two pairs or more, which each attempt
// carried.
type extra struct {
	pairs            []opPair
	index            map[int32]int32 // binding → position in pairs, past indexAfter
	results          []resultCount
	resultAt         map[uint32]int32 // result code → position in results, past indexAfter
	attemptPairs     []attemptPair    // see keyAttempt
	attemptPairIndex map[attemptPair]struct{}
}

// extra returns op's extra, making one if it has none.
func (a *Auditor) extra(op *operation) *extra {
	if op.extra == 0 {
		op.extra = int32(a.extras.add()) + 1
	}
	return a.extras.at(int(op.extra - 1))
}

// pairsAfterFirst returns op's key pairs after the first.
func (a *Auditor) pairsAfterFirst(op *operation) []opPair {
	if op.extra == 0 {
		return nil
	}
	return a.extras.at(int(op.extra - 1)).pairs
}

// inlineResult is one of the two results an operation keeps inline: a
// result code and how many attempts had it, in 4 bytes.
type inlineResult struct{ code, n uint16 }

type resultCount struct {
	code uint32
	n    int32
}

// tableHash is the hash a's tables index s by: the low half of Hash. It is
// seeded, a seed for each Auditor and its siblings, so that no ledger can
// be written to make its lookups slow.
func (a *Auditor) tableHash(s string) uint32 { return uint32(a.Hash(s)) }

func (a *Auditor) op(id string, pos Position) *operation {
	return a.opHashed(id, a.tableHash(id), pos)
}

// recentBits sizes Auditor.recentOps: 128 KiB, for the thousands of
// operations a trace export has open at once. At 10M records 512 KiB took
// 6% more CPU and 32 KiB 4.5% more (faster in 1 and 0 of 5 pairs).
const recentBits = 14

func recentSlot(h uint32) uint32 { return h >> (32 - recentBits) }

// opHashed is op for an id whose tableHash is h.
func (a *Auditor) opHashed(id string, h uint32, pos Position) *operation {
	recent := &a.recentOps[recentSlot(h)]
	if s := *recent; s != 0 && uint32(s>>32) == h {
		if op := a.opAt(int(uint32(s)) - 1); a.st.str(op.id) == id {
			return op
		}
	}
	i, empty, ok := a.opIndex.lookup(h, func(i int32) bool { return a.st.str(a.opAt(int(i)).id) == id })
	if ok {
		*recent = uint64(h)<<32 | uint64(uint32(i)+1)
		return a.opAt(int(i))
	}
	i = int32(a.ops.add())
	*recent = uint64(h)<<32 | uint64(uint32(i)+1)
	op := a.opAt(int(i))
	op.id = a.st.put(id)
	op.first = pack(pos)
	op.pair.bind = -1
	op.base = noStamp
	for t := range op.times {
		op.times[t] = noDelta
	}
	a.opIndex.insertAt(empty, h, i)
	return op
}

func (a *Auditor) opAt(i int) *operation { return a.ops.at(i) }

func (a *Auditor) pairAt(i int32) *binding { return a.pairs.at(int(i)) }

// Add folds one valid record into the audit. The record's strings may alias
// a reused buffer: Add copies whatever it keeps.
func (a *Auditor) Add(r *Record) {
	a.mustBeOpen()
	a.add(r, a.op(r.OperationID, r.Pos), a.pairHash(r))
}

// mustBeOpen panics once the Auditor is merged: Merge lets go of the
// indexes that records are added through.
func (a *Auditor) mustBeOpen() {
	if a.merged {
		panic("audit: record added to a merged Auditor")
	}
}

// AddBatch is Add for each record in turn. It looks the records' operations
// up a few at a time, touching the memory the lookups will read before
// doing any of them: the cache misses of a few lookups then overlap instead
// of following one another, which is most of what a lookup costs.
func (a *Auditor) AddBatch(recs []Record) { a.addBatch(recs, nil) }

// RecordHash is what AddHashed takes as known of a record: the hashes its
// operation and its key pair are indexed by.
type RecordHash struct {
	Op   uint64 // Hash of the operation id
	Pair uint32 // for the key pair; 0 when the record has no key
}

// HashRecord returns r's RecordHash, using buf as scratch space and
// returning it for the next call. Like Hash it reads only the seed, so a
// record's decoder can work it out while the record's bytes are in its
// core's cache, rather than the Auditor later.
func (a *Auditor) HashRecord(r *Record, buf []byte) (RecordHash, []byte) {
	h := RecordHash{Op: a.Hash(r.OperationID)}
	if r.IdempotencyKey != "" {
		buf = appendPair(buf[:0], r.Scope, r.IdempotencyKey)
		h.Pair = uint32(maphash.Bytes(a.seed, buf))
	}
	return h, buf
}

// AddHashed is AddBatch for records whose hashes are known already:
// hashes[i] must be HashRecord of recs[i].
func (a *Auditor) AddHashed(recs []Record, hashes []RecordHash) {
	if len(hashes) != len(recs) {
		panic("audit: AddHashed needs one hash for each record")
	}
	a.addBatch(recs, hashes)
}

func (a *Auditor) addBatch(recs []Record, hashes []RecordHash) {
	a.mustBeOpen()
	const group = 8
	var ops, pairs [group]uint32
	for start := 0; start < len(recs); start += group {
		g := recs[start:min(start+group, len(recs))]
		for i := range g {
			if hashes != nil {
				ops[i], pairs[i] = uint32(hashes[start+i].Op), hashes[start+i].Pair
			} else {
				ops[i], pairs[i] = a.tableHash(g[i].OperationID), a.pairHash(&g[i])
			}
		}
		a.touch(ops[:len(g)], pairs[:len(g)], g)
		for i := range g {
			a.add(&g[i], a.opHashed(g[i].OperationID, ops[i], g[i].Pos), pairs[i])
		}
	}
}

// pairHash returns the tableHash of r's key pair, if it has one.
func (a *Auditor) pairHash(r *Record) uint32 {
	if r.IdempotencyKey == "" {
		return 0
	}
	return a.tableHash(a.joinPair(r.Scope, r.IdempotencyKey))
}

// joinPair returns the pair (scope, key) as one string (see appendPair), in
// scratch space that the next call reuses.
func (a *Auditor) joinPair(scope, key string) string {
	a.pairKey = appendPair(a.pairKey[:0], scope, key)
	return unsafe.String(unsafe.SliceData(a.pairKey), len(a.pairKey))
}

// appendPair appends the pair (scope, key) as one string: the length of
// scope as a uvarint, scope, then key. Scopes and keys may hold any
// character, NUL included, so no separator between them could tell every
// pair apart.
func appendPair(dst []byte, scope, key string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(scope)))
	return append(append(dst, scope...), key...)
}

// splitPair undoes joinPair.
func splitPair(joined string) (scope, key string) {
	n, i := 0, 0
	for shift := 0; ; shift += 7 {
		c := joined[i]
		i++
		n |= int(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return joined[i : i+n], joined[i+n:]
}

// touch reads the memory that looking up these records' operations and key
// pairs (by their hashes) will read first: the home slot of each, then the
// operation or binding a slot names, then the first bytes of its id or
// pair. Each step's reads are independent of one another, so the processor
// overlaps their misses.
func (a *Auditor) touch(ops, pairs []uint32, recs []Record) {
	if len(a.opIndex.slots) == 0 || len(a.pairIndex.slots) == 0 {
		return
	}
	var opSlots, pairSlots [8]uint64
	var recent uint8 // bit i: record i's operation is in recentOps
	for i := range ops {
		// The slot recentOps holds, if it is this operation's, spares
		// a miss on opIndex, and the operation names the pair its
		// records mostly carry (see bind), which spares one on pairIndex.
		if s := a.recentOps[recentSlot(ops[i])]; uint32(s>>32) == ops[i] && s != 0 {
			opSlots[i] = s
			recent |= 1 << i
			continue
		}
		opSlots[i] = a.opIndex.slots[a.opIndex.home(ops[i])]
		if recs[i].IdempotencyKey != "" {
			pairSlots[i] = a.pairIndex.slots[a.pairIndex.home(pairs[i])]
		}
	}
	var strs [16]sref
	var sum uint64
	for i := range ops {
		bi := int32(-1)
		if s := opSlots[i]; s != 0 && uint32(s>>32) == ops[i] {
			// An operation spans three or four cache lines, all of which
			// adding a record may read: one field in each 64 bytes.
			op := a.opAt(int(int32(uint32(s)) - 1))
			strs[2*i] = op.id
			sum += uint64(op.times[0]) + uint64(op.effects.more) + uint64(op.absentObs) + uint64(op.flags)
			if recent&(1<<i) != 0 && recs[i].IdempotencyKey != "" {
				bi = op.pair.bind
			}
		}
		if s := pairSlots[i]; s != 0 && uint32(s>>32) == pairs[i] {
			bi = int32(uint32(s)) - 1
		}
		if bi >= 0 {
			b := a.pairAt(bi)
			strs[2*i+1] = b.joined
			sum += uint64(b.ops) // a binding may straddle two lines
		}
	}
	for _, r := range strs[:2*len(ops)] {
		if r != 0 {
			sum += uint64(a.st.str(r)[0])
		}
	}
	a.touched += sum
}

// add folds r into op; th is the tableHash of r's key pair, if it has one.
func (a *Auditor) add(r *Record, op *operation, th uint32) {
	var when moment
	timed := r.HasObservedAt
	if timed {
		when = momentOf(r.ObservedAt)
		a.track(op, tFirstSeen, when, true)
		a.track(op, tLastSeen, when, false)
	}
	var hash sref
	if r.PayloadHash != "" {
		hash, _ = a.st.add(&op.hashes, compactHash(r.PayloadHash, &a.hashBuf))
	}
	var pair *opPair
	if r.IdempotencyKey != "" {
		pair = a.bind(op, r.Scope, r.IdempotencyKey, th, hash)
	}

	switch r.Type {
	case Attempt:
		a.addAttempt(op, r, timed, when, pair, hash)
	case Effect:
		if r.Result == "absent" {
			op.absentObs++
			if timed {
				a.track(op, tLastAbsent, when, false)
			}
			return
		}
		op.effectObs++
		if timed {
			a.track(op, tFirstEffect, when, true)
		}
		// Counted as the set counts: an empty effectRef, which only a caller
		// that skips the Decoder can pass, is no value in an empty set.
		if _, added := a.st.add(&op.effects, r.EffectRef); added && op.effects.first != (halves{}) {
			a.effectCount++
		}
	}
}

func (a *Auditor) addAttempt(op *operation, r *Record, timed bool, when moment, pair *opPair, hash sref) {
	op.attemptRecords++
	// The absence rule looks at every attempt record.
	if timed {
		a.track(op, tFirstAttempt, when, true)
		a.track(op, tLastAttempt, when, false)
	} else {
		op.untimedAttempts++
	}
	var at *attempt // nil for an attempt record without attemptId, its own attempt
	if r.AttemptID == "" {
		op.anonAttempts++
	} else {
		// Seeded, as the indexes are: a fixed hash such as xxhash has
		// published collisions, which a ledger could hold.
		at, _ = a.st.findAttempt(&op.attempts, a.Hash(r.AttemptID))
	}
	switch {
	case pair == nil && at == nil:
		op.keylessAnon++
	case pair == nil:
		op.flags |= keylessRecord // the attempt may carry a key in another record
	default:
		pair.attempts++
		if hash == 0 {
			a.addUnhashed(op, r.Pos)
		}
		if at != nil {
			a.keyAttempt(op, at, pair.bind)
		}
	}
	code, hasResult := uint32(0), r.Result != ""
	if hasResult {
		code = a.result(r.Result)
		if at == nil || a.firstReport(op, at, code) {
			a.countResult(op, code)
		}
	}
	if !timed {
		return
	}
	// The earliest success or final result, from any record that says so,
	// is compared with when each attempt was first observed: its earliest
	// record, whatever the order of its records.
	if hasResult && a.results[code].name == "success" {
		a.track(op, tFirstSuccess, when, true)
	}
	if hasResult && a.results[code].final {
		a.track(op, tFirstFinal, when, true)
	}
	if at != nil {
		a.trackAttempt(op, at, when)
		return
	}
	// An attempt record without attemptId is an attempt of its own, at its
	// time; eachPairSpan adds the attempts with ids.
	a.track(op, tLastAnonAttempt, when, false)
	if pair != nil {
		a.trackPair(op, pair, when)
	}
}

// attemptResult is a result of code resultBits or more that an attempt
// reported.
type attemptResult struct {
	op          sref
	fingerprint uint64
	code        uint32
}

// firstReport reports whether attempt at of op reports result code for
// the first time. An attempt is counted under every result its records
// report, whatever their order: one exported at its start without a result
// and at its end with one counts under that result.
func (a *Auditor) firstReport(op *operation, at *attempt, code uint32) bool {
	if code < resultBits {
		bit := uint32(1) << code
		if at.result&bit != 0 {
			return false
		}
		at.result |= bit
		return true
	}
	k := attemptResult{op: op.id, fingerprint: at.id.value(), code: code}
	if _, ok := a.reported[k]; ok {
		return false
	}
	if a.reported == nil {
		a.reported = map[attemptResult]struct{}{}
	}
	a.reported[k] = struct{}{}
	return true
}

// bind records that op carries the pair (scope, key), whose tableHash is
// th, with payload hash h (0 binds nothing but still ties the pair to op),
// and returns op's entry for the pair.
func (a *Auditor) bind(op *operation, scope, key string, th uint32, h sref) *opPair {
	// Most records of an operation carry its first pair again, which it
	// names itself: the index, whose slot is a cache miss once it is
	// large, is searched only for another pair.
	bi := op.pair.bind
	if bi < 0 || !isPair(a.st.str(a.pairAt(bi).joined), scope, key) {
		// Compared in pieces: the pair is joined only to be kept.
		var empty int
		var ok bool
		bi, empty, ok = a.pairIndex.lookup(th, func(i int32) bool { return isPair(a.st.str(a.pairAt(i).joined), scope, key) })
		if !ok {
			bi = int32(a.pairs.add())
			a.pairAt(bi).joined = a.st.put(a.joinPair(scope, key))
			a.pairIndex.insertAt(empty, th, bi)
		}
	}
	b := a.pairAt(bi)
	if h != 0 {
		a.st.addRef(&b.hashes, h)
	}
	p := a.findPair(op, bi)
	if p == nil {
		b.ops++
		entry := opPair{bind: bi, first: noDelta, last: noDelta}
		if op.pair.bind < 0 {
			op.pair = entry
			p = &op.pair
		} else {
			m := a.extra(op)
			m.pairs = append(m.pairs, entry)
			switch {
			case m.index != nil:
				m.index[bi] = int32(len(m.pairs) - 1)
			case len(m.pairs) > indexAfter:
				m.index = make(map[int32]int32, 2*len(m.pairs))
				for i, it := range m.pairs {
					m.index[it.bind] = int32(i)
				}
			}
			p = &m.pairs[len(m.pairs)-1]
			if len(m.pairs) == 1 {
				a.pairAttempts(op)
			}
		}
	}
	return p
}

// isPair reports whether joined is the pair (scope, key).
func isPair(joined, scope, key string) bool {
	s, k := splitPair(joined)
	return s == scope && k == key
}

// findBinding looks up the pair joined, which hashes to th.
func (a *Auditor) findBinding(th uint32, joined string) (int32, bool) {
	return a.pairIndex.find(th, func(i int32) bool { return a.st.str(a.pairAt(i).joined) == joined })
}

func (a *Auditor) findPair(op *operation, bi int32) *opPair {
	if op.pair.bind == bi {
		return &op.pair
	}
	if op.extra == 0 {
		return nil
	}
	m := a.extras.at(int(op.extra - 1))
	if m.index != nil {
		if i, ok := m.index[bi]; ok {
			return &m.pairs[i]
		}
		return nil
	}
	for i := range m.pairs {
		if m.pairs[i].bind == bi {
			return &m.pairs[i]
		}
	}
	return nil
}

// eachPair calls fn for every key pair of op, in first-seen order.
func (a *Auditor) eachPair(op *operation, fn func(p *opPair)) {
	if op.pair.bind < 0 {
		return
	}
	fn(&op.pair)
	more := a.pairsAfterFirst(op)
	for i := range more {
		fn(&more[i])
	}
}

func (a *Auditor) result(name string) uint32 {
	// A ledger has a handful of results, and the first few interned are
	// the common ones: comparing with those beats hashing for the map.
	for c := range min(len(a.results), 4) {
		if a.results[c].name == name {
			return uint32(c)
		}
	}
	if c, ok := a.resultIndex[name]; ok {
		return c
	}
	c := uint32(len(a.results))
	stored := strings.Clone(name)
	a.results = append(a.results, resultInfo{name: stored, final: a.policy != nil && a.policy.IsFinal(stored)})
	a.resultIndex[stored] = c
	return c
}

func (a *Auditor) countResult(op *operation, code uint32) {
	if !op.is(spilled) && a.countInline(op, code) {
		return
	}
	x := a.extra(op)
	if x.resultAt != nil {
		if i, ok := x.resultAt[code]; ok {
			x.results[i].n++
			return
		}
	} else {
		for i := range x.results {
			if x.results[i].code == code {
				x.results[i].n++
				return
			}
		}
	}
	x.results = append(x.results, resultCount{code: code, n: 1})
	if x.resultAt != nil {
		x.resultAt[code] = int32(len(x.results) - 1)
	} else {
		x.indexResults()
	}
}

// indexResults indexes x's results by code once there are more than
// indexAfter of them: an operation retried with thousands of distinct
// results (error texts holding request ids, say) must not go quadratic.
func (x *extra) indexResults() {
	if len(x.results) <= indexAfter {
		x.resultAt = nil
		return
	}
	x.resultAt = make(map[uint32]int32, 2*len(x.results))
	for i, rc := range x.results {
		x.resultAt[rc.code] = int32(i)
	}
}

// countInline counts code in op's inline results, and reports whether it
// did. A code or a count past 16 bits spills the inline results to op's
// extra, where they go on.
func (a *Auditor) countInline(op *operation, code uint32) bool {
	for i := range op.results {
		rc := &op.results[i]
		switch {
		case rc.n > 0 && uint32(rc.code) != code:
			continue
		case rc.n == 0 && code <= math.MaxUint16:
			*rc = inlineResult{code: uint16(code), n: 1}
			return true
		case rc.n > 0 && rc.n < math.MaxUint16:
			rc.n++
			return true
		}
		x := a.extra(op)
		all := make([]resultCount, 0, len(op.results)+len(x.results))
		for _, rc := range op.results {
			if rc.n > 0 {
				all = append(all, resultCount{code: uint32(rc.code), n: int32(rc.n)})
			}
		}
		x.results = append(all, x.results...)
		x.indexResults() // the positions moved
		op.results = [2]inlineResult{}
		op.flags |= spilled
		return false
	}
	return false // both inline results are others
}

// eachResult calls fn for every (result, count) of op, in first-seen order.
func (a *Auditor) eachResult(op *operation, fn func(code uint32, n int)) {
	for _, rc := range op.results {
		if rc.n == 0 {
			break
		}
		fn(uint32(rc.code), int(rc.n))
	}
	if op.extra != 0 {
		for _, rc := range a.extras.at(int(op.extra - 1)).results {
			fn(rc.code, int(rc.n))
		}
	}
}

// attempts counts op's attempts: its distinct attempt ids, and each attempt
// record without one.
func (a *Auditor) attempts(op *operation) int {
	return a.st.countAttempts(op.attempts) + int(op.anonAttempts)
}

// AddInvalid accounts for an invalid line and keeps it for the report,
// unless KeepInvalid's limit is reached.
func (a *Auditor) AddInvalid(inv Invalid) {
	a.invalidLines++
	if a.keepInvalid == 0 || a.invalid.len() < a.keepInvalid { // never when keepInvalid < 0
		*a.invalid.at(a.invalid.add()) = inv
	}
}

// KeepInvalid limits how many invalid lines are kept: the first n if n > 0,
// none if n < 0, all if n is 0 (as before any call); all are still counted.
// A strict run that only shows the first few needs no more, and a report
// that does not list them none.
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
func (a *Auditor) Operations() int { return a.ops.len() }

// Report computes the labels, the findings and the summary: Merge of a
// alone, and as final.
func (a *Auditor) Report() *Report { return Merge(a) }

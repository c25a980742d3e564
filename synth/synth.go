// Package synth generates deterministic synthetic effect ledgers, shaped like a
// trace export of agent tool calls, together with the label each operation must
// receive under SPEC.md. It exists to try the tool at scale and to give other
// packages a large input whose correct answer is known.
//
// The truth is written from the generator's intent, never by running an audit:
// a generator that asked the audit for the answer could not catch the audit's
// bugs. Every random choice comes from one PCG stream in one goroutine, so the
// same Config gives byte-identical output on every machine.
package synth

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// Config selects the size and the random stream of a generated ledger.
type Config struct {
	Ops    int   // number of operations
	Seed   int64 // same seed + same Ops (+ same Window) = byte-identical output
	Window int   // number of concurrently open operations whose records interleave (0 = DefaultWindow)
}

// DefaultWindow is the number of interleaved open operations when Config.Window is 0.
const DefaultWindow = 4096

// Stats describes what Generate wrote.
type Stats struct {
	Records    int            // distinct records generated (re-exported copies not counted)
	Lines      int            // lines written to the ledger, re-exported copies included
	Operations int            // operations, one truth line each
	Bytes      int64          // bytes written to the ledger
	Labels     map[string]int // operations per label, all five labels present
}

// The five labels of SPEC.md, as written in the truth file.
const (
	LabelHealthy     = "healthy"
	LabelDuplicate   = "duplicate"
	LabelKeyConflict = "key-conflict"
	LabelUncertain   = "uncertain"
	LabelAbsent      = "absent"
)

// ErrConfig reports a Config that cannot be generated.
var ErrConfig = errors.New("synth: invalid config")

const (
	bufSize = 1 << 20
	// dupPerRecord is the chance that a record is re-exported once more a little
	// later: 0.00705/(1+0.00705) ≈ 0.7% of all lines are then exact copies.
	dupPerRecord = 0.00705
	// dupMaxDelay is about how many lines after the original a copy appears at
	// the latest: a re-export follows shortly, not at the end of the file.
	dupMaxDelay = 256
)

// Generate writes the ledger as NDJSON to w and, if truth is not nil, one line
// per operation to truth, in order of the operation's first record in the
// ledger: {"operationId":"...","label":"healthy"}. Both writers are flushed
// before Generate returns; the first write error ends the run.
func Generate(cfg Config, w io.Writer, truth io.Writer) (Stats, error) {
	if cfg.Ops < 0 {
		return Stats{}, fmt.Errorf("%w: Ops %d is negative", ErrConfig, cfg.Ops)
	}
	if cfg.Window < 0 {
		return Stats{}, fmt.Errorf("%w: Window %d is negative", ErrConfig, cfg.Window)
	}
	if cfg.Window == 0 {
		cfg.Window = DefaultWindow
	}
	g := newGenerator(cfg, w, truth)
	err := g.run()
	if err != nil {
		return g.stats(), err
	}
	if err := g.out.Flush(); err != nil {
		return g.stats(), fmt.Errorf("synth: write ledger: %w", err)
	}
	if g.truth != nil {
		if err := g.truth.Flush(); err != nil {
			return g.stats(), fmt.Errorf("synth: write truth: %w", err)
		}
	}
	return g.stats(), nil
}

// label indexes, in the order of the five labels above.
const (
	lHealthy = iota
	lDuplicate
	lKeyConflict
	lUncertain
	lAbsent
	numLabels
)

var labelNames = [numLabels]string{LabelHealthy, LabelDuplicate, LabelKeyConflict, LabelUncertain, LabelAbsent}

type generator struct {
	cfg   Config
	rng   *rand.Rand
	out   *bufio.Writer
	truth *bufio.Writer
	salts salts

	window  []opState
	nextOp  int
	clockMs int64
	pair    *pairInfo // set while the second operation of a cross-operation conflict is still to be planned

	line    []byte
	tline   []byte
	pending []pendingDup
	free    [][]byte

	records, lines int
	bytes          int64
	labels         [numLabels]int
}

type pairInfo struct {
	owner int // operation index whose key the second operation reuses
	scope int
}

type pendingDup struct {
	due  int // emitted once this many lines are written
	line []byte
}

func newGenerator(cfg Config, w, truth io.Writer) *generator {
	g := &generator{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15)),
		out:     bufio.NewWriterSize(w, bufSize),
		salts:   newSalts(cfg.Seed),
		clockMs: baseMs,
		line:    make([]byte, 0, 1024),
	}
	if truth != nil {
		g.truth = bufio.NewWriterSize(truth, 256<<10)
		g.tline = make([]byte, 0, 128)
	}
	return g
}

func (g *generator) stats() Stats {
	s := Stats{Records: g.records, Lines: g.lines, Operations: g.nextOp, Bytes: g.bytes, Labels: make(map[string]int, numLabels)}
	for i, n := range g.labels {
		s.Labels[labelNames[i]] = n
	}
	return s
}

func (g *generator) run() error {
	n := min(g.cfg.Window, g.cfg.Ops)
	g.window = make([]opState, n)
	for i := range g.window {
		g.plan(&g.window[i])
	}
	for len(g.window) > 0 {
		k := g.rng.IntN(len(g.window))
		op := &g.window[k]
		if op.next == 0 && g.truth != nil {
			if err := g.writeTruth(op); err != nil {
				return err
			}
		}
		g.line = g.render(g.line[:0], op, &op.recs[op.next])
		if err := g.emit(g.line); err != nil {
			return err
		}
		g.records++
		if g.rng.Float64() < dupPerRecord {
			g.schedule(g.line)
		}
		if err := g.emitDue(false); err != nil {
			return err
		}
		op.next++
		if op.next < len(op.recs) {
			continue
		}
		if g.nextOp < g.cfg.Ops {
			g.plan(op)
			continue
		}
		last := len(g.window) - 1
		g.window[k], g.window[last] = g.window[last], g.window[k]
		g.window = g.window[:last]
	}
	return g.emitDue(true)
}

func (g *generator) emit(line []byte) error {
	if _, err := g.out.Write(line); err != nil {
		return fmt.Errorf("synth: write ledger: %w", err)
	}
	g.lines++
	g.bytes += int64(len(line))
	return nil
}

// schedule keeps a byte-identical copy of line to be written again a few lines
// later, as an exporter that re-sends a batch does.
func (g *generator) schedule(line []byte) {
	var buf []byte
	if n := len(g.free); n > 0 {
		buf, g.free = g.free[n-1][:0], g.free[:n-1]
	}
	buf = append(buf, line...)
	g.pending = append(g.pending, pendingDup{due: g.lines + 1 + g.rng.IntN(dupMaxDelay), line: buf})
}

// emitDue writes the copies whose time has come, in the order they were
// scheduled; with all set it writes every one left (the end of the export).
func (g *generator) emitDue(all bool) error {
	if len(g.pending) == 0 {
		return nil
	}
	kept := g.pending[:0]
	for _, p := range g.pending {
		if !all && p.due > g.lines {
			kept = append(kept, p)
			continue
		}
		if err := g.emit(p.line); err != nil {
			return err
		}
		g.free = append(g.free, p.line)
	}
	clear(g.pending[len(kept):])
	g.pending = kept
	return nil
}

func (g *generator) writeTruth(op *opState) error {
	b := append(g.tline[:0], `{"operationId":"`...)
	b = g.appendOpID(b, op.idx)
	b = append(b, `","label":"`...)
	b = append(b, labelNames[op.label]...)
	b = append(b, "\"}\n"...)
	g.tline = b
	if _, err := g.truth.Write(b); err != nil {
		return fmt.Errorf("synth: write truth: %w", err)
	}
	return nil
}

// ---- identifiers ------------------------------------------------------------

// salts separate the identifier families of one seed. Each identifier is
// mix(x ^ salt) of a counter x that is unique within its family; mix is a
// bijection on 64 bits, so identifiers never collide by accident.
type salts struct {
	op, attempt, key, hash, ref, filler uint64
}

func newSalts(seed int64) salts {
	s := uint64(seed)
	next := func() uint64 {
		s += 0x9e3779b97f4a7c15
		return mix(s)
	}
	return salts{op: next(), attempt: next(), key: next(), hash: next(), ref: next(), filler: next()}
}

// mix is the MurmurHash3 64-bit finaliser: a bijection with good avalanche.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

const mask48 = 1<<48 - 1

// mix48 is a bijection on 48-bit values: xor-shifts and odd multipliers
// modulo 2^48 are each invertible.
func mix48(x uint64) uint64 {
	x ^= x >> 24
	x = x * 0xff51afd7ed55 & mask48
	x ^= x >> 23
	x = x * 0xc4ceb9fe1a85 & mask48
	x ^= x >> 24
	return x
}

const hexDigits = "0123456789abcdef"

func appendHex(b []byte, v uint64, digits int) []byte {
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hexDigits[(v>>(uint(i)*4))&0xf])
	}
	return b
}

func appendPadded(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	d := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(d); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, d...)
}

func (g *generator) appendOpID(b []byte, idx int) []byte {
	b = append(b, "op-"...)
	b = appendHex(b, mix(uint64(idx)^g.salts.op)>>32, 8)
	b = append(b, '-')
	return appendPadded(b, int64(idx), 7)
}

// appendAttemptID writes 12 hex digits, short like the ids of real exports,
// through a bijection on 48 bits so that ids stay unique up to 2^44 operations.
func (g *generator) appendAttemptID(b []byte, idx, attempt int) []byte {
	b = append(b, "att-"...)
	return appendHex(b, mix48((uint64(idx)<<4|uint64(attempt))^g.salts.attempt&mask48), 12)
}

func (g *generator) appendKey(b []byte, owner, keyNo int) []byte {
	b = append(b, "idem-"...)
	return appendHex(b, mix((uint64(owner)<<3|uint64(keyNo))^g.salts.key), 16)
}

func (g *generator) appendHash(b []byte, owner, variant int) []byte {
	b = append(b, "sha256:"...)
	x := (uint64(owner)<<3 | uint64(variant)) << 2
	for j := range uint64(4) {
		b = appendHex(b, mix((x|j)^g.salts.hash), 16)
	}
	return b
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// appendEffectRef writes the provider's name for effect refNo of operation
// idx. Every (idx, refNo) gives a different string, so distinct effects are
// distinct exactly where the generator means them to be.
func (g *generator) appendEffectRef(b []byte, scope, idx, refNo int) []byte {
	serial := uint64(idx)<<2 | uint64(refNo)
	v := mix(serial ^ g.salts.ref)
	switch scope {
	case scStripe:
		// ch_ + 24 base62 characters: the first 11 spell v (62^11 > 2^64),
		// the rest are filler from a second mix.
		b = append(b, "ch_"...)
		for range 11 {
			b = append(b, base62[v%62])
			v /= 62
		}
		w := mix(serial ^ g.salts.filler)
		for range 13 {
			b = append(b, base62[w%62])
			w /= 62
		}
		return b
	case scGitHub:
		b = append(b, "issue-"...)
		return strconv.AppendUint(b, 10000+serial, 10)
	case scZendesk:
		b = append(b, "ticket-"...)
		return strconv.AppendUint(b, 100000+serial, 10)
	case scSendGrid:
		b = append(b, "delivery-"...)
		return appendHex(b, v, 16)
	default:
		b = append(b, "i-0"...)
		return appendHex(b, v, 16)
	}
}

// ---- time -------------------------------------------------------------------

// baseMs is 2026-03-02T08:00:00Z, the start of the synthetic export.
const baseMs = 1772438400000

// appendTime writes unix milliseconds as RFC 3339 UTC with three fraction
// digits, without going through time.Time: this runs for every record.
func appendTime(b []byte, ms int64) []byte {
	days := ms / 86400000
	rem := ms % 86400000
	y, m, d := civil(days)
	b = appendPadded(b, y, 4)
	b = append(b, '-')
	b = appendPadded(b, m, 2)
	b = append(b, '-')
	b = appendPadded(b, d, 2)
	b = append(b, 'T')
	b = appendPadded(b, rem/3600000, 2)
	b = append(b, ':')
	b = appendPadded(b, rem/60000%60, 2)
	b = append(b, ':')
	b = appendPadded(b, rem/1000%60, 2)
	b = append(b, '.')
	b = appendPadded(b, rem%1000, 3)
	return append(b, 'Z')
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's civil_from_days), valid for the non-negative days used here.
func civil(days int64) (year, month, day int64) {
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	month = mp + 3
	if month > 12 {
		month -= 12
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

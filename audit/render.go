package audit

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Rendering writes the text of an operation's report (its reason, times,
// payload hashes and finding messages) into the text buffer of the batch it
// belongs to, and its strings alias that buffer: a report on millions of
// operations then allocates next to nothing, where one string each would
// make the garbage collector run over and over. A batch is reused once its
// consumer is done with it, which is why Operation.Clone copies strings too.

// text is a batch's buffer of rendered strings.
type text struct {
	b    []byte
	strs []string // scratch for the lists a reason names

	// The date of the last instant written in full, "2006-01-02T": operations
	// come in order of first appearance, so a batch's instants mostly share a
	// day, though not a minute, with the one before.
	day     int64
	dayText [11]byte
	hasDay  bool
}

// since returns what was appended from start on, as a string aliasing the
// buffer. Appending may move the buffer, but never changes bytes already
// handed out: they stay where they were.
func (t *text) since(start int) string {
	if len(t.b) == start {
		return ""
	}
	return unsafe.String(&t.b[start], len(t.b)-start)
}

func (t *text) s(parts ...string) {
	for _, p := range parts {
		t.b = append(t.b, p...)
	}
}

func (t *text) n(n int) { t.b = strconv.AppendInt(t.b, int64(n), 10) }

// count appends n and the noun, plural unless n is 1.
func (t *text) count(n int, noun string) {
	t.n(n)
	t.s(" ", noun)
	if n != 1 {
		t.s("s")
	}
}

// instant appends i as RFC 3339 in UTC with as many fraction digits as
// needed, as time.RFC3339Nano has it. Within the day of the instant before,
// it writes the time of day itself.
func (t *text) instant(i Instant) {
	day, sec := i.Sec/86400, i.Sec%86400
	if sec < 0 {
		day, sec = day-1, sec+86400
	}
	if !t.hasDay || day != t.day {
		start := len(t.b)
		t.b = time.Unix(i.Sec, int64(i.Nsec)).UTC().AppendFormat(t.b, time.RFC3339Nano)
		// Only a day of a four-digit year is kept: an offset can move a
		// year-0000 or year-9999 instant out of them.
		if full := t.b[start:]; len(full) >= 20 && full[4] == '-' && full[10] == 'T' {
			copy(t.dayText[:], full)
			t.day, t.hasDay = day, true
		}
		return
	}
	h, m, ss := sec/3600, sec/60%60, sec%60
	t.b = append(t.b, t.dayText[:]...)
	t.b = append(t.b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':', byte('0'+ss/10), byte('0'+ss%10))
	if ns := i.Nsec; ns > 0 {
		var frac [10]byte // '.' and nine digits, less trailing zeros
		frac[0] = '.'
		for k := 9; k > 0; k-- {
			frac[k] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(frac)
		for frac[n-1] == '0' {
			n--
		}
		t.b = append(t.b, frac[:n]...)
	}
	t.b = append(t.b, 'Z')
}

// list appends values joined, naming at most a few so a reason stays one
// line.
func (t *text) list(values []string) {
	t.listOf(len(values), func(i int) { t.s(values[i]) })
}

// hashList is list for payload hashes: it expands the compact ones it
// names, and cuts long ones (see quoted), since a key-conflict reason names
// hashes other operations bound the key to.
func (t *text) hashList(hashes []string) {
	t.listOf(len(hashes), func(i int) {
		if h := hashes[i]; isCompact(h) {
			t.b = appendExpandedHash(t.b, h)
		} else {
			t.quoted(h)
		}
	})
}

// maxQuoted is the most runes of a string from another operation, its id or
// a payload hash, that a message quotes. Quoted whole, one long string
// would be repeated in the report on every operation that names it: a
// ledger of a megabyte made a report of gigabytes.
const maxQuoted = 200

// quoted appends s, valid UTF-8, cut after maxQuoted runes and then ended
// with "…".
func (t *text) quoted(s string) {
	s, cut := cutAfter(s, maxQuoted)
	t.s(s)
	if cut {
		t.s("…")
	}
}

// cutAfter returns the first n runes of s, and whether that left any out.
func cutAfter(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false // a string has no more runes than bytes
	}
	runes := 0
	for i := range s {
		if runes == n {
			return s[:i], true
		}
		runes++
	}
	return s, false
}

// listOf appends a list of n values, item appending the i-th.
func (t *text) listOf(n int, item func(i int)) {
	for i := range min(n, listNamed) {
		if i > 0 {
			t.s(", ")
		}
		item(i)
	}
	if n > listNamed {
		t.s(" and ")
		t.n(n - listNamed)
		t.s(" more")
	}
}

// listNamed is how many values a list names.
const listNamed = 3

// render builds the report on one operation into o, reusing the slices o
// already holds, with its strings in t; times holds the two observed-at
// strings o points to. In brief, it leaves out the reason, the times and
// the findings' messages (see Report.Briefs).
func (v *view) render(o *Operation, ref opRef, t *text, times *[2]string, brief bool) {
	a, op := v.op(ref)
	l := op.label.name()
	results, refs, keys, hashes, findings := o.Results[:0], o.EffectRefs[:0], o.IdempotencyKeys[:0], o.PayloadHashes[:0], o.Findings[:0]
	if refs == nil { // a fresh Operation: lists are [] in JSON, never null
		results, refs, keys, hashes, findings = Results{}, []string{}, []string{}, []string{}, []Finding{}
	}
	*o = Operation{
		OperationID:        a.st.str(op.id),
		Label:              l,
		NextAction:         l.NextAction(),
		Attempts:           a.attempts(op),
		Results:            results,
		EffectObservations: int(op.effectObs),
		DistinctEffects:    a.st.len(op.effects),
		EffectRefs:         a.st.appendTo(refs, op.effects),
		IdempotencyKeys:    keys,
		PayloadHashes:      hashes,
		First:              op.first.unpack(),
	}
	// Room for every hash at once: grown hash by hash, a set of a million
	// would copy the text over and over, and keep each outgrown copy that
	// the strings before point into.
	t.b = slices.Grow(t.b, a.st.len(op.hashes)*(len(sha256Prefix)+64))
	a.st.each(op.hashes, func(r sref) {
		start := len(t.b)
		t.b = appendExpandedHash(t.b, a.st.str(r))
		o.PayloadHashes = append(o.PayloadHashes, t.since(start))
	})
	a.eachResult(op, func(code uint32, n int) {
		o.Results = append(o.Results, ResultCount{Result: a.results[code].name, Attempts: n})
	})
	switch rs := o.Results; {
	case len(rs) == 2: // the common case past one, spared the sort's calls
		if rs[1].Result < rs[0].Result {
			rs[0], rs[1] = rs[1], rs[0]
		}
	case len(rs) > 2:
		slices.SortFunc(rs, func(x, y ResultCount) int { return strings.Compare(x.Result, y.Result) })
	}
	var seen distinct
	a.eachPair(op, func(p *opPair) { o.IdempotencyKeys = seen.append(o.IdempotencyKeys, a.key(a.pairAt(p.bind))) })
	o.Findings = findings
	if brief {
		for c := range nFindings {
			if op.findings.has(c) {
				o.Findings = append(o.Findings, Finding{Code: findingCodes[c]})
			}
		}
		return
	}
	if a.has(op, tFirstSeen) {
		for i, which := range [2]int{tFirstSeen, tLastSeen} {
			start := len(t.b)
			t.instant(a.time(op, which))
			times[i] = t.since(start)
		}
		o.FirstObservedAt, o.LastObservedAt = &times[0], &times[1]
	}
	start := len(t.b)
	v.reason(t, a, op)
	o.Reason = t.since(start)
	if op.findings != 0 {
		_, o.Findings = v.findings(ref, t, findings)
	}
}

// reason puts the evidence for op's label in words.
func (v *view) reason(t *text, a *Auditor, op *operation) {
	switch op.label {
	case lKeyConflict:
		if n := a.st.len(op.hashes); n >= 2 {
			t.n(n)
			t.s(" payload hashes under one operation: ")
			t.strs = a.st.appendTo(t.strs[:0], op.hashes)
			t.hashList(t.strs)
			return
		}
		bi, _ := a.conflict(op)
		total := a.total(bi)
		t.s("key ")
		t.keyOf(a, a.pairAt(bi))
		t.s(" is bound to ")
		t.n(int(total.hashes))
		t.s(" payload hashes (", a.notes.str(total.listed), ") across ")
		t.count(int(total.ops), "operation")
	case lDuplicate:
		t.count(int(op.effectObs), "effect observation")
		t.s(" resolve to ")
		t.n(a.st.len(op.effects))
		t.s(" effectRefs: ")
		t.strs = a.st.appendTo(t.strs[:0], op.effects)
		t.list(t.strs)
	case lHealthy:
		t.count(int(op.effectObs), "effect observation")
		if op.effectObs > 1 {
			t.s(" resolve")
		} else {
			t.s(" resolves")
		}
		t.s(" to 1 effectRef: ", a.st.str(op.effects.head()))
	case lAbsent:
		if op.attemptRecords == 0 {
			t.count(int(op.absentObs), "absent observation")
			t.s(" with no attempt records")
			return
		}
		t.s("absent observed at ")
		t.instant(a.time(op, tLastAbsent))
		t.s(", at or after every attempt (")
		t.count(a.attempts(op), "attempt")
		t.s(", last at ")
		t.instant(a.time(op, tLastAttempt))
		t.s(")")
	default:
		v.uncertainReason(t, a, op)
	}
}

func (v *view) uncertainReason(t *text, a *Auditor, op *operation) {
	switch {
	case op.absentObs == 0:
		t.count(a.attempts(op), "attempt")
		resultSummary(t, a, op)
		t.s(", no effect observation and no proof of absence")
	case !a.has(op, tLastAbsent):
		t.count(a.attempts(op), "attempt")
		t.s(", but no absent observation carries a usable observedAt")
	case op.untimedAttempts > 0:
		t.count(int(op.untimedAttempts), "attempt record")
		if op.untimedAttempts == 1 {
			t.s(" lacks")
		} else {
			t.s(" lack")
		}
		t.s(" a usable observedAt, so the absence observed at ")
		t.instant(a.time(op, tLastAbsent))
		t.s(" is not reliable")
	default:
		t.s("latest absent observation (")
		t.instant(a.time(op, tLastAbsent))
		t.s(") precedes the last attempt (")
		t.instant(a.time(op, tLastAttempt))
		t.s(")")
	}
}

// resultSummary appends the attempt results, e.g. " (timeout ×2)", naming
// at most listNamed of them as other lists do.
func resultSummary(t *text, a *Auditor, op *operation) {
	named := 0
	a.eachResult(op, func(code uint32, n int) {
		if named++; named > listNamed {
			return
		}
		if named == 1 {
			t.s(" (")
		} else {
			t.s(", ")
		}
		t.s(a.results[code].name)
		if n > 1 {
			t.s(" ×")
			t.n(n)
		}
	})
	if named > listNamed {
		t.s(" and ")
		t.n(named - listNamed)
		t.s(" more")
	}
	if named > 0 {
		t.s(")")
	}
}

package audit

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/effectaudit/effectaudit/sensitive"
)

// Finding is one thing in the retry discipline that made a failure
// possible. Findings never change a label.
type Finding struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type findingCode uint8

const (
	fKeyChurn findingCode = iota
	fMissingKey
	fMissingPayloadHash
	fSharedKey
	fSharedEffect
	fRetryAfterSuccess
	fRetryAfterFinal
	fRetryPastRetention
	fOrphanEffect
	fEffectBeforeAttempt
	fContradictoryEvidence
	fSensitiveIdentifier
	nFindings
)

// FindingCodes returns every finding code in SPEC's order, a copy the
// caller may change.
func FindingCodes() []string { return slices.Clone(findingCodes) }

// findingCodes lists every finding code, in SPEC's order; findingSet and
// findingCode index it.
var findingCodes = []string{
	fKeyChurn:              "key-churn",
	fMissingKey:            "missing-key",
	fMissingPayloadHash:    "missing-payload-hash",
	fSharedKey:             "shared-key",
	fSharedEffect:          "shared-effect",
	fRetryAfterSuccess:     "retry-after-success",
	fRetryAfterFinal:       "retry-after-final",
	fRetryPastRetention:    "retry-past-retention",
	fOrphanEffect:          "orphan-effect",
	fEffectBeforeAttempt:   "effect-before-attempt",
	fContradictoryEvidence: "contradictory-evidence",
	fSensitiveIdentifier:   "sensitive-identifier",
}

// GateNames returns the names a gate (--fail-on) can name: the labels, then
// the finding codes.
func GateNames() []string {
	names := make([]string, 0, len(labels)+len(findingCodes))
	for _, l := range labels {
		names = append(names, string(l))
	}
	return append(names, findingCodes...)
}

// findings decides which findings apply to op. Given a text, it also says
// why, naming the evidence: it appends to out a Finding for each, whose
// message it writes in t and which aliases t, as rendered strings do (see
// text). Merge only needs the codes.
func (v *view) findings(ref opRef, t *text, out []Finding) (findingSet, []Finding) {
	a, op := v.op(ref)
	f := raised{t: t, out: out}

	// Churn needs two pairs with attempts, and most operations have one
	// pair: only then are the keys read and compared.
	var attemptKeys []string
	attemptPairs := 0
	a.eachPair(op, func(p *opPair) {
		if p.attempts > 0 {
			attemptPairs++
		}
	})
	if attemptPairs >= 2 {
		var seen distinct
		a.eachPair(op, func(p *opPair) {
			if p.attempts > 0 {
				attemptKeys = seen.append(attemptKeys, a.key(a.pairAt(p.bind)))
			}
		})
	}
	if len(attemptKeys) >= 2 {
		f.raise(fKeyChurn, func(t *text) {
			t.s("attempts carry ")
			t.n(len(attemptKeys))
			t.s(" idempotency keys (")
			t.list(attemptKeys)
			t.s("): the provider cannot de-duplicate them")
		})
	}
	if keyless := a.keylessAttempts(op); keyless > 0 && a.attempts(op) >= 2 {
		f.raise(fMissingKey, func(t *text) {
			t.n(keyless)
			t.s(" of ")
			t.count(a.attempts(op), "attempt")
			t.s(" ", carry(int32(keyless)), " no idempotencyKey")
		})
	}
	if op.is(unhashed) {
		f.raise(fMissingPayloadHash, func(t *text) {
			u := a.unhashed[op.id]
			t.count(u.n, "attempt record")
			t.s(" ", carry(int32(u.n)), " an idempotencyKey but no payloadHash (first on line ")
			t.n(u.first.unpack().Line)
			t.s("): drift cannot be checked")
		})
	}
	a.eachPair(op, func(p *opPair) {
		if f.set.has(fSharedKey) {
			return
		}
		if total := a.total(p.bind); total.ops >= 2 && total.hashes == 1 {
			f.raise(fSharedKey, func(t *text) {
				t.s("key ")
				t.keyOf(a, a.pairAt(p.bind))
				t.s(" is carried by ")
				t.n(int(total.ops))
				t.s(" operations under one payload hash: one intent split into several identities")
			})
		}
	})
	if w, ok := v.sharedEffects[ref]; ok {
		f.raise(fSharedEffect, func(t *text) {
			t.s("effectRef ", w.ref, " is also observed under operation")
			if len(w.others)+w.more > 1 {
				t.s("s")
			}
			for i, other := range w.others {
				if i == 0 {
					t.s(" ")
				} else {
					t.s(", ")
				}
				t.quoted(other)
			}
			if w.more > 0 {
				t.s(" and ")
				t.n(w.more)
				t.s(" more")
			}
		})
	}
	// An attempt is observed at its earliest record, and can never come
	// after its own success: the success is one of its records.
	lastStart, started := noInstant, false
	retryAfter := func(c findingCode, result int, what string) {
		// No attempt was first observed after the latest attempt record.
		if !a.has(op, result) || !a.time(op, result).Before(a.time(op, tLastAttempt)) {
			return
		}
		if !started {
			lastStart, started = a.lastAttemptStart(op), true
		}
		if a.time(op, result).Before(lastStart) {
			f.raise(c, func(t *text) {
				t.s("an attempt at ")
				t.instant(lastStart)
				t.s(" comes after ", what, " at ")
				t.instant(a.time(op, result))
			})
		}
	}
	retryAfter(fRetryAfterSuccess, tFirstSuccess, "the success")
	retryAfter(fRetryAfterFinal, tFirstFinal, "a final result")
	if a.policy != nil && a.mayOutlast(op) {
		a.eachPairSpan(op, func(p *opPair, first, last Instant) {
			if f.set.has(fRetryPastRetention) || first == noInstant || last == first {
				return
			}
			b := a.pairAt(p.bind)
			keep := a.policy.Retention(a.scope(b))
			span := last.Sub(first) // the largest Duration past 292 years
			if keep > 0 && last.Beyond(first, keep) {
				f.raise(fRetryPastRetention, func(t *text) {
					length := span.String()
					if span == math.MaxInt64 {
						length = "292 years or more"
					}
					t.s("attempts under key ")
					t.keyOf(a, b)
					t.s(" span ", length, " (")
					t.instant(first)
					t.s(" to ")
					t.instant(last)
					t.s("), beyond its ", keep.String(), " retention")
				})
			}
		})
	}
	if op.effectObs > 0 && op.attemptRecords == 0 {
		f.raise(fOrphanEffect, func(t *text) {
			t.count(int(op.effectObs), "effect observation")
			t.s(" but no attempt records")
		})
	}
	// An untimed attempt record may be the first attempt, as in the
	// absence rule: the first attempt's time is then unknown.
	if a.has(op, tFirstEffect) && a.has(op, tFirstAttempt) && op.untimedAttempts == 0 &&
		a.time(op, tFirstEffect).Before(a.time(op, tFirstAttempt)) {
		f.raise(fEffectBeforeAttempt, func(t *text) {
			t.s("an effect observed at ")
			t.instant(a.time(op, tFirstEffect))
			t.s(" precedes the first attempt at ")
			t.instant(a.time(op, tFirstAttempt))
			t.s(": clock skew or mis-attribution")
		})
	}
	if op.effectObs > 0 && op.absentObs > 0 {
		f.raise(fContradictoryEvidence, func(t *text) {
			t.count(int(op.effectObs), "effect observation")
			t.s(" and ")
			t.count(int(op.absentObs), "absent observation")
		})
	}
	if reason, ok := sensitive.Check(a.st.str(op.id)); ok {
		f.raise(fSensitiveIdentifier, func(t *text) {
			t.s("operationId looks like it carries sensitive data (", reason, ")")
		})
	} else {
		a.eachPair(op, func(p *opPair) {
			if f.set.has(fSensitiveIdentifier) {
				return
			}
			if reason, ok := sensitive.Check(a.key(a.pairAt(p.bind))); ok {
				f.raise(fSensitiveIdentifier, func(t *text) {
					t.s("an idempotencyKey looks like it carries sensitive data (", reason, ")")
				})
			}
		})
	}
	return f.set, f.out
}

// raised collects an operation's findings, and their messages when it has
// a text to write them in: Merge needs only the codes, so a message is
// built only when wanted.
type raised struct {
	set findingSet
	t   *text
	out []Finding
}

func (r *raised) raise(c findingCode, message func(t *text)) {
	r.set |= 1 << c
	if r.t != nil {
		start := len(r.t.b)
		message(r.t)
		r.out = append(r.out, Finding{Code: findingCodes[c], Message: r.t.since(start)})
	}
}

// pairTotals unites the bindings of b's key pair across the parts (b is
// part a's): its distinct hashes and how many operations carry it. others
// are the other parts, and th the tableHash of the pair in each. hashes must
// be empty: only its room is reused. When no other part has the pair, shared
// is false and nothing is united: b's own counts are the totals.
func pairTotals(a *Auditor, b *binding, others []*Auditor, th []uint32, hashes []string) (_ []string, ops int, shared bool) {
	type found struct {
		part *Auditor
		b    *binding
	}
	joined := a.st.str(b.joined)
	var buf [4]found
	all := append(buf[:0], found{a, b})
	for k, p := range others {
		if i, ok := p.findBinding(th[k], joined); ok {
			all = append(all, found{p, p.pairAt(i)})
		}
	}
	if len(all) == 1 {
		return hashes, 0, false
	}
	var seen distinct
	for _, f := range all {
		f.part.st.each(f.b.hashes, func(r sref) { hashes = seen.append(hashes, f.part.st.str(r)) })
		ops += int(f.b.ops)
	}
	return hashes, ops, true
}

type sharedWith struct {
	ref    string
	others []string // the first few other operations observing ref, by id
	more   int      // how many others there are beyond those
}

// findSharedEffects finds effectRefs observed under two or more operations,
// and returns for each operation that has one the first, in (fingerprint,
// effectRef) order: the one its shared-effect finding names. It works on
// the effects of the whole audit at once, rather than keep an index of
// every effect while records are read: the memory is needed only here.
//
// Most effectRefs are observed under one operation. A first pass marks each
// effect's fingerprint in a bitmap, and in a second bitmap if it was marked
// already; only effects marked in the second become entries to sort: a few
// percent of them. That takes sixteen bits of bitmaps an effect, and four
// bytes while it runs.
func (v *view) findSharedEffects() map[opRef]sharedWith {
	type entry struct {
		h      uint64
		ref    opRef
		effect sref
	}
	name := func(e *entry) string { return v.parts[e.ref.part].st.str(e.effect) }
	effects := 0
	marks := make([][]uint32, len(v.parts))
	for pi, a := range v.parts {
		marks[pi] = make([]uint32, 0, a.effectCount)
		effects += a.effectCount
	}
	// 8 bits an effect in each bitmap, up to bit numbers of 32 bits.
	bits := min(uint64(64*(effects/8+1)), 1<<32)
	once := make([]uint64, bits/64)
	twice := make([]uint64, bits/64)
	// The first pass keeps each effect's bit number, in the order the
	// second pass goes through them, so that only effects marked twice are
	// read again: an effect's bytes are a cache miss away.
	v.eachPart(func(pi int, a *Auditor) {
		for i := range a.ops.len() {
			a.st.each(a.opAt(i).effects, func(r sref) {
				marks[pi] = append(marks[pi], uint32(xxhash.Sum64String(a.st.str(r))%bits))
			})
		}
	})
	// Each goroutine marks the bits of its own share of the bitmaps, from
	// every part's marks: no two write one word, so no atomics are needed.
	share := (len(once) + len(v.parts) - 1) / len(v.parts) * 64
	v.eachPart(func(g int, _ *Auditor) {
		from, to := min(uint64(g*share), bits), min(uint64((g+1)*share), bits)
		for _, list := range marks {
			for _, b32 := range list {
				if b := uint64(b32); from <= b && b < to {
					w, m := b/64, uint64(1)<<(b%64)
					twice[w] |= once[w] & m
					once[w] |= m
				}
			}
		}
	})
	lists := make([][]entry, len(v.parts))
	v.eachPart(func(pi int, a *Auditor) {
		// An effect shares a bit with another by chance with odds of
		// 1 - e^(-1/8), about 12%: unless many effects are truly shared, a
		// list sized at an eighth of them does not grow.
		lists[pi] = make([]entry, 0, len(marks[pi])/8)
		k := 0
		for i := range a.ops.len() {
			a.st.each(a.opAt(i).effects, func(r sref) {
				b := marks[pi][k]
				k++
				if twice[b/64]&(1<<(b%64)) != 0 {
					h := xxhash.Sum64String(a.st.str(r))
					lists[pi] = append(lists[pi], entry{h, opRef{part: uint16(pi), index: int32(i)}, r})
				}
			})
		}
		marks[pi] = nil
	})
	entries := slices.Concat(lists...)
	slices.SortFunc(entries, func(x, y entry) int {
		if c := cmp.Compare(x.h, y.h); c != 0 {
			return c
		}
		return strings.Compare(name(&x), name(&y))
	})
	shared := map[opRef]sharedWith{}
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].h == entries[i].h && name(&entries[j]) == name(&entries[i]) {
			j++
		}
		if j-i >= 2 {
			// An operation's effects are distinct, so the group's
			// operations are too.
			group := entries[i:j]
			ids := make([]string, len(group))
			for k := range group {
				a, op := v.op(group[k].ref)
				ids[k] = a.st.str(op.id)
			}
			slices.Sort(ids)
			const named = 3
			ref := name(&group[0])
			for _, e := range group {
				if _, done := shared[e.ref]; done {
					continue // an earlier shared effect of the operation is named
				}
				a, op := v.op(e.ref)
				id := a.st.str(op.id)
				w := sharedWith{ref: ref, more: max(0, len(group)-1-named)}
				for _, other := range ids {
					if len(w.others) == named {
						break
					}
					if other != id {
						w.others = append(w.others, other)
					}
				}
				shared[e.ref] = w
			}
		}
		i = j
	}
	return shared
}

// keyOf appends binding b's key, and its scope if it has one.
func (t *text) keyOf(a *Auditor, b *binding) {
	t.s(a.key(b))
	if s := a.scope(b); s != "" {
		t.s(" (scope ", s, ")")
	}
}

// carry agrees the verb with a count of records.
func carry(n int32) string {
	if n == 1 {
		return "carries"
	}
	return "carry"
}

// newFindingCounts returns a map with every finding code at zero.
func newFindingCounts() map[string]int {
	m := make(map[string]int, len(findingCodes))
	for _, c := range findingCodes {
		m[c] = 0
	}
	return m
}

// IsFindingCode reports whether name is a finding code.
func IsFindingCode(name string) bool { return slices.Contains(findingCodes, name) }

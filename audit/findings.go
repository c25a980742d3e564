package audit

import (
	"fmt"
	"slices"
	"time"

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

// FindingCodes lists every finding code, in SPEC's order.
var FindingCodes = []string{
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

// findings decides which findings apply to op. With messages it also says
// why, naming the evidence; Merge only needs the codes.
func (v *view) findings(ref opRef, messages bool) (findingSet, []Finding) {
	a, op := v.op(ref)
	var set findingSet
	var out []Finding
	raise := func(c findingCode, format string, args ...any) {
		set |= 1 << c
		if messages {
			out = append(out, Finding{Code: FindingCodes[c], Message: fmt.Sprintf(format, args...)})
		}
	}

	var attemptKeys []string
	op.eachPair(func(p *opPair) {
		if key := a.pairAt(p.bind).key(); p.attempts > 0 && !slices.Contains(attemptKeys, key) {
			attemptKeys = append(attemptKeys, key)
		}
	})
	if len(attemptKeys) >= 2 {
		raise(fKeyChurn, "attempts carry %d idempotency keys (%s): the provider cannot de-duplicate them",
			len(attemptKeys), list(attemptKeys))
	}
	if op.attempts() >= 2 && op.keylessAttempts > 0 {
		raise(fMissingKey, "%s of %s %s no idempotencyKey",
			plural(int(op.keylessAttempts), "attempt record"), plural(op.attempts(), "attempt"), carry(op.keylessAttempts))
	}
	if op.unhashedKeyed > 0 {
		raise(fMissingPayloadHash, "%s %s an idempotencyKey but no payloadHash (first on line %d): drift cannot be checked",
			plural(int(op.unhashedKeyed), "attempt record"), carry(op.unhashedKeyed), op.unhashedAt.unpack().Line)
	}
	op.eachPair(func(p *opPair) {
		if set.has(fSharedKey) {
			return
		}
		if b := a.pairAt(p.bind); b.allOps >= 2 && b.allHashes == 1 {
			raise(fSharedKey, "key %s is carried by %d operations under one payload hash: one intent split into several identities",
				describeKey(b), b.allOps)
		}
	})
	if others := v.sharedEffects[ref]; len(others) > 0 {
		raise(fSharedEffect, "effectRef %s is also observed under %s", others[0].ref, describeOps(others[0].ops))
	}
	if op.has(tFirstSuccess) && op.times[tLastAttempt] > op.times[tFirstSuccess] {
		raise(fRetryAfterSuccess, "an attempt at %s comes after the success at %s",
			op.times[tLastAttempt], op.times[tFirstSuccess])
	}
	if op.has(tFirstFinal) && op.times[tLastAttempt] > op.times[tFirstFinal] {
		raise(fRetryAfterFinal, "an attempt at %s comes after a final result at %s",
			op.times[tLastAttempt], op.times[tFirstFinal])
	}
	if a.policy != nil {
		op.eachPair(func(p *opPair) {
			if set.has(fRetryPastRetention) || p.first == noStamp || p.last == p.first {
				return
			}
			b := a.pairAt(p.bind)
			keep := a.policy.Retention(b.scope())
			if span := time.Duration(p.last - p.first); keep > 0 && span > keep {
				raise(fRetryPastRetention, "attempts under key %s span %s (%s to %s), beyond its %s retention",
					describeKey(b), span, p.first, p.last, keep)
			}
		})
	}
	if op.effectObs > 0 && op.attemptRecords == 0 {
		raise(fOrphanEffect, "%s but no attempt records", plural(int(op.effectObs), "effect observation"))
	}
	if op.has(tFirstEffect) && op.has(tFirstAttempt) && op.times[tFirstEffect] < op.times[tFirstAttempt] {
		raise(fEffectBeforeAttempt, "an effect observed at %s precedes the first attempt at %s: clock skew or mis-attribution",
			op.times[tFirstEffect], op.times[tFirstAttempt])
	}
	if op.effectObs > 0 && op.absentObs > 0 {
		raise(fContradictoryEvidence, "%s and %s",
			plural(int(op.effectObs), "effect observation"), plural(int(op.absentObs), "absent observation"))
	}
	if reason, ok := sensitive.Check(op.id); ok {
		raise(fSensitiveIdentifier, "operationId looks like it carries sensitive data (%s)", reason)
	} else {
		op.eachPair(func(p *opPair) {
			if set.has(fSensitiveIdentifier) {
				return
			}
			if reason, ok := sensitive.Check(a.pairAt(p.bind).key()); ok {
				raise(fSensitiveIdentifier, "an idempotencyKey looks like it carries sensitive data (%s)", reason)
			}
		})
	}
	return set, out
}

// pairTotals unites a key pair's bindings across the parts: its distinct
// hashes and how many operations carry it.
func (v *view) pairTotals(joined string) (hashes []string, ops int) {
	for _, p := range v.parts {
		i, ok := p.pairIndex[joined]
		if !ok {
			continue
		}
		b := p.pairAt(i)
		for _, h := range b.hashes.list() {
			if !slices.Contains(hashes, h) {
				hashes = append(hashes, h)
			}
		}
		ops += int(b.ops)
	}
	return hashes, ops
}

type sharedWith struct {
	ref string
	ops []string // the other operations observing ref
}

// findSharedEffects finds effectRefs observed under two or more operations.
// It sorts fingerprints of (effectRef, operation) pairs rather than keep an
// index of every effect during the audit: the memory is needed only here.
func (v *view) findSharedEffects() map[opRef][]sharedWith {
	var entries []effectEntry
	for _, r := range v.order {
		_, op := v.op(r)
		if op.effects.first != "" {
			entries = append(entries, effectEntry{xxhash.Sum64String(op.effects.first), r})
		}
		if op.effects.more != nil {
			for _, e := range *op.effects.more {
				entries = append(entries, effectEntry{xxhash.Sum64String(e), r})
			}
		}
	}
	slices.SortFunc(entries, func(x, y effectEntry) int {
		switch {
		case x.h < y.h:
			return -1
		case x.h > y.h:
			return 1
		}
		return 0
	})
	shared := map[opRef][]sharedWith{}
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].h == entries[i].h {
			j++
		}
		if j-i >= 2 {
			v.markShared(shared, entries[i:j])
		}
		i = j
	}
	return shared
}

type effectEntry struct {
	h   uint64 // fingerprint of an effectRef
	ref opRef  // an operation observing it
}

func (v *view) markShared(shared map[opRef][]sharedWith, group []effectEntry) {
	// A group shares a fingerprint; refs are compared for real here.
	refsOf := func(r opRef) []string { _, op := v.op(r); return op.effects.list() }
	for _, x := range group {
		for _, ref := range refsOf(x.ref) {
			if xxhash.Sum64String(ref) != group[0].h {
				continue
			}
			var others []string
			for _, y := range group {
				_, other := v.op(y.ref)
				if y.ref != x.ref && slices.Contains(refsOf(y.ref), ref) && !slices.Contains(others, other.id) {
					others = append(others, other.id)
				}
			}
			if len(others) > 0 {
				slices.Sort(others)
				shared[x.ref] = append(shared[x.ref], sharedWith{ref: ref, ops: others})
			}
		}
	}
}

// carry agrees the verb with a count of records.
func carry(n int32) string {
	if n == 1 {
		return "carries"
	}
	return "carry"
}

func describeKey(b *binding) string {
	if s := b.scope(); s != "" {
		return b.key() + " (scope " + s + ")"
	}
	return b.key()
}

// newFindingCounts returns a map with every finding code at zero.
func newFindingCounts() map[string]int {
	m := make(map[string]int, len(FindingCodes))
	for _, c := range FindingCodes {
		m[c] = 0
	}
	return m
}

// IsFindingCode reports whether name is a finding code.
func IsFindingCode(name string) bool { return slices.Contains(FindingCodes, name) }

package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"
)

// This file holds a small, independent reading of SPEC.md for the tests: a
// shape checker for single lines and a labeller for whole ledgers. It shares
// no code with the generator, so the generator's intent is checked against
// the rules rather than against itself.

var (
	reObservedAt = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
	rePayload    = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// record is one ledger line as the oracle sees it.
type record struct {
	Type           string
	OperationID    string
	AttemptID      string
	IdempotencyKey string
	Scope          string
	PayloadHash    string
	Result         string
	EffectRef      string
	ObservedAt     time.Time
	HasObservedAt  bool
	Attempt        int64
}

// checkLine validates one line (newline included) against SPEC's Records
// section and returns the record it holds.
func checkLine(line []byte) (record, error) {
	var rec record
	if len(line) == 0 || line[len(line)-1] != '\n' {
		return rec, errors.New("line does not end in a newline")
	}
	body := line[:len(line)-1]
	if bytes.ContainsAny(body, "\r\n") {
		return rec, errors.New("stray line break")
	}
	if !utf8.Valid(body) {
		return rec, errors.New("invalid UTF-8")
	}
	fields, err := flatObject(body)
	if err != nil {
		return rec, err
	}
	str := func(name string, required bool) (string, error) {
		v, ok := fields[name]
		if !ok || v == nil {
			if required {
				return "", fmt.Errorf("missing %s", name)
			}
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s is %T, not a string", name, v)
		}
		return s, nil
	}
	for _, f := range []struct {
		name     string
		dst      *string
		required bool
	}{
		{"type", &rec.Type, true},
		{"operationId", &rec.OperationID, true},
		{"attemptId", &rec.AttemptID, false},
		{"idempotencyKey", &rec.IdempotencyKey, false},
		{"scope", &rec.Scope, false},
		{"payloadHash", &rec.PayloadHash, false},
		{"result", &rec.Result, false},
		{"effectRef", &rec.EffectRef, false},
	} {
		if *f.dst, err = str(f.name, f.required); err != nil {
			return rec, err
		}
	}
	switch {
	case rec.Type != "attempt" && rec.Type != "effect":
		return rec, fmt.Errorf("type %q", rec.Type)
	case rec.OperationID == "":
		return rec, errors.New("empty operationId")
	case rec.PayloadHash != "" && !rePayload.MatchString(rec.PayloadHash):
		return rec, fmt.Errorf("payloadHash %q is not sha256:<64 lower hex>", rec.PayloadHash)
	}
	if rec.Type == "effect" {
		switch rec.Result {
		case "", "present":
			if rec.EffectRef == "" {
				return rec, errors.New("present effect without effectRef")
			}
		case "absent":
			if rec.EffectRef != "" {
				return rec, errors.New("absent effect names an effectRef")
			}
		default:
			return rec, fmt.Errorf("effect result %q", rec.Result)
		}
		if _, ok := fields["attempt"]; ok {
			return rec, errors.New("attempt number on an effect")
		}
	} else {
		if rec.Result == "" {
			return rec, errors.New("attempt without result")
		}
		if rec.EffectRef != "" {
			return rec, errors.New("effectRef on an attempt")
		}
		if v, ok := fields["attempt"]; ok {
			n, ok := v.(json.Number)
			if !ok {
				return rec, fmt.Errorf("attempt is %T, not a number", v)
			}
			if rec.Attempt, err = n.Int64(); err != nil || rec.Attempt < 1 {
				return rec, fmt.Errorf("attempt %q is not an integer >= 1", n)
			}
		}
	}
	at, err := str("observedAt", false)
	if err != nil {
		return rec, err
	}
	if at != "" {
		if !reObservedAt.MatchString(at) {
			return rec, fmt.Errorf("observedAt %q is not RFC 3339 UTC with milliseconds", at)
		}
		if rec.ObservedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return rec, fmt.Errorf("observedAt: %w", err)
		}
		rec.HasObservedAt = true
	}
	return rec, nil
}

// decodeLine reads a line without checking its shape.
func decodeLine(line []byte) (record, error) {
	var raw struct {
		Type, OperationID, AttemptID, IdempotencyKey, Scope, PayloadHash, Result, EffectRef string
		ObservedAt                                                                          *time.Time
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return record{}, err
	}
	rec := record{
		Type: raw.Type, OperationID: raw.OperationID, AttemptID: raw.AttemptID, IdempotencyKey: raw.IdempotencyKey,
		Scope: raw.Scope, PayloadHash: raw.PayloadHash, Result: raw.Result, EffectRef: raw.EffectRef,
	}
	if raw.ObservedAt != nil {
		rec.ObservedAt, rec.HasObservedAt = *raw.ObservedAt, true
	}
	return rec, nil
}

// flatObject decodes a JSON object of scalar members, rejecting duplicate
// member names (which encoding/json would silently merge) and trailing data.
func flatObject(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object (%v, %v)", tok, err)
	}
	fields := make(map[string]any)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("member name %v", tok)
		}
		if _, dup := fields[name]; dup {
			return nil, fmt.Errorf("duplicate member %q", name)
		}
		v, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if _, ok := v.(json.Delim); ok {
			return nil, fmt.Errorf("member %q is not a scalar", name)
		}
		fields[name] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, fmt.Errorf("unterminated object (%v, %v)", tok, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the object")
	}
	return fields, nil
}

// opEvidence is what the oracle gathers per operation.
type opEvidence struct {
	attemptIDs      map[string]bool
	anonAttempts    int
	attemptTimes    []time.Time
	attemptUntimed  bool
	effectRefs      map[string]bool
	hashes          map[string]bool
	pairs           map[[2]string]bool
	absences        []time.Time // timed absent observations
	untimedAbsences int
}

type ledgerFacts struct {
	order    []string
	ops      map[string]*opEvidence
	bindings map[[2]string]map[string]bool
}

func gatherFacts(recs []record) *ledgerFacts {
	f := &ledgerFacts{ops: map[string]*opEvidence{}, bindings: map[[2]string]map[string]bool{}}
	for _, r := range recs {
		e := f.ops[r.OperationID]
		if e == nil {
			e = &opEvidence{attemptIDs: map[string]bool{}, effectRefs: map[string]bool{}, hashes: map[string]bool{}, pairs: map[[2]string]bool{}}
			f.ops[r.OperationID] = e
			f.order = append(f.order, r.OperationID)
		}
		if r.PayloadHash != "" {
			e.hashes[r.PayloadHash] = true
		}
		if r.IdempotencyKey != "" {
			pair := [2]string{r.Scope, r.IdempotencyKey}
			e.pairs[pair] = true
			if r.PayloadHash != "" {
				if f.bindings[pair] == nil {
					f.bindings[pair] = map[string]bool{}
				}
				f.bindings[pair][r.PayloadHash] = true
			}
		}
		switch {
		case r.Type == "attempt":
			if r.AttemptID == "" {
				e.anonAttempts++
			} else {
				e.attemptIDs[r.AttemptID] = true
			}
			if r.HasObservedAt {
				e.attemptTimes = append(e.attemptTimes, r.ObservedAt)
			} else {
				e.attemptUntimed = true
			}
		case r.Result == "absent":
			if r.HasObservedAt {
				e.absences = append(e.absences, r.ObservedAt)
			} else {
				e.untimedAbsences++
			}
		default:
			e.effectRefs[r.EffectRef] = true
		}
	}
	return f
}

func (e *opEvidence) attempts() int { return len(e.attemptIDs) + e.anonAttempts }

// ownConflict: the operation itself carries two payload hashes.
func (e *opEvidence) ownConflict() bool { return len(e.hashes) >= 2 }

// sharedConflict: one of its key pairs is bound to two hashes in the ledger.
func (f *ledgerFacts) sharedConflict(e *opEvidence) bool {
	for pair := range e.pairs {
		if len(f.bindings[pair]) >= 2 {
			return true
		}
	}
	return false
}

// provenAbsent: an absent observation at or after every attempt, all timed.
func (e *opEvidence) provenAbsent() bool {
	if e.attempts() == 0 {
		return len(e.absences)+e.untimedAbsences > 0
	}
	if e.attemptUntimed {
		return false
	}
	for _, a := range e.absences {
		late := true
		for _, t := range e.attemptTimes {
			if a.Before(t) {
				late = false
				break
			}
		}
		if late {
			return true
		}
	}
	return false
}

// label applies SPEC's five rules in order.
func (f *ledgerFacts) label(e *opEvidence) string {
	switch {
	case e.ownConflict() || f.sharedConflict(e):
		return LabelKeyConflict
	case len(e.effectRefs) >= 2:
		return LabelDuplicate
	case len(e.effectRefs) == 1:
		return LabelHealthy
	case e.provenAbsent():
		return LabelAbsent
	default:
		return LabelUncertain
	}
}

func (f *ledgerFacts) labels() map[string]string {
	out := make(map[string]string, len(f.ops))
	for id, e := range f.ops {
		out[id] = f.label(e)
	}
	return out
}

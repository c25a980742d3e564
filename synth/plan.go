package synth

import "strconv"

// An operation is planned whole when it opens: its label is decided first and
// its records are built to earn exactly that label under SPEC.md, then sorted
// into time order. The run loop only renders the planned records one by one.

type opState struct {
	idx   int
	label int
	scope int
	tool  int
	next  int   // index of the next record to emit
	recs  []rec // reused when the slot opens the next operation
}

// maxAttempts bounds the attempts of one planned operation.
const maxAttempts = 3

const (
	kindAttempt = iota
	kindEffect
)

// rec flags: which optional fields the record carries.
const (
	fAttemptID = 1 << iota // attempt: its own id; effect: the id of the attempt that caused it
	fNum                   // "attempt" number, attempts only
	fKey                   // idempotencyKey
	fHash                  // payloadHash
	fObs                   // observedAt
	fResult                // "result" on an effect (always written on attempts)
)

type rec struct {
	at          int64 // unix ms; orders the records even where observedAt is not written
	hashOwner   int
	keyOwner    int
	flags       uint8
	kind        uint8
	result      uint8
	attempt     uint8 // attempt number (attempts) or causing attempt (effects)
	keyNo       uint8
	hashVariant uint8
	refNo       uint8
}

// attempt results and effect results.
const (
	rSuccess = iota
	rTimeout
	rConnectionReset
	rHTTP503
	rHTTP502
	rHTTP429
	rInvalidArguments
	rIdempotencyConflict
	rHTTP409
	rPresent
	rAbsent
)

var resultNames = [...]string{
	rSuccess:             "success",
	rTimeout:             "timeout",
	rConnectionReset:     "connection_reset",
	rHTTP503:             "http_503",
	rHTTP502:             "http_502",
	rHTTP429:             "http_429",
	rInvalidArguments:    "invalid_arguments",
	rIdempotencyConflict: "idempotency_conflict",
	rHTTP409:             "http_409",
	rPresent:             "present",
	rAbsent:              "absent",
}

const (
	scStripe = iota
	scZendesk
	scSendGrid
	scGitHub
	scEC2
)

var scopeNames = [...]string{scStripe: "stripe", scZendesk: "zendesk", scSendGrid: "sendgrid", scGitHub: "github", scEC2: "aws-ec2"}

// scopeTools lists the agent tools that call each provider.
var scopeTools = [...][]string{
	scStripe:   {"create_charge", "create_refund"},
	scZendesk:  {"create_ticket", "update_ticket"},
	scSendGrid: {"send_email"},
	scGitHub:   {"create_issue", "add_comment"},
	scEC2:      {"run_instances", "create_volume"},
}

// scopeSources names where the provider-side evidence was collected.
var scopeSources = [...]string{
	scStripe:   "stripe.events",
	scZendesk:  "zendesk.audit_log",
	scSendGrid: "sendgrid.events",
	scGitHub:   "github.webhook",
	scEC2:      "aws.cloudtrail",
}

const absenceSource = "reconciler.lookup"

// label draw weights out of drawTotal. A cross-operation pair is one draw that
// yields two key-conflict operations, so the per-operation shares are
// weight/100: 70 healthy, 8 duplicate, 3+2 key-conflict, 12 uncertain, 5 absent.
const (
	wHealthy   = 70
	wDuplicate = 8
	wConflict  = 3 // two payload hashes within one operation
	wPair      = 1 // one key, two operations, two payload hashes
	wUncertain = 12
	wAbsent    = 5
	drawTotal  = wHealthy + wDuplicate + wConflict + wPair + wUncertain + wAbsent
)

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

// between returns a uniform value in [lo, hi].
func (g *generator) between(lo, hi int64) int64 { return lo + g.rng.Int64N(hi-lo+1) }

// pick returns an index drawn with the given weights.
func (g *generator) pick(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	u := g.rng.IntN(total)
	for i, w := range weights {
		if u < w {
			return i
		}
		u -= w
	}
	return len(weights) - 1
}

func (g *generator) retryable() uint8 {
	return [...]uint8{rTimeout, rConnectionReset, rHTTP503, rHTTP502, rHTTP429}[g.pick(55, 20, 12, 5, 8)]
}

func (g *generator) latency(result uint8) int64 {
	switch result {
	case rTimeout:
		return g.between(10000, 30000)
	case rConnectionReset:
		return g.between(50, 5000)
	case rHTTP503, rHTTP502, rHTTP429:
		return g.between(80, 1500)
	case rInvalidArguments, rIdempotencyConflict, rHTTP409:
		return g.between(40, 400)
	default:
		return g.between(120, 2500)
	}
}

// plan opens the next operation in slot op.
func (g *generator) plan(op *opState) {
	idx := g.nextOp
	g.nextOp++
	op.idx, op.next, op.recs = idx, 0, op.recs[:0]
	g.clockMs += g.between(1, 50)
	start := g.clockMs

	if p := g.pair; p != nil {
		g.pair = nil
		op.scope = p.scope
		op.tool = g.rng.IntN(len(scopeTools[op.scope]))
		g.planPairSecond(op, start, p.owner)
	} else {
		op.scope = g.pick(30, 25, 20, 15, 10)
		op.tool = g.rng.IntN(len(scopeTools[op.scope]))
		u := g.rng.IntN(drawTotal)
		switch {
		case u < wHealthy:
			g.planHealthy(op, start)
		case u < wHealthy+wDuplicate:
			g.planDuplicate(op, start)
		case u < wHealthy+wDuplicate+wConflict:
			g.planConflict(op, start)
		case u < wHealthy+wDuplicate+wConflict+wPair:
			if idx+1 < g.cfg.Ops {
				g.planPairFirst(op, start)
			} else {
				g.planConflict(op, start) // no operation left to share the key with
			}
		case u < wHealthy+wDuplicate+wConflict+wPair+wUncertain:
			g.planUncertain(op, start)
		default:
			g.planAbsent(op, start)
		}
	}
	g.labels[op.label]++
	sortByTime(op.recs)
}

// sortByTime is a stable insertion sort: an operation has a handful of
// records, and ties keep the order in which they were planned.
func sortByTime(rs []rec) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].at < rs[j-1].at; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// attemptPlan describes the attempts of one operation.
type attemptPlan struct {
	n        int // number of attempts, 0 to maxAttempts
	results  [maxAttempts]uint8
	keyed    bool // attempts carry an idempotency key
	churn    bool // a new key per attempt (keyNo = attempt index)
	hashed   bool // attempts carry a payload hash
	drift    bool // variants holds the payload hash variant of each attempt; otherwise all are variant 0
	variants [maxAttempts]uint8
	keyOwner int // operation whose key is used; the operation itself unless a pair reuses it
	// dropObs is the chance that one attempt lacks observedAt; zero where the
	// label depends on every attempt time being present.
	dropObs float64
}

// addAttempts appends the attempts and returns when each was observed.
func (g *generator) addAttempts(op *opState, start int64, p *attemptPlan) (obs [maxAttempts]int64) {
	t := start
	for k, res := range p.results[:p.n] {
		lat := g.latency(res)
		at := t + lat
		r := rec{
			at:        at,
			kind:      kindAttempt,
			result:    res,
			attempt:   uint8(k + 1),
			flags:     fAttemptID | fNum | fObs,
			keyOwner:  p.keyOwner,
			hashOwner: op.idx,
		}
		// A client that mints no attempt id still numbers its tries, which
		// also keeps two attempts of one operation from rendering alike.
		switch {
		case g.chance(0.02):
			r.flags &^= fAttemptID
		case g.chance(0.05):
			r.flags &^= fNum
		}
		if p.dropObs > 0 && g.chance(p.dropObs) {
			r.flags &^= fObs
		}
		if p.keyed {
			r.flags |= fKey
			if p.churn {
				r.keyNo = uint8(k)
			}
		}
		if p.hashed {
			r.flags |= fHash
			if p.drift {
				r.hashVariant = p.variants[k]
			}
		}
		op.recs = append(op.recs, r)
		obs[k] = at
		// Exponential back-off with jitter before the next try.
		t = at + 500<<k + g.between(0, 1000)
	}
	return obs
}

// addEffect appends a receipt of effect refNo caused by attempt cause (0-based).
func (g *generator) addEffect(op *opState, at int64, refNo, cause int, p *attemptPlan) *rec {
	r := rec{
		at:        at,
		kind:      kindEffect,
		result:    rPresent,
		refNo:     uint8(refNo),
		attempt:   uint8(cause + 1),
		keyOwner:  p.keyOwner,
		hashOwner: op.idx,
		flags:     fObs,
	}
	if g.chance(0.01) {
		r.flags &^= fObs
	}
	if g.chance(0.6) {
		r.flags |= fAttemptID
	}
	if g.chance(0.3) {
		r.flags |= fResult
	}
	// Some providers echo the key and payload hash of the request on the
	// receipt; they are the attempt's own, so they bind nothing new.
	if p.keyed && p.hashed && g.chance(0.15) {
		r.flags |= fKey | fHash
		if p.churn {
			r.keyNo = uint8(cause)
		}
		if p.drift {
			r.hashVariant = p.variants[cause]
		}
	}
	op.recs = append(op.recs, r)
	return &op.recs[len(op.recs)-1]
}

// addReceipt appends a further receipt of an effect already added. It always
// carries observedAt, so that it never renders byte-identical to the first:
// every exact copy in the ledger is then a deliberate re-export.
func (g *generator) addReceipt(op *opState, at int64, refNo, cause int, p *attemptPlan) {
	g.addEffect(op, at, refNo, cause, p).flags |= fObs
}

// addAbsence appends a provider lookup that found no effect. withTime false
// leaves observedAt out (at still orders the record).
func (g *generator) addAbsence(op *opState, at int64, lastAttempt int, withTime bool, p *attemptPlan) {
	r := rec{
		at:        at,
		kind:      kindEffect,
		result:    rAbsent,
		attempt:   uint8(lastAttempt),
		keyOwner:  p.keyOwner,
		hashOwner: op.idx,
		flags:     fResult,
	}
	if withTime {
		r.flags |= fObs
	}
	if lastAttempt > 0 && g.chance(0.3) {
		r.flags |= fAttemptID
	}
	// The lookup is by key, so it may report the key and hash it looked up.
	if p.keyed && p.hashed && !p.churn && !p.drift && g.chance(0.4) {
		r.flags |= fKey | fHash
	}
	op.recs = append(op.recs, r)
}

// hashed decides whether an operation's records carry a payload hash: clients
// that send an idempotency key nearly always hash the payload bound to it,
// clients without one often do not bother.
func (g *generator) hashed(keyed bool) bool {
	if keyed {
		return g.chance(0.97)
	}
	return g.chance(0.5)
}

func (g *generator) attemptCount(w1, w2, w3 int) int { return 1 + g.pick(w1, w2, w3) }

// planHealthy: 1–3 attempts, one effect with 1–2 receipts of the same effectRef.
func (g *generator) planHealthy(op *opState, start int64) {
	op.label = lHealthy
	n := g.attemptCount(55, 30, 15)
	p := attemptPlan{keyOwner: op.idx, keyed: g.chance(0.92), dropObs: 0.005}
	p.hashed = g.hashed(p.keyed)
	p.n = n
	for k := range n - 1 {
		p.results[k] = g.retryable()
	}
	p.results[n-1] = rSuccess
	if g.chance(0.15) {
		p.results[n-1] = rTimeout // the effect landed, only the response was lost
	}
	obs := g.addAttempts(op, start, &p)
	cause := n - 1
	if n > 1 && g.chance(0.3) {
		cause = 0 // the first try created it; the retries were de-duplicated
	}
	at := obs[cause] + g.between(50, 8000)
	g.addEffect(op, at, 0, cause, &p)
	if g.chance(0.2) {
		g.addReceipt(op, at+g.between(1000, 600000), 0, cause, &p)
	}
	if g.chance(0.02) {
		// An early lookup that ran before the effect became visible: it
		// contradicts the receipt but never outweighs it.
		g.addAbsence(op, obs[0]+g.between(1, 400), 1, true, &p)
	}
}

// planDuplicate: 2–3 attempts, and 2–3 distinct effectRefs, one per attempt that
// got through.
func (g *generator) planDuplicate(op *opState, start int64) {
	op.label = lDuplicate
	n := g.attemptCount(0, 70, 30)
	p := attemptPlan{keyOwner: op.idx, dropObs: 0.005}
	switch g.pick(35, 25, 40) {
	case 0:
		p.keyed, p.churn = true, true // a new key per retry: nothing to de-duplicate
	case 1:
		p.keyed = false // the provider offers no key
	default:
		p.keyed = true // the key expired or the provider ignored it
	}
	p.hashed = g.hashed(p.keyed)
	p.n = n
	p.results[0] = [...]uint8{rTimeout, rConnectionReset}[g.pick(75, 25)]
	for k := 1; k < n-1; k++ {
		p.results[k] = rTimeout
	}
	p.results[n-1] = rSuccess
	obs := g.addAttempts(op, start, &p)
	refs := 2
	if n == 3 && g.chance(0.3) {
		refs = 3
	}
	for ref := range refs {
		cause := ref
		if refs == 2 && n == 3 && ref == 1 {
			cause = 2
		}
		at := obs[cause] + g.between(50, 8000)
		g.addEffect(op, at, ref, cause, &p)
		if g.chance(0.15) {
			g.addReceipt(op, at+g.between(1000, 600000), ref, cause, &p)
		}
	}
}

// planConflict: one key, two or more payload hashes within the operation.
func (g *generator) planConflict(op *opState, start int64) {
	op.label = lKeyConflict
	n := g.attemptCount(0, 75, 25)
	p := attemptPlan{keyOwner: op.idx, keyed: true, hashed: true, dropObs: 0.005}
	p.n = n
	p.results[0] = rTimeout
	for k := 1; k < n; k++ {
		p.results[k] = [...]uint8{rSuccess, rIdempotencyConflict, rHTTP409, rInvalidArguments}[g.pick(40, 30, 15, 15)]
	}
	driftOnReceipt := g.chance(0.2)
	if !driftOnReceipt {
		// The payload drifted between tries (a timestamp left in the hashed
		// payload, an edited argument): the later tries hash differently.
		p.drift = true
		for k := 1; k < n; k++ {
			p.variants[k] = uint8(1 + g.rng.IntN(k))
		}
	}
	obs := g.addAttempts(op, start, &p)
	if driftOnReceipt {
		// The attempts agree, but the provider recorded a different payload
		// under this operation.
		r := g.addEffect(op, obs[n-1]+g.between(50, 8000), 0, n-1, &p)
		r.flags |= fHash
		r.hashVariant = 1
		if g.chance(0.5) {
			r.flags |= fKey
		}
		return
	}
	refs := g.pick(40, 40, 20)
	for ref := range refs {
		cause := n - 1 - ref
		g.addEffect(op, obs[cause]+g.between(50, 8000), ref, cause, &p)
	}
}

// planPairFirst: an ordinary-looking operation whose key the next operation
// reuses with another payload; both are key-conflict.
func (g *generator) planPairFirst(op *opState, start int64) {
	op.label = lKeyConflict
	n := g.attemptCount(60, 40, 0)
	p := attemptPlan{keyOwner: op.idx, keyed: true, hashed: true}
	p.n = n
	for k := range n - 1 {
		p.results[k] = g.retryable()
	}
	p.results[n-1] = rSuccess
	obs := g.addAttempts(op, start, &p)
	g.addEffect(op, obs[n-1]+g.between(50, 8000), 0, n-1, &p)
	g.pair = &pairInfo{owner: op.idx, scope: op.scope}
}

// planPairSecond: a different operation that sends the owner's key in the same
// scope with its own payload hash.
func (g *generator) planPairSecond(op *opState, start int64, owner int) {
	op.label = lKeyConflict
	n := g.attemptCount(60, 40, 0)
	p := attemptPlan{keyOwner: owner, keyed: true, hashed: true}
	p.n = n
	for k := range n - 1 {
		p.results[k] = g.retryable()
	}
	last := g.pick(50, 20, 30)
	p.results[n-1] = [...]uint8{rIdempotencyConflict, rHTTP409, rSuccess}[last]
	obs := g.addAttempts(op, start, &p)
	if last == 2 && g.chance(0.5) {
		g.addEffect(op, obs[n-1]+g.between(50, 8000), 0, n-1, &p)
	}
}

// planUncertain: no effect and no reliable proof of absence.
func (g *generator) planUncertain(op *opState, start int64) {
	op.label = lUncertain
	p := attemptPlan{keyOwner: op.idx, keyed: g.chance(0.85)}
	p.hashed = g.hashed(p.keyed)
	variant := g.pick(55, 20, 20, 5)
	var n int
	switch variant {
	case 1:
		n = g.attemptCount(0, 65, 35)
	case 3:
		n = g.attemptCount(60, 40, 0)
	default:
		n = g.attemptCount(45, 35, 20)
	}
	p.n = n
	for k := range n {
		p.results[k] = g.retryable()
	}
	if g.chance(0.15) {
		p.results[n-1] = rInvalidArguments
	}
	if variant == 0 {
		p.dropObs = 0.005
	}
	obs := g.addAttempts(op, start, &p)
	last := obs[n-1]
	switch variant {
	case 0:
		// Only timeouts and errors: nobody asked the provider.
	case 1:
		// The provider was asked between two tries; a later try may have
		// created the effect, so the absence proves nothing about it.
		k := g.rng.IntN(n - 1)
		g.addAbsence(op, obs[k]+g.between(1, obs[k+1]-obs[k]-1), k+1, true, &p)
	case 2:
		// The absence is late enough, but one attempt has no time to compare.
		g.addAbsence(op, last+g.between(0, 120000), n, true, &p)
		op.recs[g.rng.IntN(n)].flags &^= fObs
	case 3:
		// The lookup itself carries no time.
		g.addAbsence(op, last+g.between(1, 120000), n, false, &p)
	}
}

// planAbsent: every attempt timed, and an absence observed at or after the last.
func (g *generator) planAbsent(op *opState, start int64) {
	op.label = lAbsent
	p := attemptPlan{keyOwner: op.idx, keyed: g.chance(0.85)}
	p.hashed = g.hashed(p.keyed)
	variant := g.pick(85, 10, 5)
	if variant == 2 {
		// A reconciler probe with no attempt records at all.
		g.addAbsence(op, start, 0, true, &p)
		return
	}
	n := g.attemptCount(40, 40, 20)
	if variant == 1 && n == 1 {
		n = 2
	}
	p.n = n
	for k := range n {
		p.results[k] = g.retryable()
	}
	obs := g.addAttempts(op, start, &p)
	last := obs[n-1]
	if variant == 1 {
		// An earlier lookup between tries, then one after the last try.
		k := g.rng.IntN(n - 1)
		g.addAbsence(op, obs[k]+g.between(1, obs[k+1]-obs[k]-1), k+1, true, &p)
	}
	at := last + g.between(1, 120000)
	if g.chance(0.15) {
		at = last // at, not after: still proof
	}
	g.addAbsence(op, at, n, true, &p)
	if g.chance(0.1) {
		g.addAbsence(op, at+g.between(1000, 600000), n, true, &p)
	}
}

// render appends the NDJSON line of r, newline included.
func (g *generator) render(b []byte, op *opState, r *rec) []byte {
	if r.kind == kindAttempt {
		b = append(b, `{"type":"attempt","operationId":"`...)
	} else {
		b = append(b, `{"type":"effect","operationId":"`...)
	}
	b = g.appendOpID(b, op.idx)
	b = append(b, '"')
	if r.flags&fAttemptID != 0 {
		b = append(b, `,"attemptId":"`...)
		b = g.appendAttemptID(b, op.idx, int(r.attempt))
		b = append(b, '"')
	}
	if r.kind == kindAttempt && r.flags&fNum != 0 {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendUint(b, uint64(r.attempt), 10)
	}
	if r.flags&fKey != 0 {
		b = append(b, `,"idempotencyKey":"`...)
		b = g.appendKey(b, r.keyOwner, int(r.keyNo))
		b = append(b, '"')
	}
	b = append(b, `,"scope":"`...)
	b = append(b, scopeNames[op.scope]...)
	b = append(b, '"')
	if r.flags&fHash != 0 {
		b = append(b, `,"payloadHash":"`...)
		b = g.appendHash(b, r.hashOwner, int(r.hashVariant))
		b = append(b, '"')
	}
	if r.kind == kindAttempt || r.flags&fResult != 0 {
		b = append(b, `,"result":"`...)
		b = append(b, resultNames[r.result]...)
		b = append(b, '"')
	}
	if r.kind == kindEffect && r.result == rPresent {
		b = append(b, `,"effectRef":"`...)
		b = g.appendEffectRef(b, op.scope, op.idx, int(r.refNo))
		b = append(b, '"')
	}
	if r.flags&fObs != 0 {
		b = append(b, `,"observedAt":"`...)
		b = appendTime(b, r.at)
		b = append(b, '"')
	}
	// A field the audit ignores, as a real export carries them: the agent's
	// tool on an attempt, the evidence source on an effect. A traceId or
	// latency would be as realistic but would push records well past the
	// ~270 bytes of the exports this imitates.
	if r.kind == kindAttempt {
		b = append(b, `,"tool":"`...)
		b = append(b, scopeTools[op.scope][op.tool]...)
	} else {
		b = append(b, `,"source":"`...)
		if r.result == rAbsent {
			b = append(b, absenceSource...)
		} else {
			b = append(b, scopeSources[op.scope]...)
		}
	}
	return append(b, "\"}\n"...)
}

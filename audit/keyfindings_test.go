package audit

import "testing"

// TestSharedKeyNeedsOneHash checks that shared-key needs a key pair bound
// to exactly one payload hash (SPEC: "with a single payload hash"): a key
// that two operations carry without any hash binds nothing, and each
// operation only misses its hash.
func TestSharedKeyNeedsOneHash(t *testing.T) {
	tests := []judgeCase{
		{
			name: "no shared-key: two operations share a key with no payloadHash",
			recs: []rec{
				{typ: A, op: "o1", attempt: "1", key: "k", result: "timeout"},
				{typ: A, op: "o2", attempt: "1", key: "k", result: "timeout"},
			},
			want: map[string]judgement{
				"o1": {Uncertain, []Finding{{"missing-payload-hash", "1 attempt record carries an idempotencyKey but no payloadHash (first on line 1): drift cannot be checked"}}},
				"o2": {Uncertain, []Finding{{"missing-payload-hash", "1 attempt record carries an idempotencyKey but no payloadHash (first on line 2): drift cannot be checked"}}},
			},
		},
		{
			name: "shared-key: the same, with one payloadHash",
			recs: []rec{
				{typ: A, op: "o1", attempt: "1", key: "k", hash: "h", result: "timeout"},
				{typ: A, op: "o2", attempt: "1", key: "k", hash: "h", result: "timeout"},
			},
			want: map[string]judgement{
				"o1": {Uncertain, []Finding{{"shared-key", "key k is carried by 2 operations under one payload hash: one intent split into several identities"}}},
				"o2": {Uncertain, []Finding{{"shared-key", "key k is carried by 2 operations under one payload hash: one intent split into several identities"}}},
			},
		},
	}
	checkJudgements(t, tests, false)
}

// TestFindingOncePerOperation checks that an operation lists a finding
// once, naming its first cause, when two of its key pairs raise it: the
// summary and --fail-on read the set of codes, but the reports list the
// findings.
func TestFindingOncePerOperation(t *testing.T) {
	const sharedKey = "is carried by 2 operations under one payload hash: one intent split into several identities"
	tests := []judgeCase{
		{
			name: "shared-key: both of an operation's keys are shared",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "k1", hash: "h"},
				{typ: A, op: "o", attempt: "2", key: "k2", hash: "h"},
				{typ: A, op: "p", attempt: "1", key: "k1", hash: "h"},
				{typ: A, op: "q", attempt: "1", key: "k2", hash: "h"},
			},
			want: map[string]judgement{
				"o": {Uncertain, []Finding{
					{"key-churn", "attempts carry 2 idempotency keys (k1, k2): the provider cannot de-duplicate them"},
					{"shared-key", "key k1 " + sharedKey},
				}},
				"p": {Uncertain, []Finding{{"shared-key", "key k1 " + sharedKey}}},
				"q": {Uncertain, []Finding{{"shared-key", "key k2 " + sharedKey}}},
			},
		},
		{
			name: "sensitive-identifier: both of an operation's keys look sensitive",
			recs: []rec{
				{typ: A, op: "o", attempt: "1", key: "sk_live_4eC39HqLyjWDarjtT1zdp7dc", hash: "h"},
				{typ: A, op: "o", attempt: "2", key: "alice@example.com", hash: "h"},
			},
			want: map[string]judgement{
				"o": {Uncertain, []Finding{
					{"key-churn", "attempts carry 2 idempotency keys (sk_live_4eC39HqLyjWDarjtT1zdp7dc, alice@example.com): the provider cannot de-duplicate them"},
					{"sensitive-identifier", "an idempotencyKey looks like it carries sensitive data (Stripe live secret key prefix sk_live_)"},
				}},
			},
		},
	}
	checkJudgements(t, tests, false)
}

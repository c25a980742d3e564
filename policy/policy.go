// Package policy reads the retry policy that the findings are measured
// against: which transport results may be retried, which are final, and how
// long a provider remembers an idempotency key in each scope.
//
// The policy file is YAML (SPEC, section Policy). Parsing is strict, because a
// policy that silently means something other than what its author wrote would
// make the audit lie:
//
//   - An unknown key anywhere is an error, and so is a key given twice.
//   - A missing key takes the built-in default's value. A given list or
//     mapping replaces the default's; it never extends it, so that the file
//     alone says what applies.
//   - A key with no value (null, "~", or nothing after the colon) is an error:
//     write [] or {} for "none", or leave the key out for the default.
//   - An empty file (nothing but blanks and comments) is an error: --policy
//     names a file on purpose, and an empty one is far more often a truncated
//     or failed write than an intent. "{}" is the explicit way to ask for the
//     defaults.
//   - Result names and scope names are plain scalars; an unquoted number such
//     as 404 is taken as written ("404"). A null, a block scalar, an anchor, an
//     alias, a tag, a merge key or a directive (%YAML, %TAG) is an error: a
//     policy file is short and none of them is needed.
//   - A result listed twice in one list, or in both retry.retryable and
//     retry.final, is an error. A result listed in the file's retryable list
//     that the default lists as final (or the other way round) is an error
//     too: set both lists to move it.
//   - Durations are Go durations (90m, 24h, 1h30m) or a whole number of days
//     with the suffix d, optionally followed by a Go duration (7d, 1d12h).
//     Zero and negative durations are errors: a zero window would make every
//     retry "past retention".
//   - keyRetention.scopes may not name the empty scope: the empty scope is the
//     default scope (SPEC, Precise points), and keyRetention.default is its
//     only setting.
//
// Every error is an *Error naming the file, the line and, where known, the
// column. Parsing stops at the first error: structural errors in file order,
// then conflicts between the two lists.
//
// The package does no I/O: the caller reads the file and passes its bytes.
package policy

import (
	"fmt"
	"slices"
	"time"
)

// DefaultYAML is the built-in policy, byte for byte the code block in SPEC's
// Policy section, comments included, so that users can start from it.
const DefaultYAML = `retry:
  retryable: [timeout, connection_timeout, connection_reset, http_408, http_429, http_502, http_503, http_504]
  final: [invalid_arguments, authentication_failed, permission_denied, idempotency_conflict, policy_rejected,
          http_400, http_401, http_403, http_404, http_409, http_422]
keyRetention:
  default: 24h        # Stripe-like; scopes may differ
  scopes: {}          # e.g. {ec2: 24h, lambda-powertools: 1h}
`

// Policy is what the findings measure against. Results and scopes compare as
// exact, case-sensitive strings, like every other identifier in a ledger.
type Policy struct {
	// Retryable lists the transport results that may be retried.
	Retryable []string
	// Final lists the results that must not be retried.
	Final []string
	// DefaultRetention is keyRetention.default: how long a provider
	// de-duplicates an idempotency key in a scope not named in ScopeRetention.
	DefaultRetention time.Duration
	// ScopeRetention is keyRetention.scopes, by scope name. Parse never
	// returns a nil map nor one with the empty scope as a key.
	ScopeRetention map[string]time.Duration
}

// Default returns the built-in policy, the one DefaultYAML spells out. Each
// call returns a new value that the caller may change.
//
// It is written out rather than parsed from DefaultYAML so that it cannot
// fail; a test keeps the two equal.
func Default() *Policy {
	return &Policy{
		Retryable: []string{
			"timeout", "connection_timeout", "connection_reset",
			"http_408", "http_429", "http_502", "http_503", "http_504",
		},
		Final: []string{
			"invalid_arguments", "authentication_failed", "permission_denied",
			"idempotency_conflict", "policy_rejected",
			"http_400", "http_401", "http_403", "http_404", "http_409", "http_422",
		},
		DefaultRetention: 24 * time.Hour,
		ScopeRetention:   map[string]time.Duration{},
	}
}

// IsFinal reports whether result is listed as final: an attempt after it is
// a retry the policy forbids.
func (p *Policy) IsFinal(result string) bool {
	// The lists are a dozen entries; a linear scan beats building a set, and
	// keeps the exported fields the single source of truth.
	return slices.Contains(p.Final, result)
}

// IsRetryable reports whether result is listed as retryable.
func (p *Policy) IsRetryable(result string) bool {
	return slices.Contains(p.Retryable, result)
}

// Retention returns the key retention window of scope. The empty scope is the
// default scope and always gets DefaultRetention; so does a scope that
// ScopeRetention does not name.
func (p *Policy) Retention(scope string) time.Duration {
	if scope != "" {
		if d, ok := p.ScopeRetention[scope]; ok {
			return d
		}
	}
	return p.DefaultRetention
}

// Error is a policy file that cannot be used, with the place that says why.
type Error struct {
	File   string // the name given to Parse
	Line   int    // 1-based
	Column int    // 1-based, counted in characters; 0 when not known
	Msg    string // what is wrong, without the position
}

// Error renders the error as NAME:LINE: message, as a ledger's errors name
// their line. The column orders errors found on one line (see conflict).
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

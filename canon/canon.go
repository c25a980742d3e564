// Package canon computes the canonical payload hash used by
// `effectaudit hash`: a JSON document is checked to be I-JSON (RFC 7493),
// volatile members named by RFC 6901 JSON Pointers are removed, and the rest
// is serialised in the RFC 8785 (JCS) canonical form and hashed with SHA-256.
//
// The package is pure: no I/O, no global state. It must never accept input
// that is not I-JSON by repairing it (no U+FFFD substitution for invalid
// UTF-8 or lone surrogates, no rounding of out-of-range numbers to infinity,
// no "last duplicate wins"), because two different byte streams would then
// share one hash.
//
// Documented choices:
//
//   - A leading UTF-8 byte-order mark (EF BB BF) is skipped, as the readers of
//     the rest of the tool accept one at the start of an input. A BOM alone
//     is empty input and rejected. Byte offsets in errors still count it.
//   - Numbers that underflow (1e-400) are accepted and canonicalised as the
//     nearest double, 0. Integers beyond 2^53 (or int64) are accepted and
//     canonicalised as the nearest double, as RFC 8785 section 3.2.2.3
//     prescribes: 18446744073709551616 becomes 18446744073709552000.
//     Only overflow to ±Inf is rejected.
//   - Nesting deeper than MaxDepth arrays and objects is rejected with
//     ErrNotJSON rather than risking unbounded recursion.
//   - Unicode noncharacters (U+FDD0 to U+FDEF, U+FFFE, U+FFFF and the last
//     two code points of every plane) are accepted, though RFC 7493 section
//     2.1 keeps them out of I-JSON: they are valid JSON that the
//     JSONTestSuite's y_ files expect accepted, SPEC's list of what hash
//     rejects does not name them, and unlike a lone surrogate each is one
//     code point that UTF-8 encodes one way, so no two inputs share a hash
//     through them.
//   - A drop pointer that names nothing is not an error: volatile members may
//     be absent. All pointers are resolved against the parsed document before
//     anything is removed, so their order does not matter and "/a/0" with
//     "/a/1" removes the first two elements of a.
package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Sentinel errors; every error returned by Canonicalize wraps exactly one.
var (
	// ErrNotJSON: the input is not one RFC 8259 JSON text (syntax error,
	// empty input, trailing data, nesting deeper than MaxDepth).
	ErrNotJSON = errors.New("not JSON")
	// ErrNotIJSON: the input is JSON but not I-JSON (duplicate member names,
	// lone or inverted surrogate escapes, a number that overflows a double,
	// invalid UTF-8 in a string).
	ErrNotIJSON = errors.New("not I-JSON")
	// ErrPointer: a drop pointer is not a valid RFC 6901 JSON Pointer, or is
	// "" (the whole document cannot be dropped).
	ErrPointer = errors.New("malformed JSON pointer")
)

// MaxDepth is the deepest nesting of arrays and objects Canonicalize accepts.
const MaxDepth = 1000

// ParseError reports where and why a document was rejected.
type ParseError struct {
	Offset int    // byte offset in the input where the problem starts
	Reason string // what is wrong, quoting the name or number concerned
	Err    error  // ErrNotJSON or ErrNotIJSON
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%v: byte %d: %s", e.Err, e.Offset, e.Reason)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Canonicalize parses one JSON document (surrounding whitespace allowed, a
// leading UTF-8 BOM skipped), rejects input that is not I-JSON, removes the
// members and elements named by the RFC 6901 JSON Pointers in drop, and
// returns the RFC 8785 canonical bytes.
func Canonicalize(data []byte, drop []string) ([]byte, error) {
	ptrs := make([][]string, 0, len(drop))
	for _, p := range drop {
		toks, err := parsePointer(p)
		if err != nil {
			return nil, err
		}
		ptrs = append(ptrs, toks)
	}
	v, err := parse(data)
	if err != nil {
		return nil, err
	}
	for _, toks := range ptrs {
		markDropped(&v, toks)
	}
	return appendValue(make([]byte, 0, len(data)), &v), nil
}

// Hash returns "sha256:" followed by the 64 lower-case hex digits of the
// SHA-256 of canonical.
func Hash(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Package sensitive tells whether an identifier looks like it carries an
// e-mail address or a credential. The audit raises the sensitive-identifier
// finding with it for every operationId and idempotencyKey (SPEC, Findings):
// ledgers are kept and shared, and an identifier is copied into every report.
//
// Check is a heuristic, tuned to flag what is almost certainly a secret and to
// leave alone the identifiers that ledgers are full of: UUIDs, hex digests,
// ULIDs, KSUIDs, timestamps, trace ids, slugs, CamelCase names and provider
// object ids such as Stripe's ch_3MqLiJ2eZvKYlo2C1gK0XaY9. Its choices:
//
//   - Publishable keys (Stripe's pk_live_, pk_test_) are not flagged: they are
//     public by design, embedded in every browser that loads the checkout.
//   - A Git remote in scp form, git@github.com:org/repo, is not an e-mail
//     address: git is the account every Git host serves over SSH.
//   - Pure hex runs are never "high entropy", whatever their length: digests
//     and UUIDs are hex and are not secrets by themselves. Neither is a
//     digest labelled with its algorithm (sha256:…, sha256-… as in SRI).
//   - A random-looking run must be at least 32 characters long, so provider
//     object ids (24 random characters after a short prefix) pass.
//   - An idempotency key generated as a long random base64 string (for
//     example 32 random bytes, url-safe encoded) is indistinguishable from a
//     secret by its shape and is flagged; UUIDs are the unflagged choice.
//
// Check never returns any part of its input: the reason names only the kind
// of data, so that a report never repeats the secret it warns about. It does
// no I/O, allocates only for a finding's reason, and is safe for concurrent
// use.
package sensitive

import (
	"math"
	"strconv"
	"strings"
)

// Check reports whether s looks like it contains an e-mail address or a
// credential, and a short reason naming the kind without echoing the secret
// (e.g. "e-mail address", "Stripe live secret key prefix sk_live_", "JWT",
// "high-entropy token (40 chars)"). The most specific kind found is named.
func Check(s string) (reason string, found bool) {
	// The shortest thing any detector matches, "a@b.cd", is six bytes.
	if len(s) < 6 {
		return "", false
	}
	// Most identifiers hold none of what any detector starts from: one
	// pass over s rules the detectors out, rather than one pass each.
	cues := cuesOf(s)
	for _, d := range detectors {
		if cues&d.cue == 0 {
			continue
		}
		if reason := d.detect(s); reason != "" {
			return reason, true
		}
	}
	return "", false
}

// A cue is something a detector cannot match without: a byte it needs, a
// token starting with a byte a known prefix starts with, or the length of
// the shortest random-looking token.
type cue uint8

const (
	cueSpace  cue = 1 << iota // "PRIVATE KEY-----"
	cueColon                  // "://"
	cuePrefix                 // a token starting as some prefixRule does
	cueDot                    // "header.payload."
	cueEquals                 // "password="
	cueAt                     // "@" or "%40"
	cueLong                   // minTokenLen bytes at least
)

// detectors run in order, most specific first: "user:password@host" in a URL
// is reported as credentials rather than as an e-mail address, and a token
// with a known prefix by its provider rather than as high entropy. Each
// runs only on strings that have its cue.
var detectors = []struct {
	cue    cue
	detect func(string) string
}{
	{cueSpace, privateKey},
	{cueColon, urlCredentials},
	{cuePrefix, knownPrefix},
	{cueDot, jwt},
	{cueEquals, assignment},
	{cueAt, email},
	{cueLong, highEntropy},
}

// byteCues holds the cue of each byte that is one.
var byteCues = [256]cue{' ': cueSpace, ':': cueColon, '.': cueDot, '=': cueEquals, '@': cueAt, '%': cueAt}

// cuesOf returns the cues s has.
func cuesOf(s string) cue {
	var cues cue
	if len(s) >= minTokenLen {
		cues |= cueLong
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		cues |= byteCues[c]
		if len(rulesByFirstByte[c]) > 0 && startsToken(s, i) {
			cues |= cuePrefix
		}
	}
	return cues
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }

// startsToken reports whether a token may start at s[i]: the byte before it,
// if any, is not a letter or digit. This keeps "risk_live_feed" from reading
// as a Stripe key.
func startsToken(s string, i int) bool {
	return i == 0 || !isAlnum(s[i-1])
}

// run counts the bytes at the start of s that satisfy in.
func run(s string, in func(byte) bool) int {
	n := 0
	for n < len(s) && in(s[n]) {
		n++
	}
	return n
}

const privateKeyReason = "private key block"

func privateKey(s string) string {
	if strings.Contains(s, "PRIVATE KEY-----") {
		return privateKeyReason
	}
	return ""
}

const urlCredentialsReason = "URL with embedded credentials"

// urlCredentials finds scheme://user:password@host. A user name alone is not
// flagged here: on its own it is not a secret, and a token in its place is
// found by the other detectors.
func urlCredentials(s string) string {
	for i := 0; ; {
		j := strings.Index(s[i:], "://")
		if j < 0 {
			return ""
		}
		i += j + 3
		authority := s[i:]
		if end := strings.IndexAny(authority, "/?# \t\r\n"); end >= 0 {
			authority = authority[:end]
		}
		at := strings.LastIndexByte(authority, '@')
		if at < 0 {
			continue
		}
		if colon := strings.IndexByte(authority[:at], ':'); colon >= 0 && colon+1 < at {
			return urlCredentialsReason
		}
	}
}

// prefixRule is a credential format recognised by its fixed prefix, followed
// by at least min bytes of its alphabet. With exact, the token is exactly min
// bytes long and is not followed by a letter or digit.
type prefixRule struct {
	prefix string
	reason string
	min    int
	exact  bool
	in     func(byte) bool
}

func alnumOr(extra string) func(byte) bool {
	return func(c byte) bool { return isAlnum(c) || strings.IndexByte(extra, c) >= 0 }
}

var (
	alnum      = alnumOr("")
	alnumUnder = alnumOr("_")
	alnumDash  = alnumOr("-")
	base64url  = alnumOr("-_")
	base64std  = alnumOr("+/=")
	upperDigit = func(c byte) bool { return isUpper(c) || isDigit(c) }
)

// prefixRules are the well-known credential prefixes. Minimum lengths sit a
// little below the real formats' lengths, so that a truncated copy of a key
// still counts, and well above what a name like "sk_live_rotation" has.
var prefixRules = []prefixRule{
	{prefix: "sk_live_", reason: "Stripe live secret key prefix sk_live_", min: 16, in: alnum},
	{prefix: "sk_test_", reason: "Stripe test secret key prefix sk_test_", min: 16, in: alnum},
	{prefix: "rk_live_", reason: "Stripe live restricted key prefix rk_live_", min: 16, in: alnum},
	{prefix: "rk_test_", reason: "Stripe test restricted key prefix rk_test_", min: 16, in: alnum},
	{prefix: "whsec_", reason: "Stripe webhook secret prefix whsec_", min: 24, in: base64std},
	{prefix: "ghp_", reason: "GitHub token prefix ghp_", min: 30, in: alnum},
	{prefix: "gho_", reason: "GitHub token prefix gho_", min: 30, in: alnum},
	{prefix: "ghu_", reason: "GitHub token prefix ghu_", min: 30, in: alnum},
	{prefix: "ghs_", reason: "GitHub token prefix ghs_", min: 30, in: alnum},
	{prefix: "ghr_", reason: "GitHub token prefix ghr_", min: 30, in: alnum},
	{prefix: "github_pat_", reason: "GitHub token prefix github_pat_", min: 30, in: alnumUnder},
	{prefix: "xoxb-", reason: "Slack token prefix xoxb-", min: 20, in: alnumDash},
	{prefix: "xoxp-", reason: "Slack token prefix xoxp-", min: 20, in: alnumDash},
	{prefix: "xoxa-", reason: "Slack token prefix xoxa-", min: 20, in: alnumDash},
	{prefix: "xoxr-", reason: "Slack token prefix xoxr-", min: 20, in: alnumDash},
	{prefix: "xoxs-", reason: "Slack token prefix xoxs-", min: 20, in: alnumDash},
	{prefix: "xapp-", reason: "Slack token prefix xapp-", min: 20, in: alnumDash},
	{prefix: "glpat-", reason: "GitLab token prefix glpat-", min: 20, in: base64url},
	{prefix: "AIza", reason: "Google API key prefix AIza", min: 35, in: base64url},
	{prefix: "npm_", reason: "npm token prefix npm_", min: 36, in: alnum},
	{prefix: "sk-ant-", reason: "Anthropic API key prefix sk-ant-", min: 32, in: base64url},
	{prefix: "sk-proj-", reason: "OpenAI API key prefix sk-proj-", min: 32, in: base64url},
	{prefix: "AKIA", reason: "AWS access key id", min: 16, exact: true, in: upperDigit},
	{prefix: "ASIA", reason: "AWS temporary access key id", min: 16, exact: true, in: upperDigit},
}

// rulesByFirstByte indexes prefixRules by the first byte of their prefix, so
// that knownPrefix reads s once instead of once per rule.
var rulesByFirstByte = func() (m [256][]*prefixRule) {
	for i := range prefixRules {
		r := &prefixRules[i]
		m[r.prefix[0]] = append(m[r.prefix[0]], r)
	}
	return m
}()

func knownPrefix(s string) string {
	for i := 0; i < len(s); i++ {
		rules := rulesByFirstByte[s[i]]
		if len(rules) == 0 || !startsToken(s, i) {
			continue
		}
		for _, r := range rules {
			if !strings.HasPrefix(s[i:], r.prefix) {
				continue
			}
			rest := s[i+len(r.prefix):]
			n := run(rest, r.in)
			if r.exact {
				if n == r.min && (n == len(rest) || !isAlnum(rest[n])) {
					return r.reason
				}
				continue
			}
			if n >= r.min {
				return r.reason
			}
		}
	}
	return ""
}

const jwtReason = "JWT"

// jwt finds header.payload.signature, three base64url segments with a header
// that starts as JSON does ("eyJ" is `{"`), the signature possibly empty as
// in an unsigned token.
func jwt(s string) string {
	isSeg := base64url
	for i := 0; ; i++ {
		j := strings.Index(s[i:], "eyJ")
		if j < 0 {
			return ""
		}
		i += j
		if i > 0 && isSeg(s[i-1]) {
			continue
		}
		header := run(s[i:], isSeg)
		rest := s[i+header:]
		if header < 10 || !strings.HasPrefix(rest, ".") {
			continue
		}
		payload := run(rest[1:], isSeg)
		if payload >= 2 && strings.HasPrefix(rest[1+payload:], ".") {
			return jwtReason
		}
	}
}

// assignmentKeys are names that, followed by "=" and a value, put a secret in
// the clear. Compared without regard to case.
var assignmentKeys = []string{
	"password", "passwd", "secret", "client_secret", "api_key", "apikey", "api-key",
	"access_token", "auth_token", "refresh_token", "private_key",
}

var assignmentReasons = func() map[string]string {
	m := make(map[string]string, len(assignmentKeys))
	for _, k := range assignmentKeys {
		m[k] = "credential assignment " + k + "="
	}
	return m
}()

func assignment(s string) string {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '=')
		if j < 0 {
			return ""
		}
		i += j
		if i+1 >= len(s) || strings.IndexByte("&;,= \t\r\n", s[i+1]) >= 0 {
			continue
		}
		for _, k := range assignmentKeys {
			start := i - len(k)
			if start >= 0 && strings.EqualFold(s[start:i], k) && startsToken(s, start) {
				return assignmentReasons[k]
			}
		}
	}
}

const emailReason = "e-mail address"

// Classes of bytes in an e-mail address's local part (RFC 5322 atext and
// dots): localAlnum for letters, digits and the bytes of multi-byte UTF-8
// sequences, which count as letters; localOther for the symbols and dots.
const (
	notLocal uint8 = iota
	localOther
	localAlnum
)

var localClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case isAlnum(byte(c)) || c >= 0x80:
			t[c] = localAlnum
		case strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", byte(c)) >= 0:
			t[c] = localOther
		}
	}
	return t
}()

func isDomain(c byte) bool {
	return isAlnum(c) || c >= 0x80 || c == '-' || c == '.'
}

// email finds local@domain.tld, with the @ also written as %40 as in a URL.
// The domain needs a second label that starts with two letters, which leaves
// alone "pkg@1.2.3", "image@sha256:…" and "user@localhost" and still finds
// "alice@example.com-v2" inside a longer id.
//
// The local part is the whole run of local-part bytes before the @: leading
// dots trimmed, it must be non-empty, must not end with a dot and must hold a
// letter or digit. A run that holds a letter or digit is non-empty however
// many dots lead it, so it is valid exactly when it holds one and its last
// byte is not a dot.
//
// email reads s once, forward. For each @ it needs where the run before it
// starts and whether the run holds a letter or digit; keeping both as it
// goes, rather than reading back from each @, keeps it linear: %, 4 and 0
// are local-part bytes themselves, so reading back from every %40 of
// "%40%40%40…" was quadratic. The domain is read forward from each @ and
// holds neither @ nor %, so no byte is read as a domain twice.
func email(s string) string {
	// The run of local-part bytes before s[i] is s[local:i]; alnum is where
	// the last letter or digit before s[i] is, inside the run if >= local.
	local, alnum := 0, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		after := 0
		switch {
		case c == '@':
			after = i + 1
		case c == '%' && strings.HasPrefix(s[i+1:], "40"):
			after = i + 3
		}
		if after > 0 && alnum >= local && s[i-1] != '.' {
			end := after + run(s[after:], isDomain)
			if validDomain(s[after:end]) && !gitRemote(s[local:i], s[end:]) {
				return emailReason
			}
		}
		switch localClass[c] {
		case notLocal:
			local = i + 1
		case localAlnum:
			alnum = i
		}
	}
	return ""
}

// gitRemote reports whether an address whose local part is local, and
// that rest follows, is a Git remote in scp form (git@github.com:org/repo):
// the account every Git host serves over SSH, not a person's address.
func gitRemote(local, rest string) bool {
	return local == "git" && strings.HasPrefix(rest, ":")
}

func isLetter(c byte) bool { return isUpper(c) || isLower(c) || c >= 0x80 }

// validDomain reports whether d starts with a domain name: a first label,
// then labels until one that begins with two letters, as a top-level domain
// does. What follows that label ("-v2", ".retry") is the rest of the id.
// It reads d in place, without splitting it: Check allocates only for a
// finding's reason.
func validDomain(d string) bool {
	if d == "" || d[0] == '.' || d[0] == '-' {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] != '.' {
			continue
		}
		label := d[i+1:] // and what follows it
		if label == "" || label[0] == '.' {
			return false
		}
		if len(label) >= 2 && isLetter(label[0]) && isLetter(label[1]) {
			return true
		}
	}
	return false
}

// The high-entropy detector looks at runs of base64 characters. Within a
// run, "-_+/=" separate segments, and segments that read as plain
// identifier parts (words, numbers, hex) are set aside; what remains must be
// long, dense and random-looking. The thresholds come from measuring random
// base62 and base64 strings against identifiers seen in ledgers: a random
// token of 40 characters or more is flagged more than 99 times in 100, one of
// 32 characters 99 times in 100 without separators and about 4 times in 5
// with a - or _ inside (plain-looking pieces at its ends fall away), and the
// CamelCase and slug names measured are not flagged.
const (
	// minTokenLen is the shortest random-looking stretch that is flagged:
	// long enough to pass provider object ids (24 random characters).
	minTokenLen = 32
	// minEntropy, in bits per character, only rules out repetition such as
	// "Ab1Ab1Ab1…": random base62 strings of 32 characters measure 3.7 to
	// 5.0, above 4.0 in 999 cases of 1000.
	minEntropy = 3.5
	// Words in names have long lowercase stretches ("Customer", "Account"):
	// a random string of 32 or more characters has fewer than half of its
	// characters in lowercase stretches of 3 or more in 99 cases of 100,
	// while CamelCase names mostly have 55% to 80%.
	minLowerStretch = 3
	// Words here are maximal runs of one character class, a capital letter
	// joining the lowercase letters after it. Random strings average about
	// 2.2 characters a word, CamelCase names usually 4 to 6; a token needs
	// at least 22 words per 100 characters.
	minWordsPer100 = 22
)

func isSeparator(c byte) bool {
	return c == '-' || c == '_' || c == '+' || c == '/' || c == '='
}

func isTokenByte(c byte) bool { return isAlnum(c) || isSeparator(c) }

// digestLabels are hash algorithm names; a run labelled with one is a digest.
var digestLabels = []string{"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "blake3"}

// labelledDigest reports whether the run at s[start:end] is a digest written
// as algo:digest, algo-digest (subresource integrity) or algo=digest.
func labelledDigest(s string, start, end int) bool {
	r := s[start:end]
	for _, l := range digestLabels {
		if len(r) > len(l) && strings.EqualFold(r[:len(l)], l) && isSeparator(r[len(l)]) {
			return true
		}
		if b := start - 1 - len(l); b >= 0 && s[start-1] == ':' && strings.EqualFold(s[b:start-1], l) && startsToken(s, b) {
			return true
		}
	}
	return false
}

// publishableKey reports whether the run tok is a publishable key, public
// by design, however long (Stripe's are about a hundred characters): a
// prefix, then letters and digits only, so that a secret joined on after a
// separator is still looked at.
func publishableKey(tok string) bool {
	rest, ok := strings.CutPrefix(tok, "pk_live_")
	if !ok {
		rest, ok = strings.CutPrefix(tok, "pk_test_")
	}
	return ok && run(rest, isAlnum) == len(rest)
}

func highEntropy(s string) string {
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := i + run(s[i:], isTokenByte)
		if j-i >= minTokenLen && !labelledDigest(s, i, j) && !publishableKey(s[i:j]) {
			if n := randomSpan(s[i:j]); n > 0 {
				return "high-entropy token (" + strconv.Itoa(n) + " chars)"
			}
		}
		i = j
	}
	return ""
}

// plainSegment reports whether seg reads as part of an ordinary identifier:
// all digits, all one case, a capitalised word, or hex in one case.
func plainSegment(seg string) bool {
	var upper, lower, digit, hexLower, hexUpper int
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case isUpper(c):
			upper++
			if c <= 'F' {
				hexUpper++
			}
		case isLower(c):
			lower++
			if c <= 'f' {
				hexLower++
			}
		default:
			digit++
		}
	}
	n := len(seg)
	return digit == n || lower == n || upper == n ||
		(upper == 1 && isUpper(seg[0]) && lower == n-1) ||
		(upper == 0 && hexLower+digit == n) ||
		(lower == 0 && hexUpper+digit == n)
}

// randomSpan returns the length of the random-looking part of tok, a run of
// token bytes, or 0 if it has none long enough.
func randomSpan(tok string) int {
	var (
		counts                    [128]int32
		core, upper, lower, digit int
		words, lowerStretch       int
		first, last               = -1, -1
	)
	for i := 0; i < len(tok); {
		if isSeparator(tok[i]) {
			i++
			continue
		}
		j := i
		for j < len(tok) && !isSeparator(tok[j]) {
			j++
		}
		seg := tok[i:j]
		if !plainSegment(seg) {
			if first < 0 {
				first = i
			}
			last = j
			core += len(seg)
			stretch := 0
			var prev byte // 'U', 'L' or 'D'
			for k := 0; k < len(seg); k++ {
				c := seg[k]
				counts[c]++
				var class byte
				switch {
				case isUpper(c):
					upper++
					class = 'U'
				case isLower(c):
					lower++
					class = 'L'
				default:
					digit++
					class = 'D'
				}
				if class != prev && !(prev == 'U' && class == 'L') {
					words++
				}
				prev = class
				if class == 'L' {
					stretch++
					continue
				}
				if stretch >= minLowerStretch {
					lowerStretch += stretch
				}
				stretch = 0
			}
			if stretch >= minLowerStretch {
				lowerStretch += stretch
			}
		}
		i = j
	}
	if first < 0 {
		return 0
	}
	span := last - first
	switch {
	case span < minTokenLen,
		core*4 < span*3, // mostly plain parts with a little noise between
		upper == 0 || lower == 0 || digit == 0,
		lowerStretch*2 >= core,
		words*100 < core*minWordsPer100,
		entropy(&counts, core) < minEntropy:
		return 0
	}
	return span
}

// entropy is the Shannon entropy, in bits per character, of n characters
// with the given counts.
func entropy(counts *[128]int32, n int) float64 {
	total := float64(n)
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / total
			h -= p * math.Log2(p)
		}
	}
	return h
}

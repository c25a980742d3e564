package policy

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultIsDefaultYAML(t *testing.T) {
	got, err := Parse("default", []byte(DefaultYAML))
	if err != nil {
		t.Fatalf("Parse(DefaultYAML): %v", err)
	}
	if diff := cmp.Diff(Default(), got); diff != "" {
		t.Errorf("Default() and Parse(DefaultYAML) differ (-Default +Parse):\n%s", diff)
	}
}

func TestDefaultReturnsACopy(t *testing.T) {
	p := Default()
	p.Final[0] = "changed"
	p.ScopeRetention["ec2"] = time.Hour
	if diff := cmp.Diff("invalid_arguments", Default().Final[0]); diff != "" {
		t.Errorf("Default().Final[0] (-want +got):\n%s", diff)
	}
	if n := len(Default().ScopeRetention); n != 0 {
		t.Errorf("Default().ScopeRetention has %d entries after a caller changed a copy", n)
	}
}

// with returns the default policy changed by f, to state expectations as
// differences from the default.
func with(f func(p *Policy)) *Policy {
	p := Default()
	f(p)
	return p
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want *Policy
	}{
		{
			name: "empty mapping is the default",
			src:  "{}\n",
			want: Default(),
		},
		{
			name: "document markers and comments",
			src:  "# tuned for the payments team\n---\nretry: {}\n...\n",
			want: Default(),
		},
		{
			name: "byte-order mark",
			src:  "\ufeffkeyRetention:\n  default: 12h\n",
			want: with(func(p *Policy) { p.DefaultRetention = 12 * time.Hour }),
		},
		{
			name: "CRLF line ends",
			src:  "retry:\r\n  final: [http_400]\r\nkeyRetention:\r\n  default: 1h\r\n",
			want: with(func(p *Policy) { p.Final, p.DefaultRetention = []string{"http_400"}, time.Hour }),
		},
		{
			name: "final replaces the default, retryable stays",
			src:  "retry:\n  final: [invalid_arguments, http_400]\n",
			want: with(func(p *Policy) { p.Final = []string{"invalid_arguments", "http_400"} }),
		},
		{
			name: "empty lists",
			src:  "retry:\n  retryable: []\n  final: []\n",
			want: with(func(p *Policy) { p.Retryable, p.Final = []string{}, []string{} }),
		},
		{
			name: "block lists",
			src:  "retry:\n  retryable:\n    - timeout\n    - http_503\n  final:\n    - http_409\n",
			want: with(func(p *Policy) {
				p.Retryable = []string{"timeout", "http_503"}
				p.Final = []string{"http_409"}
			}),
		},
		{
			name: "moving a result needs both lists",
			src:  "retry:\n  retryable: [timeout, http_409]\n  final: [invalid_arguments]\n",
			want: with(func(p *Policy) {
				p.Retryable = []string{"timeout", "http_409"}
				p.Final = []string{"invalid_arguments"}
			}),
		},
		{
			name: "numbers and booleans are names as written",
			src:  "retry:\n  final: [404, 0x1F, true, 'quoted ''one''', \"tab\\there\"]\n",
			want: with(func(p *Policy) { p.Final = []string{"404", "0x1F", "true", "quoted 'one'", "tab\there"} }),
		},
		{
			name: "retention in days and Go durations",
			src: "keyRetention:\n  default: 7d\n  scopes:\n" +
				"    ec2: 24h\n    lambda-powertools: 1h\n    stripe: 1d12h\n    \"eu.west\": 90m\n    123456789012: 1h30m\n",
			want: with(func(p *Policy) {
				p.DefaultRetention = 7 * 24 * time.Hour
				p.ScopeRetention = map[string]time.Duration{
					"ec2":               24 * time.Hour,
					"lambda-powertools": time.Hour,
					"stripe":            36 * time.Hour,
					"eu.west":           90 * time.Minute,
					"123456789012":      90 * time.Minute,
				}
			}),
		},
		{
			name: "flow style throughout",
			src:  "{retry: {retryable: [timeout], final: [http_400]}, keyRetention: {default: 30m, scopes: {ec2: 2h}}}",
			want: &Policy{
				Retryable:        []string{"timeout"},
				Final:            []string{"http_400"},
				DefaultRetention: 30 * time.Minute,
				ScopeRetention:   map[string]time.Duration{"ec2": 2 * time.Hour},
			},
		},
		{
			name: "scopes replace, not extend",
			src:  "keyRetention:\n  scopes: {}\n",
			want: Default(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("policy.yaml", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the Error() text
		col  int
	}{
		// Empty files.
		{"empty file", "", `policy.yaml:1: empty policy file (write {} for the built-in default)`, 0},
		{"only comments", "# retry: {}\n\n", `policy.yaml:1: empty policy file (write {} for the built-in default)`, 0},

		// Unknown keys, at every level.
		{"unknown top-level key", "retry: {}\nretries: {}\n",
			`policy.yaml:2: unknown key "retries" (expected retry or keyRetention)`, 1},
		{"unknown key under retry", "retry:\n  retryable: [timeout]\n  retriable: [http_503]\n",
			`policy.yaml:3: retry: unknown key "retriable" (expected retryable or final)`, 3},
		{"unknown key under keyRetention", "keyRetention:\n  defaults: 24h\n",
			`policy.yaml:2: keyRetention: unknown key "defaults" (expected default or scopes)`, 3},
		{"key case matters", "Retry: {}\n",
			`policy.yaml:1: unknown key "Retry" (expected retry or keyRetention)`, 1},

		// Durations.
		{"malformed scope duration", "keyRetention:\n  default: 24h\n  scopes:\n    lambda: 1h\n\n\n    ec2: 24x\n",
			`policy.yaml:7: keyRetention.scopes.ec2: invalid duration "24x" (want e.g. 90m, 24h, 7d)`, 10},
		{"negative duration", "keyRetention:\n  default: -1h\n",
			`policy.yaml:2: keyRetention.default: duration "-1h" is negative; it must be positive`, 12},
		{"zero duration", "keyRetention:\n  default: 0s\n",
			`policy.yaml:2: keyRetention.default: duration "0s" is zero; it must be positive`, 12},
		{"zero days", "keyRetention:\n  default: 0d\n",
			`policy.yaml:2: keyRetention.default: duration "0d" is zero; it must be positive`, 12},
		{"number without unit", "keyRetention:\n  default: 3600\n",
			`policy.yaml:2: keyRetention.default: invalid duration "3600" (want e.g. 90m, 24h, 7d)`, 12},
		{"fractional days", "keyRetention:\n  default: 1.5d\n",
			`policy.yaml:2: keyRetention.default: invalid duration "1.5d" (want e.g. 90m, 24h, 7d)`, 12},
		{"arithmetic after days", "keyRetention:\n  default: 7d-1h\n",
			`policy.yaml:2: keyRetention.default: invalid duration "7d-1h" (want e.g. 90m, 24h, 7d)`, 12},
		{"too many days", "keyRetention:\n  default: 200000d\n",
			`policy.yaml:2: keyRetention.default: invalid duration "200000d" (want e.g. 90m, 24h, 7d)`, 12},
		{"duration as list", "keyRetention:\n  scopes:\n    ec2: [24h]\n",
			`policy.yaml:3: keyRetention.scopes.ec2: expected a duration such as 24h or 7d, got a list`, 10},
		{"missing duration", "keyRetention:\n  default:\n",
			`policy.yaml:2: keyRetention.default: no value (write a duration such as 24h or 7d)`, 3},
		{"odd scope name is quoted", "keyRetention:\n  scopes: {\"eu.west\": 1y}\n",
			`policy.yaml:2: keyRetention.scopes."eu.west": invalid duration "1y" (want e.g. 90m, 24h, 7d)`, 23},

		// A result in both lists.
		{"result in both lists", "retry:\n  retryable: [timeout, http_409]\n  final:\n    - invalid_arguments\n    - http_409\n",
			`policy.yaml:5: retry.final: "http_409" is also listed in retry.retryable (line 2)`, 7},
		{"final before retryable", "retry:\n  final: [http_409]\n  retryable: [timeout, http_409]\n",
			`policy.yaml:3: retry.retryable: "http_409" is also listed in retry.final (line 2)`, 24},
		{"the earliest conflict is reported", "retry:\n  final: [b, a]\n  retryable: [a, b]\n",
			`policy.yaml:3: retry.retryable: "a" is also listed in retry.final (line 2)`, 15},
		{"retryable against the default final", "retry:\n  retryable: [timeout, invalid_arguments]\n",
			`policy.yaml:2: retry.retryable: "invalid_arguments" is in the default retry.final; set retry.final as well to move it`, 24},
		{"final against the default retryable", "retry:\n  final:\n    - http_400\n    - http_503\n",
			`policy.yaml:4: retry.final: "http_503" is in the default retry.retryable; set retry.retryable as well to move it`, 7},
		{"listed twice", "retry:\n  final: [http_400,\n          http_400]\n",
			`policy.yaml:3: retry.final: "http_400" listed twice (first on line 2)`, 11},

		// Wrong types and missing values.
		{"string for a list", "retry:\n  final: invalid_arguments\n",
			`policy.yaml:2: retry.final: expected a list of results, got a string`, 10},
		{"list for a mapping", "retry: [timeout]\n",
			`policy.yaml:1: retry: expected a mapping, got a list`, 8},
		{"top level list", "- retry\n",
			`policy.yaml:1: expected a mapping with keys retry and keyRetention, got a list`, 1},
		{"top level string", "retry\n",
			`policy.yaml:1: expected a mapping with keys retry and keyRetention, got a string`, 1},
		{"top level null", "~\n",
			`policy.yaml:1: expected a mapping with keys retry and keyRetention, got null`, 1},
		{"missing list", "retry:\n  final:\n  retryable: [timeout]\n",
			`policy.yaml:2: retry.final: no value (write [] for an empty list, or remove the key to use the default)`, 3},
		{"missing section", "retry:\nkeyRetention: {}\n",
			`policy.yaml:1: retry: no value (remove the key to use the default)`, 1},
		{"missing scopes", "keyRetention:\n  scopes: null\n",
			`policy.yaml:2: keyRetention.scopes: no value (write {} for no scopes, or remove the key to use the default)`, 3},
		{"list in a list", "retry:\n  final: [http_400, [http_401]]\n",
			`policy.yaml:2: retry.final: expected a result name, got a list`, 21},
		{"mapping in a list", "retry:\n  final:\n    - code: 400\n",
			`policy.yaml:3: retry.final: expected a result name, got a mapping`, 7},
		{"null in a list", "retry:\n  final: [http_400, ~]\n",
			`policy.yaml:2: retry.final: expected a result name, got null`, 21},
		{"empty result", "retry:\n  final: [\"\"]\n",
			`policy.yaml:2: retry.final: empty result name`, 11},
		{"empty scope", "keyRetention:\n  scopes: {\"\": 1h}\n",
			`policy.yaml:2: keyRetention.scopes: empty scope name (the empty scope is the default scope: set keyRetention.default)`, 12},
		{"same scope as number and string", "keyRetention:\n  scopes:\n    1: 1h\n    \"1\": 2h\n",
			`policy.yaml:4: mapping key "1" already defined at [3:5]`, 5},
		{"list as a key", "keyRetention:\n  scopes:\n    [a]: 1h\n",
			`policy.yaml:3: found an invalid key for this map`, 8},

		// YAML features a policy does not use.
		{"alias", "keyRetention:\n  default: &day 24h\n  scopes: {ec2: *day}\n",
			`policy.yaml:2: keyRetention.default: anchors (&) are not supported in a policy file`, 12},
		{"tag", "retry:\n  final: !!seq [http_400]\n",
			`policy.yaml:2: retry.final: tags (!) are not supported in a policy file`, 10},
		{"block scalar", "keyRetention:\n  default: |\n    24h\n",
			`policy.yaml:2: keyRetention.default: block scalars (| and >) are not supported in a policy file`, 12},
		{"merge key", "retry:\n  <<: {final: []}\n",
			`policy.yaml:2: retry: merge keys (<<) are not supported in a policy file`, 3},
		{"two documents", "retry: {}\n---\nkeyRetention: {}\n",
			`policy.yaml:3: a second YAML document; a policy file holds one`, 1},

		// Syntax, reported by the YAML parser with its position.
		{"duplicate key", "retry: {}\nkeyRetention: {}\nretry: {}\n",
			`policy.yaml:3: mapping key "retry" already defined at [1:1]`, 1},
		{"unclosed list", "retry:\n  final: [http_400, http_401\n",
			`policy.yaml:2: sequence end token ']' not found`, 10},
		{"deep nesting", "retry:\n  final: " + strings.Repeat("[", 40) + "\n",
			`policy.yaml:2: nested more than 32 levels deep`, 42},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("policy.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want error %q", p, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, want *Error", err)
			}
			if diff := cmp.Diff(tt.col, pe.Column); diff != "" {
				t.Errorf("column (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"24h", 24 * time.Hour},
		{"90m", 90 * time.Minute},
		{"1h30m", 90 * time.Minute},
		{"1.5h", 90 * time.Minute},
		{"7d", 7 * 24 * time.Hour},
		{"1d12h", 36 * time.Hour},
		{"1d0.5h", 24*time.Hour + 30*time.Minute},
		{"30s", 30 * time.Second},
		{"+1h", time.Hour},
		{"106751d", 106751 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseDuration(tt.in)
			if err != nil {
				t.Fatalf("parseDuration: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseDuration (-want +got):\n%s", diff)
			}
		})
	}
	for _, in := range []string{"", "d", "h", "24", "24x", "-1h", "-7d", "0", "0s", "0d0h", "1.5d", "7d-1h", "7d+1h",
		"7dd", "1d1d", "1h7d", " 24h", "24h ", "1e3h", "106752d", "106751d24h", "9223372036854775807d", "-", "--1h"} {
		t.Run("reject "+in, func(t *testing.T) {
			if got, err := parseDuration(in); err == nil {
				t.Errorf("parseDuration(%q) = %v, want an error", in, got)
			}
		})
	}
}

func TestMethods(t *testing.T) {
	p, err := Parse("policy.yaml", []byte("keyRetention:\n  default: 12h\n  scopes: {ec2: 1h, EC2: 2h}\n"))
	if err != nil {
		t.Fatal(err)
	}
	retention := []struct {
		scope string
		want  time.Duration
	}{
		{"", 12 * time.Hour},
		{"ec2", time.Hour},
		{"EC2", 2 * time.Hour},
		{"Ec2", 12 * time.Hour},
		{"lambda", 12 * time.Hour},
	}
	for _, tt := range retention {
		t.Run("Retention "+tt.scope, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, p.Retention(tt.scope)); diff != "" {
				t.Errorf("Retention(%q) (-want +got):\n%s", tt.scope, diff)
			}
		})
	}
	// The empty scope is the default scope even in a hand-built policy.
	hand := with(func(p *Policy) { p.ScopeRetention[""] = time.Minute })
	if diff := cmp.Diff(24*time.Hour, hand.Retention("")); diff != "" {
		t.Errorf(`Retention("") with an empty scope key (-want +got):\n%s`, diff)
	}

	results := []struct {
		result           string
		final, retryable bool
	}{
		{"invalid_arguments", true, false},
		{"http_409", true, false},
		{"timeout", false, true},
		{"http_503", false, true},
		{"success", false, false},
		{"TIMEOUT", false, false},
		{"", false, false},
	}
	for _, tt := range results {
		t.Run("result "+tt.result, func(t *testing.T) {
			got := [2]bool{p.IsFinal(tt.result), p.IsRetryable(tt.result)}
			if diff := cmp.Diff([2]bool{tt.final, tt.retryable}, got); diff != "" {
				t.Errorf("[IsFinal, IsRetryable](%q) (-want +got):\n%s", tt.result, diff)
			}
		})
	}
}

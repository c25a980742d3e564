package policy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that Parse never panics, that every error is an *Error
// with a position and a message safe to print on a terminal, and that every
// policy it accepts is consistent and survives being written out and read
// back. Seeds live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(DefaultYAML))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.yaml", data)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, want *Error: %v", err, err)
			}
			if pe.File != "fuzz.yaml" || pe.Line < 1 || pe.Column < 0 || pe.Msg == "" {
				t.Fatalf("error without a usable position or message: %#v", pe)
			}
			if !utf8.ValidString(pe.Msg) || strings.IndexFunc(pe.Msg, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
				t.Fatalf("message holds unprintable characters: %q", pe.Msg)
			}
			return
		}
		checkConsistent(t, p)

		again, err := Parse("fuzz.yaml", data)
		if err != nil {
			t.Fatalf("second Parse failed: %v", err)
		}
		if diff := cmp.Diff(p, again); diff != "" {
			t.Fatalf("Parse is not deterministic (-first +second):\n%s", diff)
		}

		// Names that are not UTF-8 cannot be written as YAML text.
		for _, names := range [][]string{p.Retryable, p.Final, keys(p)} {
			for _, s := range names {
				if !utf8.ValidString(s) {
					return
				}
			}
		}
		out := render(p)
		back, err := Parse("rendered.yaml", []byte(out))
		if err != nil {
			t.Fatalf("rendered policy does not parse: %v\n%s", err, out)
		}
		if diff := cmp.Diff(p, back); diff != "" {
			t.Fatalf("rendered policy reads back differently (-parsed +reread):\n%s\n%s", diff, out)
		}
	})
}

func checkConsistent(t *testing.T, p *Policy) {
	t.Helper()
	if p.Retryable == nil || p.Final == nil || p.ScopeRetention == nil {
		t.Fatalf("nil list or map in %+v", p)
	}
	for _, l := range [][]string{p.Retryable, p.Final} {
		for i, s := range l {
			if s == "" || slices.Contains(l[:i], s) {
				t.Fatalf("empty or repeated result %q in %q", s, l)
			}
		}
	}
	for _, s := range p.Retryable {
		if p.IsFinal(s) {
			t.Fatalf("%q is both retryable and final", s)
		}
	}
	if p.DefaultRetention <= 0 {
		t.Fatalf("default retention %v", p.DefaultRetention)
	}
	for scope, d := range p.ScopeRetention {
		if scope == "" || d <= 0 {
			t.Fatalf("scope %q retention %v", scope, d)
		}
	}
}

func keys(p *Policy) []string {
	out := make([]string, 0, len(p.ScopeRetention))
	for k := range p.ScopeRetention {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// render writes p as a policy file. Go's quoted strings are valid YAML
// double-quoted scalars for valid UTF-8.
func render(p *Policy) string {
	var b strings.Builder
	quote := func(l []string) string {
		q := make([]string, len(l))
		for i, s := range l {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	fmt.Fprintf(&b, "retry:\n  retryable: %s\n  final: %s\n", quote(p.Retryable), quote(p.Final))
	fmt.Fprintf(&b, "keyRetention:\n  default: %s\n  scopes:\n", p.DefaultRetention)
	if len(p.ScopeRetention) == 0 {
		b.WriteString("    {}\n")
	}
	for _, k := range keys(p) {
		fmt.Fprintf(&b, "    %s: %s\n", strconv.Quote(k), p.ScopeRetention[k])
	}
	return b.String()
}

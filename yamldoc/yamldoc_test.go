package yamldoc

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBody(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		body     bool
		err      *Error
	}{
		{"empty", "", false, nil},
		{"a comment only, after a BOM", "\ufeff# nothing\n", false, nil},
		{"one document", "a: 1\n", true, nil},
		{"a second document", "a: 1\n---\nb: 2\n", false, &Error{Pos{3, 1}, "a second YAML document; a test file holds one"}},
		{"a %YAML directive", "%YAML 1.2\n---\na: 1\n", false, &Error{Pos{1, 1}, "YAML directives (%YAML, %TAG) are not supported in a test file"}},
		// Not a directive, but not a plain scalar either: the parser's error.
		{"a value starting with %", "a: %x\n", false, &Error{Pos{1, 4}, "unexpected directive value. document not started"}},
		{"a %TAG directive", "# c\n%TAG ! tag:example.com,2000:\n---\na: 1\n", false, &Error{Pos{2, 1}, "YAML directives (%YAML, %TAG) are not supported in a test file"}},
		{"flow nesting", strings.Repeat("[", 5), false, &Error{Pos{1, 5}, "nested more than 4 levels deep"}},
		{"entries on one line", "- - - - - a\n", false, &Error{Pos{1, 9}, "nested more than 4 levels deep"}},
		{"deep by indentation is fine", "a:\n b:\n  c:\n   d:\n    e: 1\n", true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, err := Body([]byte(tt.in), 4, "test file")
			if diff := cmp.Diff(tt.err, err); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got := body != nil; got != tt.body {
				t.Errorf("body = %v, want one: %v", body, tt.body)
			}
		})
	}
}

// TestParseErrorIsPrintable checks that a parser message quoting control
// characters from the input comes out escaped, at the parser's position.
func TestParseErrorIsPrintable(t *testing.T) {
	_, err := Body([]byte("a: [\x1b[31m"), 8, "test file")
	if err == nil || err.Line != 1 || strings.ContainsRune(err.Msg, '\x1b') {
		t.Errorf("got %+v, want an escaped message on line 1", err)
	}
}

// TestValueNames checks what Unsupported and Describe call each kind of
// value: the features the strict files refuse are named by Unsupported,
// and the values they take by Describe.
func TestValueNames(t *testing.T) {
	for _, tc := range []struct{ doc, unsupported, describe string }{
		{"a: &x 1", "anchors (&)", "an anchor"},
		{"a: !!str 1", "tags (!)", "a tag"},
		{"a: |\n  x\n", "block scalars (| and >)", "a literal"},
		{"a: true", "", "a boolean"},
		{"a: .inf", "", "a number"},
		{"a: .nan", "", "a number"},
		{"a: 12", "", "a number"},
		{"a: 1.5", "", "a number"},
		{"a: x", "", "a string"},
		{"a: null", "", "null"},
		{"a: [1]", "", "a list"},
		{"a: {b: 1}", "", "a mapping"},
	} {
		t.Run(tc.doc, func(t *testing.T) {
			body, e := Body([]byte(tc.doc), 8, "test file")
			if e != nil {
				t.Fatal(e.Msg)
			}
			entries, ok := Entries(body)
			if !ok || len(entries) != 1 {
				t.Fatalf("Entries of %q: %v, %v", tc.doc, entries, ok)
			}
			v := entries[0].Value
			if got := Unsupported(v); got != tc.unsupported {
				t.Errorf("Unsupported = %q, want %q", got, tc.unsupported)
			}
			if got := Describe(v); got != tc.describe {
				t.Errorf("Describe = %q, want %q", got, tc.describe)
			}
		})
	}
	if got := Describe(nil); got != "nothing" {
		t.Errorf("Describe(nil) = %q, want nothing", got)
	}
}

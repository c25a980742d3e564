package ndjson

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// marker marks, in a test line, the byte an error must point at.
const marker = "§"

// unmark removes the marker from s and returns the line and the 1-based
// column the marker was at (0 if there is none).
func unmark(t *testing.T, s string) ([]byte, int) {
	t.Helper()
	i := strings.Index(s, marker)
	if i < 0 {
		return []byte(s), 0
	}
	if strings.Count(s, marker) > 1 {
		t.Fatalf("test line %q has more than one marker", s)
	}
	return []byte(s[:i] + s[i+len(marker):]), i + 1
}

// failure is what a test expects of an error: its sentinel and position.
type failure struct {
	Column int
	Err    error
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		line string // the marker shows the column of the error
		err  error
	}{
		{"empty", "§", ErrSyntax},
		{"only space", "  \t§", ErrSyntax},
		{"trailing comma in object", `{"a":1,§}`, ErrSyntax},
		{"trailing comma in array", `{"a":[1,§]}`, ErrSyntax},
		{"leading comma", `{§,"a":1}`, ErrSyntax},
		{"double comma", `{"a":[1,§,2]}`, ErrSyntax},
		{"leading zero", `{"a":0§1}`, ErrSyntax},
		{"negative leading zero", `{"a":-0§1}`, ErrSyntax},
		{"NaN", `{"a":§NaN}`, ErrSyntax},
		{"Infinity", `{"a":-§Infinity}`, ErrSyntax},
		{"plus sign", `{"a":§+1}`, ErrSyntax},
		{"bare point", `{"a":§.5}`, ErrSyntax},
		{"point without digits", `{"a":1.§}`, ErrSyntax},
		{"point then letter", `{"a":1.§e5}`, ErrSyntax},
		{"exponent without digits", `{"a":1e§}`, ErrSyntax},
		{"exponent sign only", `{"a":1e+§}`, ErrSyntax},
		{"hex number", `{"a":0§x1}`, ErrSyntax},
		{"minus alone", `{"a":-§}`, ErrSyntax},
		{"single quotes", `{§'a':1}`, ErrSyntax},
		{"single-quoted value", `{"a":§'x'}`, ErrSyntax},
		{"unquoted name", `{§a:1}`, ErrSyntax},
		{"missing colon", `{"a" §1}`, ErrSyntax},
		{"missing comma", `{"a":1 §"b":2}`, ErrSyntax},
		{"missing value", `{"a":§}`, ErrSyntax},
		{"control character in string", "{\"a\":\"x§\x01\"}", ErrSyntax},
		{"tab in string", "{\"a\":\"x§\t\"}", ErrSyntax},
		{"invalid escape", `{"a":"\§x"}`, ErrSyntax},
		{"escaped apostrophe", `{"a":"\§'"}`, ErrSyntax},
		{"escaped bell", `{"a":"\§a"}`, ErrSyntax},
		{"escaped capital U", `{"a":"\§U0041"}`, ErrSyntax},
		{"escaped zero", `{"a":"\§0"}`, ErrSyntax},
		{"escaped newline", "{\"a\":\"\\§\n\"}", ErrSyntax},
		{"control character in long string", "{\"a\":\"abcdefghijklmnop§\x1f\"}", ErrSyntax},
		{"newline in long string", "{\"a\":\"abcdefghijklmnopqrstuv§\nwxyz\"}", ErrSyntax},
		{"NUL in long name", "{\"abcdefghijklmnop§\x00\":1}", ErrSyntax},
		{"short unicode escape", `{"a":"\u12§"}`, ErrSyntax},
		{"bad unicode escape", `{"a":"\u12§G4"}`, ErrSyntax},
		{"unterminated string", `{"a":"abc§`, ErrSyntax},
		{"unterminated long string", `{"a":"abcdefghijklmnopqrstuvwxyz§`, ErrSyntax},
		{"backslash at end", `{"a":"abc\§`, ErrSyntax},
		{"truncated object", `{"a":1§`, ErrSyntax},
		{"truncated literal", `{"a":tr§`, ErrSyntax},
		{"misspelt literal", `{"a":tr§ie}`, ErrSyntax},
		{"capital literal", `{"a":§True}`, ErrSyntax},
		{"literal with tail", `{"a":null§x}`, ErrSyntax},
		{"trailing garbage", `{"a":1}§x`, ErrSyntax},
		{"two objects", `{"a":1} §{"b":2}`, ErrSyntax},
		{"wrong closer in array", `{"a":[1§}}`, ErrSyntax},
		{"wrong closer in object", `{"a":1§]`, ErrSyntax},
		{"byte order mark", "§\ufeff{}", ErrSyntax},
		{"line separator outside string", "{\"a\":1}§\u2028", ErrSyntax},
		{"non-breaking space", "{\"a\":§\u00a01}", ErrSyntax},
		{"form feed is not space", "{§\f}", ErrSyntax},
		{"NUL outside string", "{\"a\":1§\x00}", ErrSyntax},

		{"array", `§[1,2]`, ErrNotObject},
		{"empty array", ` §[] `, ErrNotObject},
		{"string", `§"s"`, ErrNotObject},
		{"number", `§12`, ErrNotObject},
		{"null", `§null`, ErrNotObject},
		{"true", `§true`, ErrNotObject},

		{"duplicate", `{"a":1,§"a":2}`, ErrDuplicateName},
		{"duplicate with same value", `{"a":1,§"a":1}`, ErrDuplicateName},
		{"duplicate via escape", `{"a":1,§"\u0061":2}`, ErrDuplicateName},
		{"duplicate via solidus escape", `{"a/b":1,§"a\/b":2}`, ErrDuplicateName},
		{"duplicate not adjacent", `{"a":1,"b":2,"c":3,§"b":4}`, ErrDuplicateName},
		{"duplicate nested", `{"x":{"a":1,§"a":2}}`, ErrDuplicateName},
		{"duplicate in array", `{"x":[{},{"a":1,§"a":2}]}`, ErrDuplicateName},
		{"duplicate after nested object", `{"a":{"b":1},§"a":2}`, ErrDuplicateName},
		{"duplicate empty name", `{"":1,§"":2}`, ErrDuplicateName},
		{"duplicate surrogate pairs", `{"\ud83d\ude00":1,§"😀":2}`, ErrDuplicateName},
		{"duplicate in non-object", `[{"a":1,§"a":2}]`, ErrDuplicateName},

		{"invalid byte in string", "{\"a\":\"§\xff\"}", ErrInvalidUTF8},
		{"truncated sequence in string", "{\"a\":\"x§\xc3\"}", ErrInvalidUTF8},
		{"overlong encoding in string", "{\"a\":\"§\xc0\xaf\"}", ErrInvalidUTF8},
		{"encoded surrogate in string", "{\"a\":\"§\xed\xa0\x80\"}", ErrInvalidUTF8},
		{"invalid byte in name", "{\"§\xfe\":1}", ErrInvalidUTF8},
		{"invalid byte in long string", "{\"a\":\"abcdefghijklmnop§\x80qrstuvwxyz\"}", ErrInvalidUTF8},
		{"truncated sequence at the end of a long string", "{\"a\":\"abcdefghijklmnop§\xe2\x80\"}", ErrInvalidUTF8},
		{"invalid byte outside string", "{\"a\":§\xff}", ErrInvalidUTF8},
		{"invalid byte after the object", "{\"a\":1} §\xff", ErrInvalidUTF8},
		{"lone high surrogate", `{"a":"x§\ud800"}`, ErrLoneSurrogate},
		{"lone low surrogate", `{"a":"§\uDC00x"}`, ErrLoneSurrogate},
		{"inverted surrogates", `{"a":"§\udc00\ud800"}`, ErrLoneSurrogate},
		{"high surrogate before a character", `{"a":"§\ud800x"}`, ErrLoneSurrogate},
		{"high surrogate before another escape", `{"a":"§\ud800\n"}`, ErrLoneSurrogate},
		{"high surrogate before a BMP escape", `{"a":"§\ud800\u0041"}`, ErrLoneSurrogate},
		{"high surrogate before a high one", `{"a":"§\ud800\ud800\udc00"}`, ErrLoneSurrogate},
		{"high surrogate before U+E000", `{"a":"§\udbff\ue000"}`, ErrLoneSurrogate},
		{"lone surrogate in a name", `{"§\ud800":1}`, ErrLoneSurrogate},
		{"lone surrogate nested", `{"x":[{"y":"§\udfff"}]}`, ErrLoneSurrogate},
		{"lone surrogate in a non-object", `["§\ud800"]`, ErrLoneSurrogate},
		{"lone surrogate wins over a later duplicate", `{"a":"§\ud800","a":1}`, ErrLoneSurrogate},
		{"bad hex in the low half", `{"a":"\ud800\udc§g0"}`, ErrSyntax},
		{"line ends in the low half", `{"a":"\ud800\udc0§`, ErrSyntax},
		{"invalid UTF-8 wins over an earlier syntax error", "{\"a\":1,}§\xff", ErrInvalidUTF8},
		{"invalid UTF-8 wins over a duplicate", "{\"a\":1,\"a\":\"§\xff\"}", ErrInvalidUTF8},
		{"invalid UTF-8 wins over not an object", "[\"§\xff\"]", ErrInvalidUTF8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, col := unmark(t, tt.line)
			var p Parser
			members, err := p.Parse(line)
			if members != nil {
				t.Errorf("Parse(%q) returned %d members with its error", line, len(members))
			}
			var got failure
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) = %v, want a *ParseError", line, err)
			}
			got = failure{Column: pe.Column, Err: pe.Err}
			want := failure{Column: col, Err: tt.err}
			if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("Parse(%q): %v\n(-want +got):\n%s", line, err, diff)
			}
		})
	}
}

func TestParseErrorMessages(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{`{"a":"x`, "column 8: invalid JSON: unexpected end of line"},
		{`{"a":1,}`, "column 8: invalid JSON: trailing comma"},
		{`{"a":1}x`, "column 8: invalid JSON: invalid character 'x' after top-level value"},
		{"{\"a\":\"\n\"}", "column 7: invalid JSON: control character 0x0a in string"},
		{`{"a":01}`, "column 7: invalid JSON: leading zero in number"},
		{`{"a":"\x"}`, `column 8: invalid JSON: invalid character 'x' in string escape`},
		{"\ufeff{}", "column 1: invalid JSON: invalid character U+FEFF looking for beginning of value"},
		{`[1]`, "column 1: not a JSON object: array"},
		{` "s"`, "column 2: not a JSON object: string"},
		{`{"type":1,"type":2}`, `column 11: duplicate member name "type"`},
		{`{"\n":1,"\n":2}`, `column 9: duplicate member name "\n"`},
		{"{\"\xff\":1}", "column 3: invalid UTF-8: byte 0xff"},
		{strings.Repeat("[", MaxDepth+1), "column 513: nesting too deep: more than 512 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.line[:min(len(tt.line), 20)], func(t *testing.T) {
			var p Parser
			_, err := p.Parse([]byte(tt.line))
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", tt.line)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Parse(%q) error (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

func TestParseErrorString(t *testing.T) {
	tests := []struct {
		name string
		err  *ParseError
		want string
	}{
		{"line and column", &ParseError{Line: 3, Column: 17, Err: ErrSyntax}, "line 3, column 17: invalid JSON"},
		{"line only", &ParseError{Line: 3, Err: ErrLineTooLong}, "line 3: line too long"},
		{"column only", &ParseError{Column: 2, Err: ErrNotObject}, "column 2: not a JSON object"},
		{"neither", &ParseError{Err: ErrTooDeep}, "nesting too deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		name string
		line string
	}{
		{"empty object", `{}`},
		{"white space everywhere", " \t{ \"a\" : [ 1 , { \"b\" : null } , [ ] ] , \"c\" : { } } \r\t"},
		{"CR inside", "{\"a\":\r1}"},
		{"numbers", `{"a":0,"b":-0,"c":-0.5e+10,"d":1E-2,"e":12.50,"f":1e400,"g":123456789012345678901234567890}`},
		{"literals", `{"a":true,"b":false,"c":null}`},
		{"escapes", `{"a":"\"\\\/\b\f\n\r\t\u0000\u00e9\uD834\uDD1E"}`},
		{"surrogate pairs", `{"\ud83d\ude00":"\uDBFF\uDFFF\ud800\udc00"}`},
		{"line and paragraph separators", "{\"a\":\"x\u2028y\u2029z\"}"},
		{"non-ASCII", `{"ключ":"значение","日本":"語","emoji":"😀"}`},
		{"literal U+FFFD", "{\"a\":\"\ufffd\"}"},
		{"DEL in string", "{\"a\":\"\x7f\"}"},
		{"empty name", `{"":0}`},
		{"same name at other depths", `{"a":{"a":{"a":1}}}`},
		{"same name in sibling objects", `{"x":{"a":1},"y":{"a":2},"z":[{"a":1},{"a":1}]}`},
		{"names differing in case", `{"a":1,"A":2}`},
		{"names that are prefixes", `{"ab":1,"a":2,"abc":3}`},
		{"escaped name not a duplicate", `{"a":1,"\u0062":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Parser
			if _, err := p.Parse([]byte(tt.line)); err != nil {
				t.Errorf("Parse(%q) = %v, want success", tt.line, err)
			}
		})
	}
}

// member is a Member as strings, for comparison.
type member struct {
	Name, Value string
	Kind        Kind
	Escaped     bool
}

func members(ms []Member) []member {
	out := []member{}
	for _, m := range ms {
		out = append(out, member{string(m.Name), string(m.Value), m.Kind, m.Escaped})
	}
	return out
}

func TestParseMembers(t *testing.T) {
	line := `{ "type" : "attempt","k\u00e9y":"plain", "esc":"a\"b\n" ,"n":-1.5e3,"ok":true,"no":false,` +
		`"z":null,"arr":[1,"x",{"k":"v"},"\n"],"obj":{"k":"v","o":{},"e":"\t"},"empty":{},"s":"" }`
	want := []member{
		{"type", `"attempt"`, String, false},
		{"kéy", `"plain"`, String, false},
		{"esc", `"a\"b\n"`, String, true},
		{"n", `-1.5e3`, Number, false},
		{"ok", `true`, True, false},
		{"no", `false`, False, false},
		{"z", `null`, Null, false},
		{"arr", `[1,"x",{"k":"v"},"\n"]`, Array, false},
		{"obj", `{"k":"v","o":{},"e":"\t"}`, Object, false},
		{"empty", `{}`, Object, false},
		{"s", `""`, String, false},
	}
	var p Parser
	for _, run := range []string{"first", "reused"} {
		t.Run(run, func(t *testing.T) {
			got, err := p.Parse([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, members(got)); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("empty object", func(t *testing.T) {
		got, err := p.Parse([]byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]member{}, members(got)); diff != "" {
			t.Errorf("members (-want +got):\n%s", diff)
		}
	})
}

func TestKindString(t *testing.T) {
	got := []string{}
	for k := Null; k <= Object+1; k++ {
		got = append(got, k.String())
	}
	want := []string{"null", "false", "true", "number", "string", "array", "object", "Kind(7)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// object builds an object with the given member names and values 0, 1, ...
// (or the given raw values where vals is not nil).
func object(names []string, vals map[int]string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		v, ok := vals[i]
		if !ok {
			v = fmt.Sprint(i)
		}
		fmt.Fprintf(&b, "%q:%s", n, v)
	}
	b.WriteByte('}')
	return b.String()
}

func seq(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return s
}

// TestParseManyNames covers objects large enough for the hashed duplicate
// check, nested in each other.
func TestParseManyNames(t *testing.T) {
	inner := object(append(seq("i", 40), "o3"), nil) // shares "o3" with its parent
	middle := object(seq("m", 20), map[int]string{5: inner})
	outer := seq("o", 30)
	tests := []struct {
		name string
		line string
		err  error
	}{
		{"17 distinct", object(seq("n", 17), nil), nil},
		{"1000 distinct", object(seq("n", 1000), nil), nil},
		{"duplicate at 17", object(append(seq("n", 16), "n3"), nil), ErrDuplicateName},
		{"duplicate at 1000", object(append(seq("n", 999), "n0"), nil), ErrDuplicateName},
		{"duplicate of a later name", object(append(seq("n", 999), "n998"), nil), ErrDuplicateName},
		{"nested large objects", object(outer, map[int]string{4: middle, 25: inner}), nil},
		{"names of a closed object forgotten", object(append(outer, "i7"), map[int]string{4: middle}), nil},
		{"duplicate after nested large objects", object(append(outer, "o29"), map[int]string{4: middle}), ErrDuplicateName},
		{"duplicate inside nested large object", object(outer, map[int]string{4: object(append(seq("m", 30), "m12"), nil)}), ErrDuplicateName},
		{"duplicate in second of many large objects", `{"a":[` + object(seq("x", 30), nil) + "," + object(append(seq("y", 30), "y29"), nil) + "]}", ErrDuplicateName},
	}
	var p Parser // shared, so that scratch left by one case must not confuse the next
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Parse([]byte(tt.line))
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Errorf("Parse = %v, want %v", err, tt.err)
			}
		})
	}
}

func TestParseDepth(t *testing.T) {
	objects := func(n int) string {
		return strings.Repeat(`{"a":`, n-1) + `{}` + strings.Repeat("}", n-1)
	}
	arrays := func(n int) string { // inside the record object, so n+1 levels
		return `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}"
	}
	tests := []struct {
		name string
		line string
		want failure
	}{
		{"objects at the limit", objects(MaxDepth), failure{}},
		{"objects above the limit", objects(MaxDepth + 1), failure{Column: (MaxDepth)*5 + 1, Err: ErrTooDeep}},
		{"arrays at the limit", arrays(MaxDepth - 1), failure{}},
		{"arrays above the limit", arrays(MaxDepth), failure{Column: 5 + MaxDepth, Err: ErrTooDeep}},
		{"100,000 open arrays", strings.Repeat("[", 100_000), failure{Column: MaxDepth + 1, Err: ErrTooDeep}},
		{"1,000,000 open arrays", strings.Repeat("[", 1_000_000), failure{Column: MaxDepth + 1, Err: ErrTooDeep}},
		{"closed arrays at the limit, not an object", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), failure{Column: 1, Err: ErrNotObject}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Parser
			_, err := p.Parse([]byte(tt.line))
			var got failure
			if err != nil {
				pe := err.(*ParseError)
				got = failure{Column: pe.Column, Err: pe.Err}
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("Parse: %v\n(-want +got):\n%s", err, diff)
			}
		})
	}
}

func TestAppendUnquote(t *testing.T) {
	tests := []struct {
		raw  string
		want string
	}{
		{`""`, ""},
		{`"abc"`, "abc"},
		{`"a\"b\\c\/d"`, `a"b\c/d`},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t"},
		{`"\u0000"`, "\x00"},
		{`"x\u0041\u00e9\u20AC"`, "xAé€"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD834\uDD1E"`, "\U0001D11E"},
		{`"\udbff\udfff"`, "\U0010FFFF"},
		{`"\ud800\udc00\ud7ff\ue000"`, "\U00010000\ud7ff\ue000"},
		{"\"é\u2028\"", "é\u2028"},
		{`"long plain text without any escape at all"`, "long plain text without any escape at all"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := AppendUnquote([]byte("prefix:"), []byte(tt.raw))
			if err != nil {
				t.Fatalf("AppendUnquote(%q) = %v", tt.raw, err)
			}
			if diff := cmp.Diff("prefix:"+tt.want, string(got)); diff != "" {
				t.Errorf("AppendUnquote(%q) (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

func TestAppendUnquoteErrors(t *testing.T) {
	tests := []struct {
		raw string // the marker shows the column of the error
		err error
	}{
		{`§`, ErrSyntax},
		{`§abc`, ErrSyntax},
		{`"abc§`, ErrSyntax},
		{`"a"§b`, ErrSyntax},
		{`"a"§ `, ErrSyntax},
		{`"\§x"`, ErrSyntax},
		{`"\u00§"`, ErrSyntax},
		{"\"§\n\"", ErrSyntax},
		{"\"§\xff\"", ErrInvalidUTF8},
		{"§\xff", ErrInvalidUTF8},
		{`"§\ud800"`, ErrLoneSurrogate},
		{`"ok§\udc00\ud800"`, ErrLoneSurrogate},
		{`"§\ud800\ud7ff"`, ErrLoneSurrogate},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			raw, col := unmark(t, tt.raw)
			got, err := AppendUnquote([]byte("prefix:"), raw)
			if string(got) != "prefix:" {
				t.Errorf("AppendUnquote(%q) appended %q despite the error", raw, got)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("AppendUnquote(%q) = %v, want a *ParseError", raw, err)
			}
			want := failure{Column: col, Err: tt.err}
			if diff := cmp.Diff(want, failure{Column: pe.Column, Err: pe.Err}, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("AppendUnquote(%q): %v\n(-want +got):\n%s", raw, err, diff)
			}
		})
	}
}

func TestParseAllocations(t *testing.T) {
	line := []byte(ledgerLine(7))
	var p Parser
	if _, err := p.Parse(line); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := p.Parse(line); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Parse allocates %v times per line, want 0", allocs)
	}
}

package canon

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"scalar null", "null", "null"},
		{"scalar true with whitespace", " \t\r\ntrue \n", "true"},
		{"scalar string", `"x"`, `"x"`},
		{"empty object", "{ }", "{}"},
		{"empty array", "[ ]", "[]"},
		{"members sorted", `{"b":1,"a":2,"c":{"z":1,"y":[3,2,1]}}`, `{"a":2,"b":1,"c":{"y":[3,2,1],"z":1}}`},
		{"prefix sorts first", `{"ab":1,"a":2,"":3}`, `{"":3,"a":2,"ab":1}`},
		// U+10000 is D800 DC00 in UTF-16, which sorts before U+E000 and
		// U+FFFF although its code point is larger.
		{"utf16 order", "{\"\uffff\":1,\"\U00010000\":2,\"\ue000\":3,\"z\":4}", "{\"z\":4,\"\U00010000\":2,\"\ue000\":3,\"\uffff\":1}"},
		{"same high surrogate", "{\"\U0001F601\":1,\"\U0001F600\":2}", "{\"\U0001F600\":2,\"\U0001F601\":1}"},
		{"escapes minimal", `"\u0000\u001F\u007f\b\t\n\f\r\"\\\/\u00e9\u20AC"`, "\"\\u0000\\u001f\x7f\\b\\t\\n\\f\\r\\\"\\\\/é€\""},
		{"surrogate pair escape", `"\uD83D\uDE00"`, "\"\U0001F600\""},
		{"raw utf8 kept, not normalised", "\"A\u030a\u2028\"", "\"A\u030a\u2028\""},
		{"escaped names compare equal after decoding, distinct here", `{"\u0061b":1,"a":2}`, `{"a":2,"ab":1}`},
		{"negative zero", "-0", "0"},
		{"negative zero float", "[-0.0,0e5,-0E-3]", "[0,0,0]"},
		{"integer float", "56.0", "56"},
		{"exponent forms", "[1E30,1e21,1e20,1e-6,1e-7,123e-9,-1.5e+300]", "[1e+30,1e+21,100000000000000000000,0.000001,1e-7,1.23e-7,-1.5e+300]"},
		{"rounding to nearest double", "333333333.33333329", "333333333.3333333"},
		{"max double", "1.7976931348623157e308", "1.7976931348623157e+308"},
		{"smallest subnormal", "5e-324", "5e-324"},
		// Documented choices: underflow and big integers become the nearest double.
		{"underflow to zero", "1e-400", "0"},
		{"negative underflow", "-1e-400", "0"},
		{"beyond 2^53", "9007199254740993", "9007199254740992"},
		{"2^64", "18446744073709551616", "18446744073709552000"},
		{"long mantissa", "0." + strings.Repeat("1", 1000), "0.1111111111111111"},
		{"bom skipped", "\uFEFF{\"a\":1}", `{"a":1}`},
		{"deep within limit", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)},
		{"many members", manyMembers(40, false), manyMembersSorted(40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in), nil)
			if err != nil {
				t.Fatalf("Canonicalize(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Canonicalize(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// manyMembers builds an object with n members in reverse order, optionally
// repeating the first name at the end, to exercise the map-based duplicate
// check.
func manyMembers(n int, dup bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := n - 1; i >= 0; i-- {
		b.WriteString(`"k` + string(rune('a'+i/26)) + string(rune('a'+i%26)) + `":0`)
		if i > 0 {
			b.WriteString(",")
		}
	}
	if dup {
		b.WriteString(`,"kaa":1`)
	}
	b.WriteString("}")
	return b.String()
}

func manyMembersSorted(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + string(rune('a'+i/26)) + string(rune('a'+i%26)) + `":0`)
	}
	b.WriteString("}")
	return b.String()
}

func TestCanonicalizeErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr error
		wantMsg string
	}{
		{"empty", "", ErrNotJSON, "not JSON: byte 0: empty input: no JSON value"},
		{"blank", " \n", ErrNotJSON, "not JSON: byte 2: empty input: no JSON value"},
		{"bom only", "\uFEFF", ErrNotJSON, "not JSON: byte 3: empty input: no JSON value"},
		{"bom twice", "\uFEFF\uFEFF{}", ErrNotJSON, "not JSON: byte 3: unexpected byte 0xEF"},
		{"trailing data", `{"a":1} x`, ErrNotJSON, `not JSON: byte 8: trailing data after the JSON value: character 'x'`},
		{"two values", "1 2", ErrNotJSON, "not JSON: byte 2: trailing data after the JSON value: character '2'"},
		{"trailing comma", "[1,]", ErrNotJSON, "not JSON: byte 3: unexpected character ']'"},
		{"unterminated object", `{"a":1`, ErrNotJSON, "not JSON: byte 6: unterminated object: unexpected end of input"},
		{"unterminated string", `["abc`, ErrNotJSON, "not JSON: byte 1: unterminated string"},
		{"control in string", "\"a\tb\"", ErrNotJSON, "not JSON: byte 2: unescaped control character 0x09 in string"},
		{"bad escape", `"\x"`, ErrNotJSON, `not JSON: byte 1: invalid escape sequence \character 'x'`},
		{"bad literal", "nul", ErrNotJSON, `not JSON: byte 3: invalid literal (expected "null"): unexpected end of input`},
		{"leading zero", "01", ErrNotJSON, "not JSON: byte 1: trailing data after the JSON value: character '1'"},
		{"bare dot", "1.", ErrNotJSON, "not JSON: byte 2: invalid number: expected a digit after '.', found end of input"},
		{"non-breaking space", "\u00a01", ErrNotJSON, "not JSON: byte 0: unexpected byte 0xC2"},
		{"too deep", strings.Repeat("[", MaxDepth+1), ErrNotJSON, "not JSON: byte 1000: nesting deeper than 1000 arrays and objects"},
		{"duplicate name", `{"a":1,"b":2,"a":3}`, ErrNotIJSON, `not I-JSON: byte 13: duplicate member name "a"`},
		{"duplicate after unescaping", `{"a":1,"\u0061":1}`, ErrNotIJSON, `not I-JSON: byte 7: duplicate member name "a"`},
		{"duplicate nested", `[{"x":{"y":1,"y":1}}]`, ErrNotIJSON, `not I-JSON: byte 13: duplicate member name "y"`},
		{"duplicate in large object", manyMembers(40, true), ErrNotIJSON, `duplicate member name "kaa"`},
		{"lone high surrogate", `"ab\uD800"`, ErrNotIJSON, `not I-JSON: byte 3: lone high surrogate escape \uD800`},
		{"lone low surrogate", `"\uDC00x"`, ErrNotIJSON, `not I-JSON: byte 1: lone low surrogate escape \uDC00`},
		{"inverted surrogates", `"\uDD1E\uD834"`, ErrNotIJSON, `not I-JSON: byte 1: lone low surrogate escape \uDD1E`},
		{"high then non-low", `"\uD800\u0041"`, ErrNotIJSON, `not I-JSON: byte 1: high surrogate escape \uD800 not followed by a low surrogate (found \u0041)`},
		{"invalid utf8", "\"ab\xffc\"", ErrNotIJSON, "not I-JSON: byte 3: invalid UTF-8 in string"},
		{"invalid utf8 after escape", "\"\\n\xc3\"", ErrNotIJSON, "not I-JSON: byte 3: invalid UTF-8 in string"},
		{"encoded surrogate", "\"\xed\xa0\x80\"", ErrNotIJSON, "not I-JSON: byte 1: invalid UTF-8 in string"},
		{"overflow", "[1, 1e309]", ErrNotIJSON, "not I-JSON: byte 4: number 1e309 overflows a double"},
		{"negative overflow", "-1.8e308", ErrNotIJSON, "not I-JSON: byte 0: number -1.8e308 overflows a double"},
		{"long overflow quoted short", "1" + strings.Repeat("0", 400), ErrNotIJSON, "not I-JSON: byte 0: number 1000000000000000000000000000000000000000... (401 digits) overflows a double"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in), nil)
			if err == nil {
				t.Fatalf("Canonicalize(%q) = %q, want error", tt.in, got)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tt.wantErr)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error message mismatch:\n got: %s\nwant: %s", err, tt.wantMsg)
			}
		})
	}
}

func TestDrop(t *testing.T) {
	const doc = `{"id":"x","meta":{"ts":1,"seq":2,"keep":true},"a/b":1,"a~n":2,"list":[0,1,2,3],"":{"":5}}`
	tests := []struct {
		name string
		drop []string
		want string
	}{
		{"none", nil, `{"":{"":5},"a/b":1,"a~n":2,"id":"x","list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"top level", []string{"/id"}, `{"":{"":5},"a/b":1,"a~n":2,"list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"nested", []string{"/meta/ts", "/meta/seq"}, `{"":{"":5},"a/b":1,"a~n":2,"id":"x","list":[0,1,2,3],"meta":{"keep":true}}`},
		{"tilde one is slash", []string{"/a~1b"}, `{"":{"":5},"a~n":2,"id":"x","list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"tilde zero is tilde", []string{"/a~0n"}, `{"":{"":5},"a/b":1,"id":"x","list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"empty names", []string{"//"}, `{"":{},"a/b":1,"a~n":2,"id":"x","list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"array index", []string{"/list/1"}, `{"":{"":5},"a/b":1,"a~n":2,"id":"x","list":[0,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"indexes resolved against the original", []string{"/list/1", "/list/0"}, `{"":{"":5},"a/b":1,"a~n":2,"id":"x","list":[2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"parent and child", []string{"/meta/ts", "/meta"}, `{"":{"":5},"a/b":1,"a~n":2,"id":"x","list":[0,1,2,3]}`},
		{"same pointer twice", []string{"/id", "/id"}, `{"":{"":5},"a/b":1,"a~n":2,"list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"missing member", []string{"/nope", "/meta/nope/deeper"}, `{"":{"":5},"a/b":1,"a~n":2,"id":"x","list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"index out of range, dash, leading zero, not a number", []string{"/list/4", "/list/-", "/list/01", "/list/x", "/list/99999999999999999999999"}, `{"":{"":5},"a/b":1,"a~n":2,"id":"x","list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
		{"through a scalar", []string{"/id/0", "/meta/keep/x"}, `{"":{"":5},"a/b":1,"a~n":2,"id":"x","list":[0,1,2,3],"meta":{"keep":true,"seq":2,"ts":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(doc), tt.drop)
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDropMalformedPointer(t *testing.T) {
	tests := []struct {
		name    string
		ptr     string
		wantMsg string
	}{
		{"whole document", "", `malformed JSON pointer "": the empty pointer names the whole document, which cannot be dropped`},
		{"no leading slash", "a/b", `malformed JSON pointer "a/b": must start with '/'`},
		{"bare tilde", "/a~", `malformed JSON pointer "/a~": '~' must be followed by '0' or '1' (token 1)`},
		{"tilde two", "/a/~2", `malformed JSON pointer "/a/~2": '~' must be followed by '0' or '1' (token 2)`},
		{"invalid utf8", "/\xff", `malformed JSON pointer "/\xff": invalid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The pointer is checked even when the document is valid and
			// before the document is parsed.
			for _, doc := range []string{`{"a":1}`, "not json"} {
				_, err := Canonicalize([]byte(doc), []string{"/ok", tt.ptr})
				if !errors.Is(err, ErrPointer) {
					t.Fatalf("doc %q: got error %v, want one wrapping ErrPointer", doc, err)
				}
				if diff := cmp.Diff(tt.wantMsg, err.Error()); diff != "" {
					t.Errorf("message mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestHash(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"{}", "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Hash([]byte(tt.in))); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHashIgnoresLayout: documents that differ only in whitespace, member
// order, escaping and number spelling share one hash.
func TestHashIgnoresLayout(t *testing.T) {
	docs := []string{
		`{"a":[1,2.0,"é"],"b":{"c":null}}`,
		"\uFEFF{ \"b\" : { \"c\" : null } ,\n \"a\" : [ 1e0 , 20E-1 , \"\\u00e9\" ] }\n",
		`{"b":{"c":null},"\u0061":[0.1e1,2,"\u00E9"]}`,
	}
	var hashes []string
	for _, d := range docs {
		c, err := Canonicalize([]byte(d), nil)
		if err != nil {
			t.Fatalf("Canonicalize(%q): %v", d, err)
		}
		hashes = append(hashes, Hash(c))
	}
	for i := 1; i < len(hashes); i++ {
		if diff := cmp.Diff(hashes[0], hashes[i]); diff != "" {
			t.Errorf("doc %d hash differs (-doc0 +doc%d):\n%s", i, i, diff)
		}
	}
}

func TestAppendNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-1, "-1"},
		{0.5, "0.5"},
		{1e21, "1e+21"},
		{999999999999999900000, "999999999999999900000"},
		{1e-6, "0.000001"},
		{9.999999999999997e-7, "9.999999999999997e-7"},
		{1.5e-7, "1.5e-7"},
		{123456789012345680000, "123456789012345680000"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{math.SmallestNonzeroFloat64, "5e-324"},
		{-math.SmallestNonzeroFloat64, "-5e-324"},
		{1 << 53, "9007199254740992"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(appendNumber(nil, tt.in))); diff != "" {
				t.Errorf("appendNumber(%v) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

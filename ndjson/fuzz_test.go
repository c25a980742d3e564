package ndjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// oracle decides, without the Parser, whether line is a record: valid JSON
// by encoding/json, valid UTF-8 (which encoding/json does not insist on),
// no lone surrogate escape (which encoding/json decodes to U+FFFD), an
// object, no duplicate names in any object by encoding/json's decoding of
// them, and no deeper than MaxDepth.
func oracle(line []byte) bool {
	if !json.Valid(line) || !utf8.Valid(line) || hasLoneSurrogate(line) {
		return false
	}
	type frame struct {
		object   bool
		wantName bool
		names    map[string]bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	for first := true; ; first = false {
		tok, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			panic("token error in valid JSON: " + err.Error())
		}
		if first && tok != json.Delim('{') {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if name, ok := tok.(string); ok && top != nil && top.object && top.wantName {
			if top.names[name] {
				return false
			}
			top.names[name] = true
			top.wantName = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, wantName: true, names: map[string]bool{}})
			if len(stack) > MaxDepth {
				return false
			}
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			if len(stack) > MaxDepth {
				return false
			}
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				top = stack[len(stack)-1]
			} else {
				top = nil
			}
		}
		// A value ended: an object wants its next name.
		if top != nil && top.object {
			top.wantName = true
		}
	}
}

// hasLoneSurrogate reports whether valid JSON holds a \u escape of half a
// surrogate pair that is not paired with the other half, walking its
// strings' escapes as UTF-16 code units.
func hasLoneSurrogate(valid []byte) bool {
	var units []uint16 // of the string being read
	in := false
	for i := 0; i < len(valid); i++ {
		switch c := valid[i]; {
		case !in:
			in = c == '"'
			units = units[:0]
		case c == '"':
			in = false
			for k := 0; k < len(units); k++ {
				if !utf16.IsSurrogate(rune(units[k])) {
					continue
				}
				if k+1 == len(units) || utf16.DecodeRune(rune(units[k]), rune(units[k+1])) == utf8.RuneError {
					return true
				}
				k++
			}
		case c == '\\' && valid[i+1] == 'u':
			n, _ := strconv.ParseUint(string(valid[i+2:i+6]), 16, 16)
			units = append(units, uint16(n))
			i += 5
		case c == '\\':
			units = append(units, 'x')
			i++
		default:
			units = append(units, 'x')
		}
	}
	return false
}

// topNames returns the decoded names of the top-level members of obj, a
// valid JSON object, in order, as encoding/json decodes them.
func topNames(t *testing.T, obj []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

var sentinels = []error{ErrSyntax, ErrNotObject, ErrDuplicateName, ErrInvalidUTF8, ErrLoneSurrogate, ErrTooDeep}

func FuzzParse(f *testing.F) {
	f.Add([]byte(ledgerLine(1)))
	f.Fuzz(func(t *testing.T, line []byte) {
		var p Parser
		got, err := p.Parse(line)
		checkSameAsGeneral(t, line, got, err)
		if want := oracle(line); (err == nil) != want {
			t.Fatalf("Parse(%q) = %v; the oracle says valid = %v", line, err, want)
		}
		if err != nil {
			checkError(t, line, err)
			return
		}
		if !json.Valid(line) {
			t.Fatalf("Parse accepted %q, which encoding/json rejects", line)
		}
		names := []string{}
		for _, m := range got {
			names = append(names, string(m.Name))
			if !json.Valid(m.Value) {
				t.Errorf("member %q: value %q is not valid JSON", m.Name, m.Value)
			}
			if k := kindOf(m.Value[0]); k != m.Kind {
				t.Errorf("member %q: kind %v, want %v", m.Name, m.Kind, k)
			}
			if esc := m.Kind == String && bytes.IndexByte(m.Value, '\\') >= 0; esc != m.Escaped {
				t.Errorf("member %q: Escaped = %v, want %v", m.Name, m.Escaped, esc)
			}
			if m.Kind == String {
				var want string
				if err := json.Unmarshal(m.Value, &want); err != nil {
					t.Fatal(err)
				}
				s, err := AppendUnquote(nil, m.Value)
				if err != nil || string(s) != want {
					t.Errorf("AppendUnquote(%q) = %q, %v; encoding/json gives %q", m.Value, s, err, want)
				}
			}
		}
		if diff := cmp.Diff(topNames(t, line), names); diff != "" {
			t.Errorf("names of %q (-encoding/json +Parse):\n%s", line, diff)
		}
		first := members(got)
		again, err := p.Parse(line)
		if err != nil {
			t.Fatalf("second Parse: %v", err)
		}
		if diff := cmp.Diff(first, members(again)); diff != "" {
			t.Errorf("second Parse differs (-first +second):\n%s", diff)
		}
	})
}

// checkError checks err, the error Parse gave for line.
func checkError(t *testing.T, line []byte, err error) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
	if pe.Column < 1 || pe.Column > len(line)+1 {
		t.Errorf("error %v: column out of the line of %d bytes", err, len(line))
	}
	found := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			found++
		}
	}
	if found != 1 {
		t.Errorf("error %v wraps %d sentinels, want 1", err, found)
	}
	if errors.Is(err, ErrInvalidUTF8) == utf8.Valid(line) {
		t.Errorf("error %v for a line whose UTF-8 validity is %v", err, utf8.Valid(line))
	}
	if errors.Is(err, ErrSyntax) && json.Valid(line) {
		t.Errorf("syntax error %v for a line encoding/json accepts", err)
	}
	if errors.Is(err, ErrNotObject) && !json.Valid(line) {
		t.Errorf("error %v for a line that is not JSON", err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(ledgerLine(1)+"\n"+ledgerLine(2)+"\n"), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, maxLine uint16) {
		r := NewReader(bytes.NewReader(data))
		r.MaxLineBytes = int(maxLine)
		got, err := readAll(t, r)
		if err != nil {
			t.Fatalf("read error from a bytes.Reader: %v", err)
		}
		// Columns come from the Parser, tested on its own: check only
		// that they fall inside the line.
		for i, e := range got.Events {
			switch {
			case e.Err == nil:
			case errors.Is(e.Err, ErrLineTooLong):
				if e.Column != 0 {
					t.Errorf("line %d: %v at column %d, want 0", e.Line, e.Err, e.Column)
				}
			case e.Column < 1 || e.Column > len(e.RawLine)+1:
				t.Errorf("line %d: %v at column %d, outside the line", e.Line, e.Err, e.Column)
			}
			got.Events[i].Column = 0
		}
		if diff := cmp.Diff(expectLines(data, int(maxLine)), got, cmp.Comparer(sameSentinel)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}

		// Every record's members are what a fresh Parser finds in its Raw.
		r = NewReader(bytes.NewReader(data))
		r.MaxLineBytes = int(maxLine)
		var p Parser
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				continue
			}
			want, err := p.Parse(rec.Raw)
			if err != nil {
				t.Fatalf("line %d: record %q does not parse again: %v", rec.Line, rec.Raw, err)
			}
			if diff := cmp.Diff(members(want), members(rec.Members)); diff != "" {
				t.Errorf("line %d: members (-parsed again +read):\n%s", rec.Line, diff)
			}
		}
	})
}

// sameSentinel compares the errors of events loosely: expectLines knows
// only whether a line is an error, and which for too long lines.
func sameSentinel(want, got error) bool {
	switch {
	case want == nil || got == nil:
		return want == got
	case errors.Is(want, ErrLineTooLong) || errors.Is(got, ErrLineTooLong):
		return errors.Is(want, ErrLineTooLong) && errors.Is(got, ErrLineTooLong)
	}
	return true
}

// expectLines splits data into lines by the rules of the Reader, in the
// simplest way, and judges each line with the oracle. Columns are not
// predicted: they come from the Parser, tested on its own.
func expectLines(data []byte, max int) outcome {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	out := outcome{Events: []event{}}
	offset := int64(0)
	if bytes.HasPrefix(data, []byte(bom)) {
		data = data[3:]
		offset = 3
	}
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte{'\n'})
		data = rest
		out.Lines++
		content := line
		if found {
			content = bytes.TrimSuffix(line, []byte{'\r'})
		}
		switch {
		case len(content) > max:
			out.Events = append(out.Events, event{Line: out.Lines, Offset: offset, Err: ErrLineTooLong, RawLine: string(line[:max])})
		case len(bytes.Trim(content, " \t\r")) == 0:
			out.Blank++
		case oracle(content):
			out.Events = append(out.Events, event{Line: out.Lines, Offset: offset, Raw: string(content), RawLine: string(line)})
		default:
			out.Events = append(out.Events, event{Line: out.Lines, Offset: offset, Err: ErrSyntax, RawLine: string(line)})
		}
		offset += int64(len(line))
		if found {
			offset++
		}
	}
	return out
}

// TestParseRandomObjects compares Parse with the oracle on generated objects
// of up to 60 members, nested, whose names often repeat (sometimes spelt with
// escapes): duplicates in large objects are what random fuzzing rarely finds.
func TestParseRandomObjects(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var gen func(b *bytes.Buffer, depth int)
	gen = func(b *bytes.Buffer, depth int) {
		switch k := rng.IntN(10); {
		case depth > 2 || k < 5:
			b.WriteString([]string{`1`, `"v"`, `null`, `-2.5e3`, `"\n"`}[rng.IntN(5)])
		case k < 6:
			b.WriteByte('[')
			for i := range rng.IntN(4) {
				if i > 0 {
					b.WriteByte(',')
				}
				gen(b, depth+1)
			}
			b.WriteByte(']')
		default:
			n := rng.IntN(60)
			if depth > 0 {
				n = rng.IntN(20) // keeps lines small: a few KiB at most
			}
			pool := n + n/20 + 1 // a duplicate now and then
			b.WriteByte('{')
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				name := fmt.Sprintf("n%d", rng.IntN(pool))
				if rng.IntN(8) == 0 {
					name = `\u006e` + name[1:] // "n" escaped
				}
				fmt.Fprintf(b, `"%s":`, name)
				gen(b, depth+1)
			}
			b.WriteByte('}')
		}
	}
	var p Parser
	accepted, rejected := 0, 0
	for i := range 3000 {
		var b bytes.Buffer
		b.WriteString(`{"top":`)
		gen(&b, 0)
		b.WriteString(`}`)
		line := b.Bytes()
		_, err := p.Parse(line)
		if want := oracle(line); (err == nil) != want {
			t.Fatalf("case %d: Parse(%s) = %v; the oracle says valid = %v", i, line, err, want)
		}
		if err == nil {
			accepted++
		} else {
			rejected++
		}
	}
	t.Logf("%d accepted, %d rejected", accepted, rejected)
	if accepted < 100 || rejected < 100 {
		t.Errorf("%d accepted, %d rejected: the generator does not exercise both", accepted, rejected)
	}
}

// checkSameAsGeneral checks that Parse, which takes a shortcut on flat
// objects, gives line the members or the error that the general parser
// alone gives it.
func checkSameAsGeneral(t *testing.T, line []byte, got []Member, err error) {
	t.Helper()
	var general Parser
	want, wantErr := general.parse(line)
	if wantErr != nil {
		wantErr = utf8First(line, wantErr)
	}
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("Parse(%q): error %v; the general parser: %v", line, err, wantErr)
	}
	if diff := cmp.Diff(members(want), members(got)); diff != "" {
		t.Fatalf("Parse(%q) members (-general +Parse):\n%s", line, diff)
	}
}

// TestParseSameAsGeneral holds Parse to the general parser on lines around
// the edges of its shortcut for flat objects.
func TestParseSameAsGeneral(t *testing.T) {
	lines := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":1}x`, `{"a":1}}`, `{"a":1} `, "\t{\"a\" : \"b\" }\r",
		`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"\u0061":1,"a":2}`, `{"a":"\u00e9"}`, `{"a":"é"}`, "{\"a\":\"\xff\"}",
		`{"a":tru}`, `{"a":nul}`, `{"a":-}`, `{"a":01}`, `{"a":1.}`, `{"a":1e}`, `{"a":.5}`, `{"a":+1}`, `{"a"}`, `{"a":}`, `{a:1}`,
		`{"a":{}}`, `{"a":[]}`, `{"a":{"b":1},"c":2}`, `{"a":[1,{"b":2}],"a":3}`, `{"a":1,"b":{"a":1,"a":2}}`,
		`{"a":{"b":1},"a":2}`, `{"a":{"b":1}`, `{"a":[1,]}`, `[1]`, `"a"`, `1`, ``, ` `,
		`{"a":1,"b":"` + strings.Repeat("x", 100) + `","c":null,"d":true,"e":false,"f":-1.5e+3}`,
	}
	many := "{"
	for i := range linearNames + 2 {
		if i > 0 {
			many += ","
		}
		many += fmt.Sprintf(`"m%d":%d`, i, i)
		lines = append(lines, many+"}", many+`,"m0":0}`, many+`,"n":{"x":1}}`, many+`,"n":{"x":1},"m1":1}`)
	}
	for _, line := range lines {
		var p Parser
		got, err := p.Parse([]byte(line))
		checkSameAsGeneral(t, []byte(line), got, err)
	}
}

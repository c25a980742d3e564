package ndjson

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// event is what Read returned for one line: a record or a *ParseError.
type event struct {
	Line    int
	Offset  int64
	Column  int    // errors only
	Err     error  // nil for a record
	Raw     string // Record.Raw
	RawLine string // Reader.RawLine
}

// outcome is everything a Reader produced from an input.
type outcome struct {
	Events []event
	Lines  int
	Blank  int
}

// readAll reads r to its end and checks that every line is accounted for.
// It returns the read error that ended it, if any.
func readAll(t testing.TB, r *Reader) (outcome, error) {
	t.Helper()
	out := outcome{Events: []event{}}
	records, invalid := 0, 0
	var final error
	for {
		rec, err := r.Read()
		var pe *ParseError
		if err == nil {
			records++
			out.Events = append(out.Events, event{Line: rec.Line, Offset: rec.Offset, Raw: string(rec.Raw), RawLine: string(r.RawLine())})
			continue
		}
		if errors.As(err, &pe) {
			invalid++
			out.Events = append(out.Events, event{Line: pe.Line, Offset: pe.Offset, Column: pe.Column, Err: pe.Err, RawLine: string(r.RawLine())})
			continue
		}
		if err != io.EOF {
			final = err
		}
		if again, _ := r.Read(); again != nil {
			t.Errorf("Read after %v returned a record", err)
		}
		break
	}
	out.Lines, out.Blank = r.Lines(), r.BlankLines()
	if out.Lines != out.Blank+records+invalid {
		t.Errorf("Lines() = %d, want BlankLines() %d + records %d + invalid %d", out.Lines, out.Blank, records, invalid)
	}
	return out, final
}

func rec(line int, offset int64, raw string) event {
	return event{Line: line, Offset: offset, Raw: raw, RawLine: raw}
}

func bad(line int, offset int64, column int, err error, rawLine string) event {
	return event{Line: line, Offset: offset, Column: column, Err: err, RawLine: rawLine}
}

const bom = "\xef\xbb\xbf"

type readerTest struct {
	name  string
	input string
	max   int // MaxLineBytes
	want  outcome
}

func readerTests() []readerTest {
	long := `{"a":"` + strings.Repeat("x", 300<<10) + `"}` // longer than the read buffer
	deep := func(n int) string { return strings.Repeat(`{"a":`, n-1) + `{}` + strings.Repeat("}", n-1) }
	return []readerTest{
		{name: "empty input", input: "", want: outcome{Events: []event{}}},
		{name: "one record", input: "{\"a\":1}\n", want: outcome{Events: []event{rec(1, 0, `{"a":1}`)}, Lines: 1}},
		{name: "missing final newline", input: "{\"a\":1}\n{\"b\":2}",
			want: outcome{Events: []event{rec(1, 0, `{"a":1}`), rec(2, 8, `{"b":2}`)}, Lines: 2}},
		{name: "CRLF", input: "{\"a\":1}\r\n{\"b\":2}\r\n",
			want: outcome{Events: []event{
				{Line: 1, Offset: 0, Raw: `{"a":1}`, RawLine: "{\"a\":1}\r"},
				{Line: 2, Offset: 9, Raw: `{"b":2}`, RawLine: "{\"b\":2}\r"},
			}, Lines: 2}},
		{name: "CR without LF is not a line end", input: "{\"a\":1}\r{\"b\":2}\n",
			want: outcome{Events: []event{bad(1, 0, 9, ErrSyntax, "{\"a\":1}\r{\"b\":2}")}, Lines: 1}},
		{name: "CR at the end of the input stays", input: "{\"a\":1}\r",
			want: outcome{Events: []event{{Line: 1, Raw: "{\"a\":1}\r", RawLine: "{\"a\":1}\r"}}, Lines: 1}},
		{name: "BOM", input: bom + "{\"a\":1}\n{\"b\":2}\n",
			want: outcome{Events: []event{rec(1, 3, `{"a":1}`), rec(2, 11, `{"b":2}`)}, Lines: 2}},
		{name: "BOM and CRLF", input: bom + "{}\r\n{}",
			want: outcome{Events: []event{{Line: 1, Offset: 3, Raw: "{}", RawLine: "{}\r"}, rec(2, 7, "{}")}, Lines: 2}},
		{name: "lone BOM", input: bom, want: outcome{Events: []event{}}},
		{name: "BOM then blank line", input: bom + "\n", want: outcome{Events: []event{}, Lines: 1, Blank: 1}},
		{name: "BOM on an invalid first line", input: bom + "[1]\n",
			want: outcome{Events: []event{bad(1, 3, 1, ErrNotObject, "[1]")}, Lines: 1}},
		{name: "BOM on the second line", input: "{}\n" + bom + "{}\n",
			want: outcome{Events: []event{rec(1, 0, "{}"), bad(2, 3, 1, ErrSyntax, bom+"{}")}, Lines: 2}},
		{name: "two BOMs", input: bom + bom + "{}",
			want: outcome{Events: []event{bad(1, 3, 1, ErrSyntax, bom+"{}")}, Lines: 1}},
		{name: "partial BOM", input: "\xef\xbb{}",
			want: outcome{Events: []event{bad(1, 0, 1, ErrInvalidUTF8, "\xef\xbb{}")}, Lines: 1}},
		{name: "blank lines", input: "\n \n\t\r\n\r\n{}\n\n \r \t\n{}",
			want: outcome{Events: []event{rec(5, 8, "{}"), rec(8, 17, "{}")}, Lines: 8, Blank: 6}},
		{name: "only a space", input: " ", want: outcome{Events: []event{}, Lines: 1, Blank: 1}},
		{name: "only newlines", input: "\n\n\n", want: outcome{Events: []event{}, Lines: 3, Blank: 3}},
		{name: "form feed is not blank", input: "\f\n",
			want: outcome{Events: []event{bad(1, 0, 1, ErrSyntax, "\f")}, Lines: 1}},
		{name: "line and paragraph separators inside strings", input: "{\"a\":\"x\u2028y\"}\n{\"b\":\"\u2029\"}\n",
			want: outcome{Events: []event{rec(1, 0, "{\"a\":\"x\u2028y\"}"), rec(2, 14, "{\"b\":\"\u2029\"}")}, Lines: 2}},
		{name: "invalid lines in between", input: "{\"a\":1}\n{\"a\":1,}\n{\"a\" 1}\n{}\n",
			want: outcome{Events: []event{
				rec(1, 0, `{"a":1}`),
				bad(2, 8, 8, ErrSyntax, `{"a":1,}`),
				bad(3, 17, 6, ErrSyntax, `{"a" 1}`),
				rec(4, 25, "{}"),
			}, Lines: 4}},
		{name: "invalid line at the end without newline", input: "{}\n{\"a\":",
			want: outcome{Events: []event{rec(1, 0, "{}"), bad(2, 3, 6, ErrSyntax, `{"a":`)}, Lines: 2}},
		{name: "not objects", input: "[1]\n\"s\"\n12\nnull\n {}\n",
			want: outcome{Events: []event{
				bad(1, 0, 1, ErrNotObject, "[1]"),
				bad(2, 4, 1, ErrNotObject, `"s"`),
				bad(3, 8, 1, ErrNotObject, "12"),
				bad(4, 11, 1, ErrNotObject, "null"),
				rec(5, 16, " {}"),
			}, Lines: 5}},
		{name: "duplicate names", input: "{\"a\":1,\"a\":2}\n{\"x\":{\"b\":1,\"b\":2}}\n{\"a\":1,\"\\u0061\":2}\n{\"a\":{\"a\":1}}\n",
			want: outcome{Events: []event{
				bad(1, 0, 8, ErrDuplicateName, `{"a":1,"a":2}`),
				bad(2, 14, 13, ErrDuplicateName, `{"x":{"b":1,"b":2}}`),
				bad(3, 34, 8, ErrDuplicateName, `{"a":1,"\u0061":2}`),
				rec(4, 53, `{"a":{"a":1}}`),
			}, Lines: 4}},
		{name: "invalid UTF-8", input: "{\"a\":\"\xff\"}\n{\"a\":1}\xc3\n{\"a\":\"\xc3\xa9\"}\n",
			want: outcome{Events: []event{
				bad(1, 0, 7, ErrInvalidUTF8, "{\"a\":\"\xff\"}"),
				bad(2, 10, 8, ErrInvalidUTF8, "{\"a\":1}\xc3"),
				rec(3, 19, "{\"a\":\"\xc3\xa9\"}"),
			}, Lines: 3}},
		{name: "depth", input: deep(MaxDepth) + "\n" + deep(MaxDepth+1) + "\n{}",
			want: outcome{Events: []event{
				rec(1, 0, deep(MaxDepth)),
				bad(2, int64(len(deep(MaxDepth))+1), MaxDepth*5+1, ErrTooDeep, deep(MaxDepth+1)),
				rec(3, int64(len(deep(MaxDepth))+len(deep(MaxDepth+1))+2), "{}"),
			}, Lines: 3}},

		{name: "line longer than the limit", max: 10, input: "{\"a\":\"xxxxx\"}\n{\"b\":1}\n",
			want: outcome{Events: []event{bad(1, 0, 0, ErrLineTooLong, `{"a":"xxxx`), rec(2, 14, `{"b":1}`)}, Lines: 2}},
		{name: "line one byte over the limit", max: 10, input: "{\"a\":\"xxx\"}\n{}",
			want: outcome{Events: []event{bad(1, 0, 0, ErrLineTooLong, `{"a":"xxx"`), rec(2, 12, `{}`)}, Lines: 2}},
		{name: "line at the limit", max: 10, input: "{\"a\":\"xx\"}\n{\"a\":\"xx\"}\r\n{\"a\":\"xx\"}",
			want: outcome{Events: []event{
				rec(1, 0, `{"a":"xx"}`),
				{Line: 2, Offset: 11, Raw: `{"a":"xx"}`, RawLine: "{\"a\":\"xx\"}\r"},
				rec(3, 23, `{"a":"xx"}`),
			}, Lines: 3}},
		{name: "line at the limit with a CR but no LF", max: 10, input: "{\"a\":\"xx\"}\r",
			want: outcome{Events: []event{bad(1, 0, 0, ErrLineTooLong, `{"a":"xx"}`)}, Lines: 1}},
		{name: "blank line longer than the limit", max: 2, input: "   \n{}\n",
			want: outcome{Events: []event{bad(1, 0, 0, ErrLineTooLong, "  "), rec(2, 4, "{}")}, Lines: 2}},
		{name: "long line read whole", input: long + "\n{}\n",
			want: outcome{Events: []event{rec(1, 0, long), rec(2, int64(len(long)+1), "{}")}, Lines: 2}},
		{name: "long line with CRLF at the limit", max: len(long), input: long + "\r\n" + long,
			want: outcome{Events: []event{
				{Line: 1, Offset: 0, Raw: long, RawLine: long + "\r"},
				rec(2, int64(len(long)+2), long),
			}, Lines: 2}},
		{name: "long line over the limit", max: 200 << 10, input: "{}\n" + long + "\r\n{}\n" + long,
			want: outcome{Events: []event{
				rec(1, 0, "{}"),
				bad(2, 3, 0, ErrLineTooLong, long[:200<<10]),
				rec(3, int64(len(long)+5), "{}"),
				bad(4, int64(len(long)+8), 0, ErrLineTooLong, long[:200<<10]),
			}, Lines: 4}},
		{name: "long line one byte over the limit", max: len(long) - 1, input: long + "\r\n{}",
			want: outcome{Events: []event{bad(1, 0, 0, ErrLineTooLong, long[:len(long)-1]), rec(2, int64(len(long)+2), "{}")}, Lines: 2}},
		{name: "long invalid line", input: long[:len(long)-1] + "\n{}",
			want: outcome{Events: []event{bad(1, 0, len(long), ErrSyntax, long[:len(long)-1]), rec(2, int64(len(long)), "{}")}, Lines: 2}},
	}
}

func TestReader(t *testing.T) {
	// Each input is also fed in odd pieces, to catch any dependence on how
	// the underlying reader splits it.
	feeds := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte at a time", iotest.OneByteReader},
		{"half reads", iotest.HalfReader},
		{"data with EOF", iotest.DataErrReader},
	}
	for _, tt := range readerTests() {
		for _, feed := range feeds {
			if feed.name == "one byte at a time" && len(tt.input) > 100_000 {
				continue // too slow to be worth it
			}
			t.Run(tt.name+"/"+feed.name, func(t *testing.T) {
				r := NewReader(feed.wrap(strings.NewReader(tt.input)))
				r.MaxLineBytes = tt.max
				got, err := readAll(t, r)
				if err != nil {
					t.Fatalf("read error: %v", err)
				}
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateErrors()); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestReaderErrorMessage checks what a caller prints for an invalid line.
func TestReaderErrorMessage(t *testing.T) {
	tests := []struct {
		name  string
		input string
		max   int
		want  string
	}{
		{"syntax", "{}\n\n{\"a\":1, \"b\":x}\n", 0, "line 3, column 13: invalid JSON: invalid character 'x' looking for beginning of value"},
		{"not an object", "[]", 0, "line 1, column 1: not a JSON object: array"},
		{"too long", "{}\n{\"a\":\"abc\"}\r\n", 5, "line 2: line too long: 11 bytes, limit 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.input))
			r.MaxLineBytes = tt.max
			var err error
			for err == nil {
				_, err = r.Read()
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// failingReader returns data, then err once, then io.EOF: a Reader that
// does not hold on to the error would take what it read for the whole input.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		err := f.err
		f.err = io.EOF
		return 0, err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReaderReadError(t *testing.T) {
	errDisk := errors.New("disk on fire")
	long := strings.Repeat(" ", 300<<10)
	tests := []struct {
		name    string
		data    string
		max     int
		want    outcome
		wantMsg string
	}{
		{"at once", "", 0, outcome{Events: []event{}}, "reading line 1: disk on fire"},
		{"inside a possible BOM", "\xef\xbb", 0, outcome{Events: []event{}}, "reading line 1: disk on fire"},
		{"after a BOM", bom, 0, outcome{Events: []event{}}, "reading line 1: disk on fire"},
		{"after full lines", "{}\n\n[]\n", 0,
			outcome{Events: []event{rec(1, 0, "{}"), bad(3, 4, 1, ErrNotObject, "[]")}, Lines: 3, Blank: 1},
			"reading line 4: disk on fire"},
		{"inside a line", "{}\n{\"a\":", 0,
			outcome{Events: []event{rec(1, 0, "{}")}, Lines: 1}, "reading line 2: disk on fire"},
		{"inside a long line", "{}\n" + long, 0,
			outcome{Events: []event{rec(1, 0, "{}")}, Lines: 1}, "reading line 2: disk on fire"},
		{"inside a line over the limit", "{}\n" + long, 10,
			outcome{Events: []event{rec(1, 0, "{}")}, Lines: 1}, "reading line 2: disk on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(&failingReader{data: []byte(tt.data), err: errDisk})
			r.MaxLineBytes = tt.max
			got, err := readAll(t, r)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !errors.Is(err, errDisk) {
				t.Fatalf("final error %v does not wrap %v", err, errDisk)
			}
			var pe *ParseError
			if errors.As(err, &pe) {
				t.Errorf("read error %v is a *ParseError", err)
			}
			if diff := cmp.Diff(tt.wantMsg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if _, again := r.Read(); again != err { // the reader returns io.EOF by now
				t.Errorf("second Read = %v, want the same error %v", again, err)
			}
			if r.RawLine() != nil {
				t.Errorf("RawLine() = %q after a read error, want nil", r.RawLine())
			}
		})
	}
}

func TestReaderEOFIsFinal(t *testing.T) {
	r := NewReader(strings.NewReader("{}"))
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if rec, err := r.Read(); rec != nil || err != io.EOF {
			t.Fatalf("Read %d after the end = %v, %v; want nil, io.EOF", i, rec, err)
		}
	}
}

// TestReaderMembers checks that a record's members come through the Reader
// as the Parser gives them, also when the line straddles read buffers.
func TestReaderMembers(t *testing.T) {
	line := ledgerLine(3)
	want := []member{
		{"type", `"attempt"`, String, false},
		{"operationId", `"op-00000003"`, String, false},
		{"attemptId", `"att-00000003-2"`, String, false},
		{"idempotencyKey", `"key-00000003"`, String, false},
		{"scope", `"stripe"`, String, false},
		{"payloadHash", fmt.Sprintf(`"sha256:%x"`, sha256.Sum256([]byte("3"))), String, false},
		{"result", `"timeout"`, String, false},
		{"observedAt", `"2026-11-29T10:00:03.123Z"`, String, false},
		{"attempt", `2`, Number, false},
		{"meta", `{"tool":"x"}`, Object, false},
	}
	pad := strings.Repeat("\n", bufferSize-len(line)/2) // puts the line across the first buffer's end
	r := NewReader(strings.NewReader(pad + line + "\n"))
	got, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, members(got.Members)); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
}

func TestReaderAllocations(t *testing.T) {
	var stream bytes.Buffer
	for i := range 1000 {
		stream.WriteString(ledgerLine(i))
		stream.WriteByte('\n')
	}
	data := stream.Bytes()
	src := bytes.NewReader(data)
	r := NewReader(src)
	for range 10 { // warm up the scratch space
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(500, func() {
		if _, err := r.Read(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Read allocates %v times per record, want 0", allocs)
	}
}

// TestBlank checks the exported blank-line rule that line splitters outside
// the Reader share with it.
func TestBlank(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"", true},
		{" ", true},
		{" \t\r \r", true},
		{"\f", false},
		{"\n", false}, // a line never holds its LF
		{" {}", false},
		{"\u00a0", false},
		{bom, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.line), func(t *testing.T) {
			if got := Blank([]byte(tt.line)); got != tt.want {
				t.Errorf("Blank(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

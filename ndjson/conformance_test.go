package ndjson

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// conformanceFiles returns the JSONTestSuite test_parsing files whose names
// start with prefix, by name and content, skipping the test if the shared
// conformance data is not there.
func conformanceFiles(t *testing.T, prefix string) (names []string, data map[string][]byte) {
	t.Helper()
	root := filepath.Join("..", "..", "shared", "conformance")
	dir := filepath.Join(root, "JSONTestSuite", "test_parsing")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("../shared/conformance not found; conformance tests skipped")
	}
	if err != nil {
		t.Fatal(err)
	}
	data = map[string][]byte{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name())
		data[e.Name()] = b
	}
	if len(names) == 0 {
		t.Fatalf("no %s files in %s", prefix, dir)
	}
	slices.Sort(names)
	return names, data
}

// readStream reads data with a fresh Reader.
func readStream(t *testing.T, data []byte) outcome {
	t.Helper()
	got, err := readAll(t, NewReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatalf("read error: %v", err)
	}
	return got
}

// TestConformanceInvalid feeds every n_ file whole: each must give at least
// one error naming its line, and no record. Three files hold no JSON text at
// all, which as NDJSON is not an error: n_structure_no_data.json (0 bytes)
// is an empty stream, n_single_space.json one blank line, and
// n_structure_UTF8_BOM_no_data.json a lone byte order mark, skipped like any
// other at the start of an input, leaving an empty stream.
func TestConformanceInvalid(t *testing.T) {
	names, data := conformanceFiles(t, "n_")
	empty := map[string]outcome{
		"n_structure_no_data.json":          {Events: []event{}},
		"n_single_space.json":               {Events: []event{}, Lines: 1, Blank: 1},
		"n_structure_UTF8_BOM_no_data.json": {Events: []event{}},
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			got := readStream(t, data[name])
			if want, ok := empty[name]; ok {
				if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			if len(got.Events) == 0 {
				t.Fatalf("no error; %d lines, %d blank", got.Lines, got.Blank)
			}
			for _, e := range got.Events {
				if e.Err == nil {
					t.Errorf("line %d: accepted record %q", e.Line, e.Raw)
					continue
				}
				msg := (&ParseError{Line: e.Line, Column: e.Column, Err: e.Err}).Error()
				if e.Line < 1 || e.Line > got.Lines || !strings.HasPrefix(msg, fmt.Sprintf("line %d", e.Line)) {
					t.Errorf("error %q does not name its line", msg)
				}
			}
		})
	}
}

// TestConformanceDeep checks that nesting far beyond MaxDepth ends in an
// error, not a stack overflow.
func TestConformanceDeep(t *testing.T) {
	_, data := conformanceFiles(t, "n_structure_")
	for _, name := range []string{"n_structure_100000_opening_arrays.json", "n_structure_open_array_object.json"} {
		t.Run(name, func(t *testing.T) {
			want := outcome{Events: []event{bad(1, 0, MaxDepth+1, ErrTooDeep, "")}, Lines: 1}
			if name == "n_structure_open_array_object.json" {
				// [{"": repeated: the 513th bracket is the 257th [.
				want.Events[0].Column = 256*5 + 1
			}
			got := readStream(t, data[name])
			if len(got.Events) == 1 {
				got.Events[0].RawLine = ""
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// yLine puts a y_ file on one line, as the conformance README says: its only
// LFs are white space between tokens.
func yLine(b []byte) []byte { return bytes.ReplaceAll(b, []byte{'\n'}, []byte{' '}) }

// yWant is what a y_ file on one line must give: valid JSON that is an
// object is a record, any other value a not-an-object error. Two y_object
// files are valid JSON with a duplicated name, which a ledger forbids.
func yWant(name string) error {
	switch {
	case name == "y_object_duplicated_key.json", name == "y_object_duplicated_key_and_value.json":
		return ErrDuplicateName
	case strings.HasPrefix(name, "y_object"):
		return nil
	}
	return ErrNotObject
}

// lineResult is the gist of an event: its line and its error, if any.
type lineResult struct {
	Line int
	Err  error
}

func gist(o outcome) []lineResult {
	out := []lineResult{}
	for _, e := range o.Events {
		out = append(out, lineResult{e.Line, e.Err})
	}
	return out
}

func TestConformanceValid(t *testing.T) {
	names, data := conformanceFiles(t, "y_")
	records := 0
	for _, name := range names {
		if yWant(name) == nil {
			records++
		}
		t.Run(name, func(t *testing.T) {
			got := readStream(t, yLine(data[name]))
			want := outcome{Events: []event{{Line: 1, Err: yWant(name)}}, Lines: 1}
			if diff := cmp.Diff(gist(want), gist(got), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if records != 10 {
		t.Errorf("%d y_object files expected to be records, want 10 (12 minus the 2 with duplicated names)", records)
	}
}

// TestConformanceValidStream reads every y_ file, one per line, as one
// stream: line numbers must follow.
func TestConformanceValidStream(t *testing.T) {
	names, data := conformanceFiles(t, "y_")
	var stream bytes.Buffer
	want := outcome{Events: []event{}}
	for i, name := range names {
		stream.Write(yLine(data[name]))
		if i%2 == 0 {
			stream.WriteString("\r\n") // CRLF for some, to be sure it does not matter
		} else {
			stream.WriteString("\n")
		}
		want.Events = append(want.Events, event{Line: i + 1, Err: yWant(name)})
		want.Lines++
	}
	got := readStream(t, stream.Bytes())
	if diff := cmp.Diff(gist(want), gist(got), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.Lines != want.Lines || got.Blank != 0 {
		t.Errorf("%d lines, %d blank; want %d, 0", got.Lines, got.Blank, want.Lines)
	}
}

// TestConformanceLineSeparators checks that U+2028 and U+2029, raw in a
// string, do not end a line.
func TestConformanceLineSeparators(t *testing.T) {
	_, data := conformanceFiles(t, "y_string_u+")
	for _, name := range []string{"y_string_u+2028_line_sep.json", "y_string_u+2029_par_sep.json"} {
		t.Run(name, func(t *testing.T) {
			got := readStream(t, data[name])
			want := outcome{Events: []event{{Line: 1, Err: ErrNotObject}}, Lines: 1}
			if diff := cmp.Diff(gist(want), gist(got), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.Lines != 1 {
				t.Errorf("%d lines, want 1", got.Lines)
			}
		})
	}
}

// TestConformanceImplementationDefined pins what this package makes of the
// i_ files, which a parser may accept or reject: numbers are checked against
// the grammar only, whatever their size; escaped lone surrogates are
// rejected, like any invalid UTF-8 (including UTF-16 text); a BOM at the
// start of the input is skipped. All but two are arrays, so the acceptable
// ones are not-an-object errors. Each file is read twice.
func TestConformanceImplementationDefined(t *testing.T) {
	names, data := conformanceFiles(t, "i_")
	want := map[string]error{
		"i_object_key_lone_2nd_surrogate.json":    ErrLoneSurrogate,
		"i_structure_UTF-8_BOM_empty_object.json": nil,
		"i_structure_500_nested_arrays.json":      ErrNotObject,
	}
	for _, name := range names {
		switch {
		case want[name] != nil || strings.HasPrefix(name, "i_object") || strings.HasPrefix(name, "i_structure_UTF-8_BOM"):
		case strings.HasPrefix(name, "i_number_"):
			want[name] = ErrNotObject
		case strings.Contains(name, "surrogate") && name != "i_string_UTF8_surrogate_U+D800.json":
			want[name] = ErrLoneSurrogate
		default:
			want[name] = ErrInvalidUTF8
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			first := readStream(t, data[name])
			again := readStream(t, data[name])
			sameMessage := cmp.Comparer(func(a, b error) bool {
				return a == nil && b == nil || a != nil && b != nil && a.Error() == b.Error()
			})
			if diff := cmp.Diff(first, again, sameMessage); diff != "" {
				t.Errorf("second read differs (-first +second):\n%s", diff)
			}
			if diff := cmp.Diff([]lineResult{{1, want[name]}}, gist(first), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestConformanceOTLP reads the OTLP data: the JSON Lines file is four
// records; the pretty-printed documents, read as NDJSON, are fragments, an
// error on every non-blank line.
func TestConformanceOTLP(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "conformance", "otlp")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/conformance not found; conformance tests skipped")
	}
	for _, name := range []string{"specification-file-exporter-traces.jsonl", "opentelemetry-proto-examples-trace.json", "countconnector-traces-input.json"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			got := readStream(t, b)
			want := []lineResult{}
			for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				switch {
				case strings.HasSuffix(name, ".jsonl"):
					want = append(want, lineResult{i + 1, nil})
				case strings.TrimSpace(line) != "":
					want = append(want, lineResult{i + 1, ErrSyntax})
				}
			}
			// Every fragment here ("{", `"name": [`, "},") is a syntax
			// error; none happens to be a complete value.
			if diff := cmp.Diff(want, gist(got), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

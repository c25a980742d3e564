package canon

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// conformanceDir is the shared third-party conformance data, relative to
// this package directory.
var conformanceDir = filepath.Join("..", "..", "shared", "conformance")

func conformancePath(t *testing.T, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{conformanceDir}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("conformance data not available (%v); it is expected at %s", err, p)
	}
	return p
}

func TestJCSConformance(t *testing.T) {
	dir := conformancePath(t, "jcs")
	// SHA-256 of output/X.json, from the conformance README.
	tests := []struct {
		name string
		hash string
	}{
		{"arrays", "099601b171cafed97c333f8878d68e7f8c8f795412adb34b2fdcf0e7c7beac42"},
		{"french", "d99d0ebdcb0033cb858cfa830ae46bc0fb3309413b271f1da828c89901a27ed5"},
		{"structures", "605f65004ec2db7692522a0852c22f1c989e036d547e88963d1a3143cf3195d5"},
		{"unicode", "0d99aad92a125196ff887876643fd3206786a84ddce2cee52ba4ad256d2381d3"},
		{"values", "2d5e01a318d0f0879ab568c4be289c8b1f64ef8921a53c6277d5e069978baacb"},
		{"weird", "6af595a9aa80110b964b4de3f82a05fa6ae7423005019bacfa2620dddc4e94d1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, "input", tt.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "output", tt.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Canonicalize(in, nil)
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("canonical form mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff("sha256:"+tt.hash, Hash(got)); diff != "" {
				t.Errorf("Hash mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

type numberVector struct {
	line int
	bits uint64
	want string
}

func readNumberVectors(t *testing.T) []numberVector {
	t.Helper()
	f, err := os.Open(conformancePath(t, "jcs", "numbers", "es6testfile10k.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []numberVector
	sc := bufio.NewScanner(f) // lines are under 64 bytes
	for n := 1; sc.Scan(); n++ {
		hexBits, want, ok := strings.Cut(sc.Text(), ",")
		if !ok {
			t.Fatalf("line %d: no comma in %q", n, sc.Text())
		}
		bits, err := strconv.ParseUint(hexBits, 16, 64)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		vs = append(vs, numberVector{line: n, bits: bits, want: want})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 10000 {
		t.Fatalf("read %d vectors, want 10000", len(vs))
	}
	return vs
}

func TestES6NumberVectors(t *testing.T) {
	vs := readNumberVectors(t)
	failures := 0
	for _, v := range vs {
		f := math.Float64frombits(v.bits)
		got := string(appendNumber(nil, f))
		if got != v.want {
			failures++
			if failures <= 20 {
				t.Errorf("line %d: bits %016x: got %q, want %q", v.line, v.bits, got, v.want)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d vectors failed", failures, len(vs))
	}
}

// TestES6NumberVectorsThroughCanonicalize feeds a sample of the vectors as
// JSON text (Go's shortest 'g' form) through the whole pipeline.
func TestES6NumberVectorsThroughCanonicalize(t *testing.T) {
	vs := readNumberVectors(t)
	for i := 0; i < len(vs); i += 97 {
		v := vs[i]
		text := strconv.FormatFloat(math.Float64frombits(v.bits), 'g', -1, 64)
		got, err := Canonicalize([]byte(" "+text+"\n"), nil)
		if err != nil {
			t.Errorf("line %d: Canonicalize(%s): %v", v.line, text, err)
			continue
		}
		if string(got) != v.want {
			t.Errorf("line %d: Canonicalize(%s) = %q, want %q", v.line, text, got, v.want)
		}
	}
}

// ijsonRejected lists the implementation-defined JSONTestSuite files that
// are not I-JSON, with the sentinel each must be rejected with. The UTF-16
// files fail on their first byte, before any string is read, so they are
// syntax errors.
var ijsonRejected = map[string]error{
	// Overflow to ±Inf.
	"i_number_huge_exp.json":            ErrNotIJSON,
	"i_number_neg_int_huge_exp.json":    ErrNotIJSON,
	"i_number_pos_double_huge_exp.json": ErrNotIJSON,
	"i_number_real_neg_overflow.json":   ErrNotIJSON,
	"i_number_real_pos_overflow.json":   ErrNotIJSON,
	// Lone or inverted surrogate escapes.
	"i_object_key_lone_2nd_surrogate.json":                ErrNotIJSON,
	"i_string_1st_surrogate_but_2nd_missing.json":         ErrNotIJSON,
	"i_string_1st_valid_surrogate_2nd_invalid.json":       ErrNotIJSON,
	"i_string_incomplete_surrogate_and_escape_valid.json": ErrNotIJSON,
	"i_string_incomplete_surrogate_pair.json":             ErrNotIJSON,
	"i_string_incomplete_surrogates_escape_valid.json":    ErrNotIJSON,
	"i_string_invalid_lonely_surrogate.json":              ErrNotIJSON,
	"i_string_invalid_surrogate.json":                     ErrNotIJSON,
	"i_string_inverted_surrogates_U+1D11E.json":           ErrNotIJSON,
	"i_string_lone_second_surrogate.json":                 ErrNotIJSON,
	// Invalid UTF-8 inside a string.
	"i_string_UTF-8_invalid_sequence.json":         ErrNotIJSON,
	"i_string_UTF8_surrogate_U+D800.json":          ErrNotIJSON,
	"i_string_invalid_utf-8.json":                  ErrNotIJSON,
	"i_string_iso_latin_1.json":                    ErrNotIJSON,
	"i_string_lone_utf8_continuation_byte.json":    ErrNotIJSON,
	"i_string_not_in_unicode_range.json":           ErrNotIJSON,
	"i_string_overlong_sequence_2_bytes.json":      ErrNotIJSON,
	"i_string_overlong_sequence_6_bytes.json":      ErrNotIJSON,
	"i_string_overlong_sequence_6_bytes_null.json": ErrNotIJSON,
	"i_string_truncated-utf-8.json":                ErrNotIJSON,
	// UTF-16 encodings.
	"i_string_UTF-16LE_with_BOM.json": ErrNotJSON,
	"i_string_utf16BE_no_BOM.json":    ErrNotJSON,
	"i_string_utf16LE_no_BOM.json":    ErrNotJSON,
}

// ijsonAccepted lists the implementation-defined files this package accepts,
// with the canonical form: underflow and big integers become the nearest
// double, a leading BOM is skipped, 500 levels are within MaxDepth.
var ijsonAccepted = map[string]string{
	"i_number_double_huge_neg_exp.json":       "[0]",
	"i_number_real_underflow.json":            "[0]",
	"i_number_too_big_neg_int.json":           "[-1.2312312312312312e+29]",
	"i_number_too_big_pos_int.json":           "[100000000000000000000]",
	"i_number_very_big_negative_int.json":     "[-2.374623746732769e+47]",
	"i_structure_UTF-8_BOM_empty_object.json": "{}",
	"i_structure_500_nested_arrays.json":      strings.Repeat("[", 500) + strings.Repeat("]", 500),
}

// ijsonDuplicates are valid JSON but not I-JSON.
var ijsonDuplicates = map[string]bool{
	"y_object_duplicated_key.json":           true,
	"y_object_duplicated_key_and_value.json": true,
}

func TestJSONTestSuite(t *testing.T) {
	dir := conformancePath(t, "JSONTestSuite", "test_parsing")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Canonicalize(data, nil)
			var wantErr error
			wantOut, accept := "", false
			switch {
			case ijsonDuplicates[name]:
				wantErr = ErrNotIJSON
			case strings.HasPrefix(name, "n_"):
				if err == nil {
					t.Fatalf("accepted invalid JSON, output %q", got)
				}
				if !errors.Is(err, ErrNotJSON) && !errors.Is(err, ErrNotIJSON) {
					t.Fatalf("error %v wraps neither ErrNotJSON nor ErrNotIJSON", err)
				}
				return
			case strings.HasPrefix(name, "y_"):
				accept = true
			case ijsonRejected[name] != nil:
				wantErr = ijsonRejected[name]
			default:
				out, ok := ijsonAccepted[name]
				if !ok {
					t.Fatalf("implementation-defined file not classified in the test")
				}
				wantOut, accept = out, true
			}
			if accept {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				if wantOut != "" {
					if diff := cmp.Diff(wantOut, string(got)); diff != "" {
						t.Errorf("canonical form mismatch (-want +got):\n%s", diff)
					}
				}
				again, err := Canonicalize(got, nil)
				if err != nil || !bytes.Equal(again, got) {
					t.Errorf("canonical form %q is not a fixed point: %q, %v", got, again, err)
				}
				return
			}
			if !errors.Is(err, wantErr) {
				t.Fatalf("got error %v (output %q), want one wrapping %v", err, got, wantErr)
			}
		})
	}
	for name := range ijsonRejected {
		if !seen[name] {
			t.Errorf("listed file %s missing from %s", name, dir)
		}
	}
	for name := range ijsonAccepted {
		if !seen[name] {
			t.Errorf("listed file %s missing from %s", name, dir)
		}
	}
}

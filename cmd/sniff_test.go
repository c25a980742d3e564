package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"testing"

	"github.com/effectaudit/effectaudit/fieldmap"
	"github.com/effectaudit/effectaudit/ndjson"
	"github.com/effectaudit/effectaudit/otlp"
)

// FuzzIsOTLP holds auto-detection to what SPEC lets it do: it never takes a
// line with a type or an operationId for an OTLP export, and it refuses an
// input as binary only when no line after the first is a record or an
// export.
func FuzzIsOTLP(f *testing.F) {
	for _, seed := range []string{
		`{"resourceSpans":[]}` + "\n",
		`{"type":"attempt","operationId":"o","resourceSpans":[]}` + "\n",
		"\x0c{\"type\":\"effect\"}\n{\"type\":\"effect\",\"operationId\":\"o\",\"effectRef\":\"r\"}\n",
		"\n\x0a\x02\x0a\x00binary\n",
		"\xef\xbb\xbf \r\n{\"resourceSpans\":null}",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{"auto", "ndjson", "otlp"} {
			isOTLP, err := isOTLP(bufio.NewReaderSize(bytes.NewReader(data), otlpSniffBytes), format, recordMarks(nil))
			if format == "ndjson" && (isOTLP || err != nil) {
				t.Fatalf("ndjson: isOTLP = %v, %v", isOTLP, err)
			}
			if format != "auto" {
				continue
			}
			lines := bytes.Split(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), []byte("\n"))
			var first int
			for first < len(lines) && ndjson.Blank(bytes.TrimRight(lines[first], "\r")) {
				first++
			}
			if first == len(lines) {
				if isOTLP || err != nil {
					t.Fatalf("blank input: isOTLP = %v, %v", isOTLP, err)
				}
				continue
			}
			// A first line longer than the sniffed prefix is judged by how
			// it starts (see otlp.LooksLong), not parsed whole.
			var p ndjson.Parser
			if members, perr := p.Parse(bytes.TrimRight(lines[first], "\r")); perr == nil && isOTLP && !otlp.Looks(members) &&
				len(lines[first]) < otlpSniffBytes {
				t.Fatalf("a first line without resourceSpans, or with a type or operationId, taken for OTLP: %q", lines[first])
			}
			if errors.Is(err, otlp.ErrBinary) && len(data) < otlpSniffBytes {
				for _, l := range lines[first+1:] {
					members, perr := p.Parse(bytes.TrimRight(l, "\r"))
					if perr != nil {
						continue
					}
					for _, m := range members {
						if name := string(m.Name); name == "type" || name == "operationId" || name == "resourceSpans" {
							t.Fatalf("refused as binary, yet line %q is a record or an export", l)
						}
					}
				}
			}
		}
	})
}

func TestHoldsRecord(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		whole bool
		want  bool
	}{
		{"a record", `{"type":"effect","operationId":"o","effectRef":"r"}` + "\n", false, true},
		{"a record after CRLF lines", "garbage\r\n" + `{"operationId":"o"}` + "\r\n", false, true},
		{"an OTLP export", `{"resourceSpans":[]}` + "\n", false, true},
		{"an object of protobuf bytes", "\t{\"a\":\"b\"}\n\x00\x12", true, false},
		{"a last line that may be cut short", `{"type":"effect"}`, false, false},
		{"a last line that is all of the input", `{"type":"effect"}`, true, true},
		{"nothing", "", true, false},
		{"a record mapped from elsewhere", `{"kind":"effect","o":{"id":"x"}}` + "\n", false, true},
		{"an object of neither", `{"a":1}` + "\n", true, false},
	}
	fields, err := fieldmap.Parse([]string{"type=kind", "operationId=o.id"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := holdsRecord([]byte(tt.lines), tt.whole, recordMarks(fields)); got != tt.want {
				t.Errorf("holdsRecord(%q, %v) = %v, want %v", tt.lines, tt.whole, got, tt.want)
			}
		})
	}
}

package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/effectaudit/effectaudit/fieldmap"
	"github.com/effectaudit/effectaudit/ndjson"
	"github.com/effectaudit/effectaudit/otlp"
)

// FuzzIsOTLP holds auto-detection to what SPEC lets it do: it never takes a
// line with a type or an operationId for an OTLP export, it refuses an
// input as binary only when no line after the first is a record or an
// export, and never refuses lines that are each braces around any bytes
// (a ledger's bad lines).
func FuzzIsOTLP(f *testing.F) {
	for _, seed := range []string{
		`{"resourceSpans":[]}` + "\n",
		`{"resourceMetrics":[]}` + "\n" + `{"resourceSpans":[]}` + "\n",
		`{"type":"attempt","operationId":"o","resourceSpans":[]}` + "\n",
		"\x0c{\"type\":\"effect\"}\n{\"type\":\"effect\",\"operationId\":\"o\",\"effectRef\":\"r\"}\n",
		"\n\x0a\x02\x0a\x00binary\n",
		"\xef\xbb\xbf \r\n{\"resourceSpans\":null}",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var braced []byte
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			braced = append(append(append(append(braced, '{'), line...), '}'), '\n')
		}
		if _, err := isOTLP(bufio.NewReaderSize(bytes.NewReader(braced), sniffPeekBytes), "auto", recordMarks(nil)); err != nil {
			t.Fatalf("lines of braces around text refused: %v: %q", err, braced)
		}
		for _, format := range []string{"auto", "ndjson", "otlp"} {
			isOTLP, err := isOTLP(bufio.NewReaderSize(bytes.NewReader(data), sniffPeekBytes), format, recordMarks(nil))
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
				t.Fatalf("a first line without an export's member, or with a type or operationId, taken for OTLP: %q", lines[first])
			}
			if errors.Is(err, otlp.ErrBinary) && len(data) < otlpSniffBytes {
				for _, l := range lines[first+1:] {
					members, perr := p.Parse(bytes.TrimRight(l, "\r"))
					if perr != nil {
						continue
					}
					for _, m := range members {
						if name := string(m.Name); name == "type" || name == "operationId" || name == "resourceSpans" ||
							name == "resourceMetrics" || name == "resourceLogs" {
							t.Fatalf("refused as binary, yet line %q is a record or an export", l)
						}
					}
				}
			}
		}
	})
}

func TestNextKind(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		whole bool
		want  lineKind
	}{
		{"a record", `{"type":"effect","operationId":"o","effectRef":"r"}` + "\n", false, recordLine},
		{"a record after CRLF lines", "garbage\r\n" + `{"operationId":"o"}` + "\r\n", false, recordLine},
		{"an OTLP export", `{"resourceSpans":[]}` + "\n", false, exportLine},
		{"a record carrying resourceSpans", `{"type":"effect","resourceSpans":[]}` + "\n", false, recordLine},
		{"the first of an export and a record", `{"resourceSpans":[]}` + "\n" + `{"type":"effect"}` + "\n", false, exportLine},
		{"an object of protobuf bytes", "\t{\"a\":\"b\"}\n\x00\x12", true, otherLine},
		{"a last line that may be cut short", `{"type":"effect"}`, false, otherLine},
		{"a last line cut short that starts as an export", `{"resourceSpans":[{"scopeSpans":[`, false, exportLine},
		{"a last line cut short that starts as a record", `{"type":"effect","resourceSpans":[`, false, otherLine},
		{"a last line that is all of the input", `{"type":"effect"}`, true, recordLine},
		{"nothing", "", true, otherLine},
		{"a record mapped from elsewhere", `{"kind":"effect","o":{"id":"x"}}` + "\n", false, recordLine},
		{"an object of neither", `{"a":1}` + "\n", true, otherLine},
		{"a logs export", `{"resourceLogs":[]}` + "\n", false, exportLine},
		{"a last line cut short that starts as a metrics export", `{"resourceMetrics":[{"scopeMetrics":[`, false, exportLine},
	}
	fields, err := fieldmap.Parse([]string{"type=kind", "operationId=o.id"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextKind([]byte(tt.lines), len(tt.lines), tt.whole, recordMarks(fields)); got != tt.want {
				t.Errorf("nextKind(%q, %v) = %v, want %v", tt.lines, tt.whole, got, tt.want)
			}
		})
	}
}

// TestNextKindWindow checks that only the lines that start in the window
// count, whatever follows them.
func TestNextKindWindow(t *testing.T) {
	lines := []byte(`{"a":1}` + "\n" + `{"resourceSpans":[]}` + "\n")
	for window, want := range map[int]lineKind{8: otherLine, 9: exportLine, len(lines): exportLine} {
		if got := nextKind(lines, window, true, recordMarks(nil)); got != want {
			t.Errorf("nextKind(%q, %d) = %v, want %v", lines, window, got, want)
		}
	}
}

// TestIsOTLPAuto pins auto-detection on whole inputs: records, exports,
// bad first lines, and the collector's binary output, whatever its first
// length byte.
func TestIsOTLPAuto(t *testing.T) {
	// A 54-byte ExportTraceServiceRequest: 0x0A (a line feed), then the
	// length 0x34 ("4"), then binary fields.
	request := "\x0a\x34\x0a\x21\x0a\x1f\x0a\x0c\x73\x65\x72\x76\x69\x63\x65\x2e\x6e\x61\x6d\x65\x12\x0f\x0a\x0d" +
		"\x73\x75\x70\x70\x6f\x72\x74\x2d\x61\x67\x65\x6e\x74\x12\x0f\x0a\x0d\x0a\x0b\x61\x67\x65\x6e\x74\x2e\x74\x6f\x6f\x6c\x73"
	export := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"00f067aa0ba902b7"}]}]}]}` + "\n"
	record := `{"type":"effect","operationId":"o","effectRef":"r"}` + "\n"
	long := `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Repeat(`{"spanId":"00f067aa0ba902b7"},`, 3000) + `{}]}]}]}` + "\n"
	tests := []struct {
		name    string
		input   string
		want    bool
		wantErr error
	}{
		{"a ledger", record + record, false, nil},
		{"an export", export + export, true, nil},
		{"blank lines, then an export", "\n \r\n" + export, true, nil},
		{"a record carrying resourceSpans", `{"type":"effect","operationId":"o","resourceSpans":[]}` + "\n", false, nil},
		{"a bad first line, then records", "oops\n" + record, false, nil},
		{"a bad first line, then exports", "oops\n" + export, true, nil},
		{"a bad first line, then an export longer than the prefix", "oops\n" + long, true, nil},
		{"a bad first line, then an export starting in the window's last bytes", strings.Repeat("x", otlpSniffBytes-18) + "\n" + long, true, nil},
		{"a bad first line, then an export starting on the window's last byte", strings.Repeat("x", otlpSniffBytes-2) + "\n" + long, true, nil},
		{"a bad first line filling the window, then an export", strings.Repeat("x", otlpSniffBytes-1) + "\n" + long, false, nil},
		{"bad lines with colour codes, the last cut off mid-write", strings.Repeat("{\"type\":\"attempt\",\"note\":\"\x1b[31mtimeout\x1b[0m\"}\n", 3) + "{\"type\":\"att\x01", false, nil},
		{"a control byte in the look-ahead past the window", strings.Repeat("x", otlpSniffBytes) + "\x01\n", false, nil},
		{"blank lines to the window's end, then a control byte", strings.Repeat("\n", otlpSniffBytes) + "\x01\n", false, nil},
		{"braced lines around control bytes, between blank lines of CRs", "{\"a\":\"\x01\"}\n \r \n\r{\"b\":\"\x02\"}\r\n", false, nil},
		{"lines coloured as a whole", strings.Repeat("\x1b[32m{\"type\":\"attempt\"}\x1b[0m\n", 3), false, nil},
		{"a bad first line, then a record longer than the prefix", "oops\n" + `{"type":"effect","operationId":"o","effectRef":"` + strings.Repeat("r", otlpSniffBytes) + "\"}\n", false, nil},
		{"a first export with a duplicate member, then exports", `{"resourceSpans":[],"resourceSpans":[]}` + "\n" + export, true, nil},
		{"a first export with a lone surrogate, then exports", `{"resourceSpans":[{"x":"\ud800"}]}` + "\n" + export, true, nil},
		{"a first line longer than the prefix, an export", long, true, nil},
		{"a record with resourceSpans first, cut by the prefix", strings.Repeat("\n", otlpSniffBytes-40) +
			`{"resourceSpans":null,"type":"attempt","operationId":"op-1","result":"timeout"}` + "\n", false, nil},
		{"a bad first line alone, like an export", `{"resourceSpans":[},` + "\n", true, nil},
		{"a metrics export, then trace exports (one file exporter, several pipelines)", `{"resourceMetrics":[{"scopeMetrics":[]}]}` + "\n" + export, true, nil},
		{"a logs export alone", `{"resourceLogs":[]}` + "\n", true, nil},
		{"a bad first line, then a metrics export", "oops\n" + `{"resourceMetrics":[]}` + "\n", true, nil},
		{"a first metrics line longer than the prefix", strings.Replace(long, "resourceSpans", "resourceMetrics", 1), true, nil},
		{"a record carrying resourceMetrics", `{"type":"effect","operationId":"o","resourceMetrics":[]}` + "\n", false, nil},
		{"a profiles export (not read)", `{"resourceProfiles":[]}` + "\n", false, nil},
		{"a bad first line alone", "oops\n", false, nil},
		{"a protobuf request whose length is a digit", request, false, otlp.ErrBinary},
		{"a protobuf request whose length is a control byte", "\x0a\x12" + request[2:], false, otlp.ErrBinary},
		{"a length-prefixed request", "\x00\x00\x00\x36" + request, false, otlp.ErrBinary},
		{"a protobuf request, then a record", request + "\n" + record, false, nil},
		{"a control byte on a first line of text, then records", "\x0c{\"type\":\"effect\"}\n" + record, false, nil},
		{"a raw escape in a string, the only line", "{\"type\":\"attempt\",\"note\":\"\x1b[31m\"}\n", false, nil},
		{"raw escapes in strings past the prefix, then records", strings.Repeat("{\"type\":\"attempt\",\"note\":\"\x1b[31m\"}\r\n", 2000) + record, false, nil},
		{"a raw escape in a first line like an export", "{\"resourceSpans\":[{\"x\":\"\x1b\"}]}\n", true, nil},
		{"a protobuf request whose length is a brace", "\x0a\x7b" + request[2:], false, otlp.ErrBinary},
		{"a braced line of binary, then a protobuf request", "{\x02}\n" + request, false, otlp.ErrBinary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := isOTLP(bufio.NewReaderSize(strings.NewReader(tt.input), sniffPeekBytes), "auto", recordMarks(nil))
			if got != tt.want || !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Errorf("isOTLP = %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

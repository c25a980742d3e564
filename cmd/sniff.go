package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/effectaudit/effectaudit/fieldmap"
	"github.com/effectaudit/effectaudit/ndjson"
	"github.com/effectaudit/effectaudit/otlp"
)

// otlpSniffBytes is how much of an input is looked at to tell OTLP/JSON
// from ledger NDJSON, and text from binary: the lines that start in it.
// sniffPeekBytes is how much is read for that: a little more, so that a
// line starting near the end shows enough of itself to be judged by how it
// starts (otlp.LooksLong).
const (
	otlpSniffBytes = 64 << 10
	sniffPeekBytes = otlpSniffBytes + 256
)

// recordMarks returns the top-level members that mark a line as a ledger
// record, one of which every record has: type and operationId, or the first
// segments of the paths --map reads them from.
func recordMarks(fields *fieldmap.Map) []string {
	marks := []string{"type", "operationId"}
	for _, field := range marks[:2] {
		if path, ok := fields.Path(field); ok {
			marks = append(marks, path[0])
		}
	}
	return marks
}

// isOTLP decides whether an input holds OTLP/JSON exports: by --input-format,
// or, for auto, by its first line. It refuses the collector's binary output.
// A line with one of marks as a member is a ledger record (see recordMarks).
func isOTLP(br *bufio.Reader, format string, marks []string) (bool, error) {
	if format == "ndjson" {
		return false, nil
	}
	prefix, err := br.Peek(sniffPeekBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return false, err
	}
	if format == "otlp" {
		return true, otlp.Sniff(prefix)
	}
	// Auto-detection goes by the first non-blank line. When that line is
	// not JSON, the first line after it that is a record or an export
	// decides; when there is none in the prefix either, the input is the
	// collector's binary output if the prefix holds a raw control byte,
	// which no JSON text does (a protobuf export starts with the tag byte
	// 0x0A, a line feed, then a length and binary fields whose tags are
	// mostly control bytes), unless the byte is ESC, which starts the
	// colour codes of text copied from a terminal, or every line is an
	// object's braces around text, as a ledger's bad lines are (a control
	// byte copied raw into a string) and binary fields cut at line feeds
	// are not. A text ledger whose first line is bad has records after it,
	// and that line is an invalid line like any other.
	whole := len(prefix) < sniffPeekBytes // the prefix is the whole input
	line := bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf"))
	for len(line) > 0 {
		first, rest, ended := cutLine(line)
		if ndjson.Blank(first) {
			line = rest
			continue
		}
		var p ndjson.Parser
		if ended || whole {
			if members, err := p.Parse(first); err == nil {
				return otlp.Looks(members) && !hasMember(members, marks), nil
			}
		}
		switch nextKind(rest, otlpSniffBytes-(len(prefix)-len(rest)), whole, marks) {
		case recordLine:
			return false, nil
		case exportLine:
			return true, nil
		}
		binary := func(r rune) bool { return r < 0x20 && r != '\t' && r != '\r' && r != '\n' && r != '\x1b' }
		window := line[:max(0, min(len(line), otlpSniffBytes-(len(prefix)-len(line))))] // not the look-ahead
		if bytes.ContainsFunc(window, binary) && !objectLines(window) {
			return false, errBinaryInput
		}
		// A first line that is bad, or longer than the sniffed prefix,
		// with nothing after it to go by: look at how it starts.
		return otlp.LooksLong(first), nil
	}
	return false, nil
}

// errBinaryInput is auto-detection's verdict on an input with binary bytes
// in its first 64 KiB: most likely the collector's protobuf output, but
// only likely, so the message says how to read it as a ledger anyway (a
// ledger behind a run of NUL bytes, as a log rotation that truncates in
// place can leave, is a ledger still).
var errBinaryInput = fmt.Errorf("binary data, not a text ledger (--input-format ndjson reads it anyway, line by line); if it is an OpenTelemetry export: %w", otlp.ErrBinary)

// lineKind is what a line of JSON is to auto-detection.
type lineKind int

const (
	otherLine  lineKind = iota
	recordLine          // a ledger record: an object with one of the marks
	exportLine          // an OTLP export (otlp.Looks: of traces, metrics or logs), no record
)

// nextKind returns the kind of the first line of lines, the sniffed prefix
// after its first line, that is a ledger record or an OTLP export, or
// otherLine if none is: a JSON object with one of marks as a member, or an
// export's (resourceSpans, resourceMetrics or resourceLogs: see
// otlp.Looks). Any object would not do, since protobuf bytes split at line
// feeds can make a small one. Only lines that start in lines[:window] count.
// When whole says the prefix is not all of the input, its last line may be
// cut short: it counts as an export if it starts as one (otlp.LooksLong),
// and otherwise not at all.
func nextKind(lines []byte, window int, whole bool, marks []string) lineKind {
	var p ndjson.Parser
	for start := 0; len(lines) > 0 && start < window; {
		line, rest, ended := cutLine(lines)
		start += len(lines) - len(rest)
		if !ended && !whole {
			// A line the prefix cuts short, as a collector's export line
			// often is: judged by how it starts.
			if otlp.LooksLong(line) {
				return exportLine
			}
			return otherLine
		}
		if members, err := p.Parse(line); err == nil {
			switch {
			case hasMember(members, marks):
				return recordLine
			case otlp.Looks(members):
				return exportLine
			}
		}
		lines = rest
	}
	return otherLine
}

// cutLine splits b at its first LF: the line before it without a CR that
// ends it, what follows, and whether an LF ended the line at all.
func cutLine(b []byte) (line, rest []byte, ended bool) {
	line, rest, ended = bytes.Cut(b, []byte{'\n'})
	return bytes.TrimRight(line, "\r"), rest, ended
}

// objectLines reports whether every non-blank line of lines, a sniffed
// prefix, starts with '{' and, if a line feed ends it, with '}', ignoring
// white space (CRs too) around them: a last line without one may be cut short, by
// the prefix or by a writer that stopped.
func objectLines(lines []byte) bool {
	objects := 0
	for len(lines) > 0 {
		line, rest, ended := cutLine(lines)
		lines = rest
		if ndjson.Blank(line) {
			continue // as the reader counts it
		}
		line = bytes.Trim(line, " \t\r")
		if line[0] != '{' || ended && (len(line) < 2 || line[len(line)-1] != '}') {
			return false
		}
		objects++
	}
	return objects > 0
}

// hasMember reports whether members has one named any of names.
func hasMember(members []ndjson.Member, names []string) bool {
	for _, m := range members {
		if slices.Contains(names, string(m.Name)) {
			return true
		}
	}
	return false
}

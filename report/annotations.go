package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/effectaudit/effectaudit/audit"
)

// maxAnnotations caps the workflow commands WriteAnnotations writes. GitHub
// turns at most 10 errors, 10 warnings and 10 notices of a step into
// annotations, and 50 of a job; the rest only show in the log. A few more
// than GitHub shows keeps the log useful without flooding it with millions
// of lines; the report lists every operation anyway.
const maxAnnotations = 50

// WriteAnnotations writes GitHub Actions workflow commands that annotate the
// input: "::error" for each operation that fails the gate (see gate.match:
// its label or a finding code is in failOn, the --fail-on list, and with a
// baseline it fails anew), then "::warning" for each other operation
// that is not healthy, each pointing at the operation's first record
// (inputs[op.First.Input], op.First.Line). Errors come first so warnings
// never crowd them out; past maxAnnotations in all, one "::notice" counts
// what was left out. The runner picks the commands out of the step's output
// (standard output or standard error), and links the file only when it is a
// path relative to the repository root.
//
// Input strings are sanitized as on a terminal, cut like in the markdown
// report, and escaped per GitHub's rules, so none can end a command early
// or start a command of its own.
func WriteAnnotations(w io.Writer, rep *audit.Report, inputs []string, failOn []string) error {
	bw := bufio.NewWriterSize(w, bufferSize)
	if err := writeAnnotations(bw, rep, inputs, newGate(failOn)); err != nil {
		return fmt.Errorf("write annotations: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write annotations: %w", err)
	}
	return nil
}

func writeAnnotations(bw *bufio.Writer, rep *audit.Report, inputs []string, g gate) error {
	var buf []byte
	written, failing, warnings := 0, 0, 0
	annotate := func(command string, op *audit.Operation, failedOn string) error {
		buf = appendAnnotation(buf[:0], command, op, failedOn, inputs)
		written++
		_, err := bw.Write(buf)
		return err
	}
	// First pass: the failing operations, and a count of the others.
	err := rep.Operations(func(op *audit.Operation) error {
		name, failed := g.match(op)
		if !failed {
			if op.Label != audit.Healthy {
				warnings++
			}
			return nil
		}
		failing++
		if written == maxAnnotations {
			return nil
		}
		return annotate("error", op, name)
	})
	if err != nil {
		return err
	}
	// Second pass, while there is room: the operations that are not healthy
	// but do not fail the gate.
	if written < maxAnnotations && warnings > 0 {
		err := rep.Operations(func(op *audit.Operation) error {
			if _, failed := g.match(op); failed || op.Label == audit.Healthy {
				return nil
			}
			if written == maxAnnotations {
				return errStop
			}
			return annotate("warning", op, "")
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
	}
	if more := failing + warnings - written; more > 0 {
		moreFailing := failing - min(failing, maxAnnotations)
		msg := fmt.Sprintf("%d more operations not annotated (%d failing the gate, %d not healthy); the report lists every operation",
			more, moreFailing, more-moreFailing)
		buf = append(buf[:0], "::notice title=effectaudit::"...)
		buf = appendCommandData(buf, msg)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// appendAnnotation appends one workflow command, e.g.
//
//	::error file=ledger.ndjson,line=2,title=duplicate%3A op-webhook-77::2 effect observations ...%0Anext action: ...
//
// The title names what failed the gate, failedOn: the label, or a finding
// code, whose message then leads. The file is left out when the input's
// name is "" (unknown, or standard input as the command passes it) or "-"
// (standard input), and the line with it.
func appendAnnotation(buf []byte, command string, op *audit.Operation, failedOn string, inputs []string) []byte {
	buf = append(buf, "::"...)
	buf = append(buf, command...)
	buf = append(buf, ' ')
	if i := op.First.Input; i >= 0 && i < len(inputs) && inputs[i] != "" && inputs[i] != "-" {
		buf = append(buf, "file="...)
		buf = appendCommandProperty(buf, shown(inputs[i]))
		if op.First.Line > 0 {
			buf = append(buf, ",line="...)
			buf = strconv.AppendInt(buf, int64(op.First.Line), 10)
		}
		buf = append(buf, ',')
	}
	msg, byCode := byFinding(op, failedOn)
	buf = append(buf, "title="...)
	if byCode {
		buf = appendCommandProperty(buf, shown(failedOn))
	} else {
		buf = appendCommandProperty(buf, shown(string(op.Label)))
	}
	buf = appendCommandProperty(buf, ": ")
	buf = appendCommandProperty(buf, shown(op.OperationID))
	buf = append(buf, "::"...)
	if byCode {
		buf = appendCommandData(buf, shown(msg))
		buf = appendCommandData(buf, "\n"+string(op.Label)+": ")
	}
	buf = appendCommandData(buf, shown(op.Reason))
	buf = appendCommandData(buf, "\nnext action: ")
	buf = appendCommandData(buf, shown(op.NextAction))
	return append(buf, '\n')
}

// appendCommandData appends s escaped as the message of a workflow command:
// %, CR and LF percent-encoded, as GitHub's toolkit does (escapeData).
func appendCommandData(dst []byte, s string) []byte { return appendPercent(dst, s, false) }

// appendCommandProperty appends s escaped as a property value: like data,
// and also : and , that would end the value (escapeProperty).
func appendCommandProperty(dst []byte, s string) []byte { return appendPercent(dst, s, true) }

func appendPercent(dst []byte, s string, property bool) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch c := s[i]; {
		case c == '%':
			esc = "%25"
		case c == '\r':
			esc = "%0D"
		case c == '\n':
			esc = "%0A"
		case c == ':' && property:
			esc = "%3A"
		case c == ',' && property:
			esc = "%2C"
		default:
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		start = i + 1
	}
	return append(dst, s[start:]...)
}

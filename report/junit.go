package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/effectaudit/effectaudit/audit"
)

// junitPrinter writes the report as JUnit XML, the test-report format GitLab,
// Jenkins and CircleCI render: one <testsuite> with one <testcase> per
// operation, classname the label and name the operationId. An operation that
// fails the gate (Options.FailOn) carries a <failure>; the others pass, with
// their reason in <system-out>.
//
// The document is written by hand, operation by operation, for the reason
// json.go gives. Every string from the input is sanitized as on a terminal
// (the web views are as easy to fool with bidi overrides and escape
// sequences), then escaped for XML; what XML 1.0 cannot hold at all, such as
// U+FFFE, becomes U+FFFD. The output parses as XML whatever the input.
type junitPrinter struct {
	gate gate
}

const junitSuite = "effectaudit"

func (p *junitPrinter) Print(w io.Writer, rep *audit.Report) error {
	if err := p.print(w, rep); err != nil {
		return fmt.Errorf("write junit report: %w", err)
	}
	return nil
}

// junitSummary appends the suite's <system-out>: the summary line the table
// ends with, the findings and how many invalid lines were skipped, which a
// run with --skip-invalid shows nowhere else in this format.
func junitSummary(buf []byte, s *audit.Summary, failures int) []byte {
	buf = append(buf, "    <system-out>"...)
	buf = appendXMLText(buf, summaryLine(s))
	if line := findingsLine(s); line != "" {
		buf = append(buf, '\n')
		buf = appendXMLText(buf, line)
	}
	if n := s.InvalidLines; n > 0 {
		buf = append(buf, '\n')
		buf = appendXMLText(buf, SkippedLine(n))
	}
	if line := baselineLine(s, failures, nil, Sanitize); line != "" {
		buf = append(buf, '\n')
		buf = appendXMLText(buf, line)
	}
	return append(buf, "</system-out>\n"...)
}

func (p *junitPrinter) print(w io.Writer, rep *audit.Report) error {
	// The counts go in the start tags, before the first test case.
	failures, _, err := p.gate.count(rep)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, bufferSize)
	buf := make([]byte, 0, 4<<10)

	counts := func(buf []byte) []byte {
		buf = append(buf, ` tests="`...)
		buf = strconv.AppendInt(buf, int64(rep.Summary.Operations), 10)
		buf = append(buf, `" failures="`...)
		buf = strconv.AppendInt(buf, int64(failures), 10)
		return append(buf, `" errors="0"`...)
	}
	buf = append(buf, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"...)
	buf = append(buf, "<testsuites"...)
	buf = appendXMLAttr(buf, "name", junitSuite)
	buf = counts(buf)
	buf = append(buf, ">\n  <testsuite"...)
	buf = appendXMLAttr(buf, "name", junitSuite)
	buf = counts(buf)
	buf = appendXMLAttr(buf, "skipped", "0")
	buf = append(buf, ">\n"...)
	if _, err := bw.Write(buf); err != nil {
		return err
	}

	err = rep.Operations(func(op *audit.Operation) error {
		buf = p.testcase(buf[:0], op)
		_, err := bw.Write(buf)
		return err
	})
	if err != nil {
		return err
	}
	if _, err := bw.Write(junitSummary(buf[:0], &rep.Summary, failures)); err != nil {
		return err
	}
	if _, err := bw.WriteString("  </testsuite>\n</testsuites>\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// testcase appends the <testcase> element of one operation.
func (p *junitPrinter) testcase(buf []byte, op *audit.Operation) []byte {
	buf = append(buf, "    <testcase"...)
	buf = appendXMLAttr(buf, "classname", Sanitize(string(op.Label)))
	buf = appendXMLAttr(buf, "name", Sanitize(op.OperationID))
	buf = append(buf, ">\n"...)
	if name, failed := p.gate.match(op); failed {
		buf = append(buf, "      <failure"...)
		buf = append(buf, ` message="`...)
		if msg, ok := byFinding(op, name); ok {
			// The finding failed the test case, whatever the label.
			buf = appendXML(buf, Sanitize(name), true)
			buf = append(buf, ": "...)
			buf = appendXML(buf, Sanitize(msg), true)
		} else {
			buf = appendXML(buf, Sanitize(string(op.Label)), true)
			buf = append(buf, ": "...)
			buf = appendXML(buf, Sanitize(op.Reason), true)
		}
		buf = append(buf, '"')
		buf = appendXMLAttr(buf, "type", Sanitize(name))
		buf = append(buf, '>')
		buf = junitDetails(buf, op)
		buf = append(buf, "</failure>\n"...)
	} else {
		buf = append(buf, "      <system-out>"...)
		buf = junitDetails(buf, op)
		buf = append(buf, "</system-out>\n"...)
	}
	return append(buf, "    </testcase>\n"...)
}

// junitDetails appends what an operator needs next to the verdict: the
// evidence in words, what to do, and the counts behind the label.
func junitDetails(buf []byte, op *audit.Operation) []byte {
	buf = append(buf, "reason: "...)
	buf = appendXMLText(buf, Sanitize(op.Reason))
	buf = append(buf, "\nnext action: "...)
	buf = appendXMLText(buf, Sanitize(op.NextAction))
	buf = append(buf, "\nattempts: "...)
	buf = strconv.AppendInt(buf, int64(op.Attempts), 10)
	buf = append(buf, ", effect observations: "...)
	buf = strconv.AppendInt(buf, int64(op.EffectObservations), 10)
	buf = append(buf, ", distinct effects: "...)
	buf = strconv.AppendInt(buf, int64(op.DistinctEffects), 10)
	buf = append(buf, ", payload hashes: "...)
	buf = strconv.AppendInt(buf, int64(len(op.PayloadHashes)), 10)
	for _, f := range op.Findings {
		buf = append(buf, "\nfinding "...)
		buf = appendXMLText(buf, Sanitize(f.Code))
		buf = append(buf, ": "...)
		buf = appendXMLText(buf, Sanitize(f.Message))
	}
	return buf
}

// appendXMLAttr appends ` name="value"`, value escaped.
func appendXMLAttr(dst []byte, name, value string) []byte {
	dst = append(dst, ' ')
	dst = append(dst, name...)
	dst = append(dst, '=', '"')
	dst = appendXML(dst, value, true)
	return append(dst, '"')
}

func appendXMLText(dst []byte, s string) []byte { return appendXML(dst, s, false) }

// appendXML appends s escaped for XML 1.0 character data, or for an
// attribute value when attr is set. The five special characters become
// entities everywhere (so "]]>" cannot end anything); in attributes, tab and
// line feed become character references too, since a parser would normalise
// them to spaces; carriage return always does, for the same reason. Anything
// XML 1.0 forbids (other C0 controls, U+FFFE, U+FFFF, invalid UTF-8) becomes
// U+FFFD.
func appendXML(dst []byte, s string, attr bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		var esc string
		size := 1
		if c < utf8.RuneSelf {
			switch {
			case c == '&':
				esc = "&amp;"
			case c == '<':
				esc = "&lt;"
			case c == '>':
				esc = "&gt;"
			case c == '"':
				esc = "&quot;"
			case c == '\'':
				esc = "&apos;"
			case c == '\r':
				esc = "&#xD;"
			case c == '\n' && attr:
				esc = "&#xA;"
			case c == '\t' && attr:
				esc = "&#x9;"
			case c < 0x20 && c != '\n' && c != '\t':
				esc = "\uFFFD"
			default:
				i++
				continue
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if (r != utf8.RuneError || size > 1) && xmlChar(r) {
				i += size
				continue
			}
			esc = "\uFFFD"
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// xmlChar reports whether XML 1.0 allows the non-ASCII rune r (production
// Char: U+0080 to U+D7FF, U+E000 to U+FFFD, U+10000 to U+10FFFF).
func xmlChar(r rune) bool {
	return r <= 0xD7FF || (0xE000 <= r && r <= 0xFFFD) || (0x10000 <= r && r <= utf8.MaxRune)
}

// gate decides which operations fail the run: those whose label, or one of
// whose finding codes, is named in --fail-on. Every printer that marks
// failures asks it, and so do the annotations, so they agree with the exit
// status.
type gate struct {
	names []string
}

func newGate(failOn []string) gate { return gate{names: failOn} }

// match reports whether op fails the gate, and the name in --fail-on that
// it matched.
func (g gate) match(op *audit.Operation) (string, bool) {
	if op.Baseline != "" && op.Baseline != audit.BaselineNew {
		return "", false // with --baseline only new or worse operations fail
	}
	if op.FailsAnew != "" {
		return op.FailsAnew, true // what it fails on that it did not before
	}
	if slices.Contains(g.names, string(op.Label)) {
		return string(op.Label), true
	}
	for _, f := range op.Findings {
		if slices.Contains(g.names, f.Code) {
			return f.Code, true
		}
	}
	return "", false
}

// byFinding returns the message of the finding code names, when match
// matched op by code, a finding code, rather than by its label.
func byFinding(op *audit.Operation, code string) (string, bool) {
	if code == "" || code == string(op.Label) {
		return "", false
	}
	for _, f := range op.Findings {
		if f.Code == code {
			return f.Message, true
		}
	}
	return "", false
}

// count counts the operations that fail the gate, and the healthy ones
// among them: from the summary when the gate names only labels, else with a
// pass over the operations, since the summary counts findings, not the
// operations that carry them.
func (g gate) count(rep *audit.Report) (failing, healthy int, err error) {
	labelsOnly := true
	for _, name := range g.names {
		if !slices.Contains(audit.Labels(), audit.Label(name)) {
			labelsOnly = false
		}
	}
	if labelsOnly && rep.Annotate == nil { // with a baseline, marks decide
		for _, l := range audit.Labels() {
			if slices.Contains(g.names, string(l)) {
				failing += rep.Summary.Labels[l]
			}
		}
		if slices.Contains(g.names, string(audit.Healthy)) {
			healthy = rep.Summary.Labels[audit.Healthy]
		}
		return failing, healthy, nil
	}
	err = rep.Briefs(func(op *audit.Operation) error {
		if _, failed := g.match(op); failed {
			failing++
			if op.Label == audit.Healthy {
				healthy++
			}
		}
		return nil
	})
	return failing, healthy, err
}

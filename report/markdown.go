package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/effectaudit/effectaudit/audit"
)

const (
	// markdownRows is how many operations the markdown table lists before
	// it folds the rest into one line.
	markdownRows = 100

	// markdownBudget caps the bytes of the markdown report, so that it
	// fits a pull-request comment (GitHub takes 65,536 characters) and a
	// step summary (1 MiB) whatever the input: rows that would pass it are
	// folded like the rows past markdownRows.
	markdownBudget = 60_000

	// maxShownRunes is the longest an input string is shown in markdown
	// and annotations, which people read in a browser; a longer one is cut
	// and ends with "…". The machine formats never cut.
	maxShownRunes = 1000
)

// markdownPrinter writes a report for $GITHUB_STEP_SUMMARY or a pull-request
// comment: a heading, the summary line, then a table of the operations that
// are not healthy or fail the gate (the others need no one's attention).
//
// Every input string is sanitized as on a terminal, so it holds no line
// break or control character, then escaped so that it stays inside its
// cell and renders as the text it is: the operationId in a code span (no
// emphasis, links, HTML or @-mentions inside), the reason and the next
// action as text with every character Markdown gives a meaning to
// backslash-escaped, and each word of it with an "@" in a code span (see
// appendMarkdownText).
type markdownPrinter struct{ gate gate }

// errStop ends an iteration over the operations early; it never leaves the
// package. errPassDone ends one of markdown's two passes, not both.
var (
	errStop     = errors.New("stop")
	errPassDone = errors.New("pass done")
)

func (p markdownPrinter) Print(w io.Writer, rep *audit.Report) error {
	bw := bufio.NewWriterSize(w, bufferSize)
	if err := printMarkdown(bw, rep, p.gate); err != nil {
		return fmt.Errorf("write markdown report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write markdown report: %w", err)
	}
	return nil
}

func printMarkdown(bw *bufio.Writer, rep *audit.Report, g gate) error {
	s := &rep.Summary
	var head strings.Builder
	head.WriteString("## effectaudit report\n\n")
	head.WriteString(summaryLine(s))
	head.WriteString("\n\n")
	if line := findingsLine(s); line != "" {
		head.Write(appendMarkdownLine(nil, "F"+line[1:]))
		head.WriteString("\n\n")
	}
	if n := s.InvalidLines; n > 0 {
		fmt.Fprintf(&head, "%s skipped (`--format json` lists them).\n\n", Plural(n, "invalid line"))
	}
	failures, failingHealthy, err := g.count(rep)
	if err != nil {
		return err
	}
	if line := baselineLine(s, failures, nil, shown); line != "" {
		head.Write(appendMarkdownLine(nil, line))
		head.WriteString("\n\n")
	}
	listed := s.Operations - s.Labels[audit.Healthy] + failingHealthy
	switch {
	case s.Operations == 0:
		head.WriteString("No operations.\n")
	case listed == 0:
		if s.Operations == 1 {
			head.WriteString("The only operation is healthy.\n")
		} else {
			fmt.Fprintf(&head, "All %d operations are healthy.\n", s.Operations)
		}
	default:
		head.WriteString("| Operation | Label | Attempts | Effects | Reason | Next action |\n")
		head.WriteString("| --- | --- | ---: | ---: | --- | --- |\n")
	}
	if _, err := bw.WriteString(head.String()); err != nil {
		return err
	}
	if listed == 0 {
		return nil
	}

	// Two passes: the operations that fail the gate, then the others that
	// are not healthy, each in report order, so that rows which do not
	// fail never crowd out those that do.
	written, rows := head.Len(), 0
	buf := make([]byte, 0, 4<<10)
	for _, failing := range []bool{true, false} {
		if failing && failures == 0 {
			continue // no pass over the operations for nothing
		}
		seen := 0 // failing operations, in the first pass
		err = rep.Operations(func(op *audit.Operation) error {
			if failing && seen == failures {
				return errPassDone
			}
			failedOn, failed := g.match(op)
			if failed != failing || op.Label == audit.Healthy && !failed {
				return nil
			}
			seen++
			if rows == markdownRows {
				return errStop
			}
			buf = markdownRow(buf[:0], op, failedOn)
			if written+len(buf) > markdownBudget {
				return errStop
			}
			rows++
			written += len(buf)
			_, err := bw.Write(buf)
			return err
		})
		if errors.Is(err, errStop) {
			break
		}
		if err != nil && !errors.Is(err, errPassDone) {
			return err
		}
	}
	if more := listed - rows; more > 0 {
		line := fmt.Sprintf("\n… and %d more not shown (`--format table` or `--format json` lists every operation).\n", more)
		if _, err := bw.WriteString(line); err != nil {
			return err
		}
	}
	return nil
}

// markdownRow appends the table row of one operation. When it fails the
// gate on failedOn, the label says so, and when that is a finding code,
// the finding's message follows the reason.
func markdownRow(buf []byte, op *audit.Operation, failedOn string) []byte {
	msg, byCode := byFinding(op, failedOn)
	buf = append(buf, "| "...)
	buf = appendCodeSpan(buf, shown(op.OperationID))
	buf = append(buf, " | "...)
	buf = appendMarkdownText(buf, shown(string(op.Label)))
	switch {
	case byCode:
		buf = appendMarkdownText(buf, ", fails on "+shown(failedOn))
	case failedOn != "":
		buf = append(buf, ", fails"...)
	}
	buf = append(buf, " | "...)
	buf = strconv.AppendInt(buf, int64(op.Attempts), 10)
	buf = append(buf, " | "...)
	buf = strconv.AppendInt(buf, int64(op.DistinctEffects), 10)
	buf = append(buf, " | "...)
	buf = appendMarkdownText(buf, shown(op.Reason))
	if byCode {
		buf = appendMarkdownText(buf, " ("+shown(failedOn)+": "+shown(msg)+")")
	}
	buf = append(buf, " | "...)
	buf = appendMarkdownText(buf, shown(op.NextAction))
	return append(buf, " |\n"...)
}

// shown is s as people see it in a browser: sanitized, and cut after
// maxShownRunes, where an escape starts or ends (see sanitizedHead).
func shown(s string) string {
	if t := Sanitize(s); len(t) <= maxShownRunes || utf8.RuneCountInString(t) <= maxShownRunes {
		return t
	}
	return sanitizedHead(s, maxShownRunes) + "…"
}

// markdownSpecial holds the characters that mean something to GitHub
// Flavored Markdown inside a table cell: escapes, code spans, emphasis,
// strikethrough, links and images, HTML and autolinks, entities, math and
// the cell separator.
const markdownSpecial = "\\`*_~[]<>&$|"

// appendMarkdownText appends s, which holds no line break, as the text of a
// table cell: each special character backslash-escaped. "\|" keeps a pipe
// in its cell (GFM reads every "\|" so, before the inline markup); the
// other escapes make the text render as written. So do those of the colon
// of "://" and the dot of "www.", which GFM would otherwise turn into
// links a ledger chose. A word with an "@" in it is set as a code span
// instead: no escape stops GFM from linking an e-mail address, nor GitHub
// from notifying the @name of a person or team, but neither happens in
// code. Spaces at either end are lost, since GFM trims cells; HTML would
// not show them anyway.
func appendMarkdownText(dst []byte, s string) []byte { return appendMarkdown(dst, s, true) }

// appendMarkdownLine is appendMarkdownText for a line of its own, outside
// the table: there "\|" in a code span would show its backslash.
func appendMarkdownLine(dst []byte, s string) []byte { return appendMarkdown(dst, s, false) }

func appendMarkdown(dst []byte, s string, cell bool) []byte {
	for len(s) > 0 {
		i := strings.IndexByte(s, '@')
		if i < 0 {
			return appendEscapedText(dst, s)
		}
		start := strings.LastIndexByte(s[:i], ' ') + 1
		end := strings.IndexByte(s[i:], ' ')
		if end < 0 {
			end = len(s)
		} else {
			end += i
		}
		// The brackets and separators of a list are no part of the word.
		for start < i && s[start] == '(' {
			start++
		}
		for end > i+1 && strings.IndexByte(",;)", s[end-1]) >= 0 {
			end--
		}
		dst = appendEscapedText(dst, s[:start])
		dst = appendCode(dst, s[start:end], cell)
		s = s[end:]
	}
	return dst
}

// appendEscapedText appends s with each special character escaped.
func appendEscapedText(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(markdownSpecial, s[i]) >= 0 || autolinks(s, i) {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', s[i])
			start = i + 1
		}
	}
	return append(dst, s[start:]...)
}

// autolinks reports whether s[i] is the colon of "://" or the dot of
// "www.", from which GFM makes a link of the text around it.
func autolinks(s string, i int) bool {
	switch s[i] {
	case ':':
		return strings.HasPrefix(s[i+1:], "//")
	case '.':
		return i >= 3 && strings.EqualFold(s[i-3:i], "www")
	}
	return false
}

// appendCodeSpan appends s, which holds no line break, as a code span in a
// table cell. Inside a code span backslashes are literal, so only the pipe
// is escaped, as GFM asks for pipes in cells. The fence is one backtick
// longer than the longest run of them in s, and a space pads s when it
// starts or ends with a backtick or a space, since a code span drops one
// space at each end. An empty s is an empty cell.
func appendCodeSpan(dst []byte, s string) []byte { return appendCode(dst, s, true) }

// appendCode appends s as a code span, in a table cell or, with cell
// false, outside the table, where a pipe needs no escape.
func appendCode(dst []byte, s string, cell bool) []byte {
	if s == "" {
		return dst
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	pad := ""
	if first, last := s[0], s[len(s)-1]; (first == '`' || first == ' ' || last == '`' || last == ' ') &&
		strings.Trim(s, " ") != "" {
		pad = " "
	}
	for range longest + 1 {
		dst = append(dst, '`')
	}
	dst = append(dst, pad...)
	start := 0
	for i := 0; cell && i < len(s); i++ {
		if s[i] == '|' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', '|')
			start = i + 1
		}
	}
	dst = append(dst, s[start:]...)
	dst = append(dst, pad...)
	for range longest + 1 {
		dst = append(dst, '`')
	}
	return dst
}

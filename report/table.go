package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/effectaudit/effectaudit/audit"
)

const (
	// foldLimit is how many healthy operations the table lists before it
	// folds them into one line, unless Options.All.
	foldLimit = 100

	// tableWidth is the width the table aims at: the NEXT ACTION text wraps
	// to fit in it. Operation ids are never cut, since the operator needs
	// them whole (for explain), so a very long id widens the table instead.
	tableWidth = 120
	// minActionWidth keeps the NEXT ACTION column readable when ids are long.
	minActionWidth = 30

	// chunkRows is how many rows go through tablewriter at a time. The
	// column widths are computed once, up front, so chunks line up, and
	// memory stays bounded when millions of operations need a row.
	chunkRows = 1024

	columnSep = "  "
)

var tableHeader = []string{"OPERATION", "LABEL", "ATTEMPTS", "OBSERVATIONS", "EFFECTS", "HASHES", "NEXT ACTION"}

// actionCol is the index of NEXT ACTION, the only column that wraps.
const actionCol = 6

var tableAlign = []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft}

// labelColor holds the SGR code of each label's colour.
var labelColor = map[audit.Label]string{
	audit.Healthy:     "\x1b[32m", // green
	audit.Duplicate:   "\x1b[31m", // red
	audit.KeyConflict: "\x1b[31m", // red
	audit.Uncertain:   "\x1b[33m", // yellow
	audit.Absent:      "\x1b[36m", // cyan
}

const sgrReset = "\x1b[0m"

// tablePrinter writes one row per listed operation, then what was folded or
// skipped, then a summary line. It is borderless, like most CLI listings:
// columns are separated by two spaces, numbers are right-aligned, and
// trailing spaces are trimmed from every line.
type tablePrinter struct {
	opts Options
}

func (p *tablePrinter) Print(w io.Writer, rep *audit.Report) error {
	bw := bufio.NewWriterSize(w, bufferSize)
	// bufio.Writer keeps its first error and refuses later writes, so the
	// errors tablewriter ignores surface at Flush.
	out := &trimWriter{w: bw}
	if err := p.print(out, rep); err != nil {
		return fmt.Errorf("write table report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write table report: %w", err)
	}
	return nil
}

func (p *tablePrinter) print(out io.Writer, rep *audit.Report) error {
	healthy := 0
	for i := range rep.Operations {
		if rep.Operations[i].Label == audit.Healthy {
			healthy++
		}
	}
	fold := healthy > foldLimit && !p.opts.All
	listed := func(op *audit.Operation) bool { return !fold || op.Label != audit.Healthy }

	widths, rows := columnWidths(rep.Operations, listed)
	var trailer []string
	if fold {
		trailer = append(trailer, fmt.Sprintf("%d healthy operations folded (--all lists them)", healthy))
	}
	if n := rep.Summary.InvalidLines; n > 0 {
		trailer = append(trailer, plural(n, "invalid line")+" skipped (--format json lists them)")
	}
	trailer = append(trailer, summaryLine(&rep.Summary))

	switch {
	case rows > 0:
		if err := p.table(out, rep.Operations, listed, widths); err != nil {
			return err
		}
		trailer = append([]string{""}, trailer...)
	case len(rep.Operations) == 0:
		trailer = append([]string{"no operations", ""}, trailer...)
	}
	for _, line := range trailer {
		if _, err := io.WriteString(out, line+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// table renders the listed operations chunk by chunk.
func (p *tablePrinter) table(out io.Writer, ops []audit.Operation, listed func(*audit.Operation) bool, widths []int) error {
	cfg := tablewriter.Config{
		Header: tw.CellConfig{
			Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
			Alignment:  tw.CellAlignment{PerColumn: tableAlign},
			Padding:    tw.CellPadding{Global: tw.Padding{Overwrite: true}},
		},
		Row: tw.CellConfig{
			Formatting: tw.CellFormatting{AutoWrap: tw.WrapNormal},
			Alignment:  tw.CellAlignment{PerColumn: tableAlign},
			Padding:    tw.CellPadding{Global: tw.Padding{Overwrite: true}},
		},
		// Cells are printed as they are: an id's spaces are part of it.
		Behavior: tw.Behavior{TrimSpace: tw.Off, TrimTab: tw.Off},
		Widths:   tw.CellWidth{PerColumn: tw.NewMapper[int, int]()},
	}
	for i, w := range widths {
		cfg.Widths.PerColumn.Set(i, w)
	}
	rendition := tw.Rendition{
		Borders: tw.BorderNone,
		Symbols: tw.NewSymbolCustom("effectaudit").WithColumn(columnSep),
		Settings: tw.Settings{
			Lines:      tw.LinesNone,
			Separators: tw.Separators{BetweenColumns: tw.On},
		},
	}

	var t *tablewriter.Table
	n := 0
	render := func() error {
		if t == nil {
			return nil
		}
		err := t.Render()
		t = nil
		return err
	}
	for i := range ops {
		op := &ops[i]
		if !listed(op) {
			continue
		}
		if t == nil {
			t = tablewriter.NewTable(out, tablewriter.WithConfig(cfg), tablewriter.WithRenderer(renderer.NewBlueprint(rendition)))
			if n == 0 {
				t.Header(tableHeader)
			}
		}
		if err := t.Append(p.row(op)); err != nil {
			return err
		}
		n++
		if n%chunkRows == 0 {
			if err := render(); err != nil {
				return err
			}
		}
	}
	return render()
}

func (p *tablePrinter) row(op *audit.Operation) []string {
	label := Sanitize(string(op.Label))
	if c, ok := labelColor[op.Label]; ok && p.opts.Color {
		label = c + label + sgrReset
	}
	return []string{
		Sanitize(op.OperationID),
		label,
		strconv.Itoa(op.Attempts),
		strconv.Itoa(op.EffectObservations),
		strconv.Itoa(op.DistinctEffects),
		strconv.Itoa(len(op.PayloadHashes)),
		Sanitize(op.NextAction),
	}
}

// columnWidths measures the listed rows as tablewriter does, colours aside,
// and returns the width of each column and how many rows there are.
func columnWidths(ops []audit.Operation, listed func(*audit.Operation) bool) ([]int, int) {
	widths := make([]int, len(tableHeader))
	for i, h := range tableHeader {
		widths[i] = twwidth.Width(h)
	}
	grow := func(col, w int) {
		if w > widths[col] {
			widths[col] = w
		}
	}
	rows := 0
	for i := range ops {
		op := &ops[i]
		if !listed(op) {
			continue
		}
		rows++
		grow(0, twwidth.Width(Sanitize(op.OperationID)))
		grow(1, twwidth.Width(Sanitize(string(op.Label))))
		grow(2, digits(op.Attempts))
		grow(3, digits(op.EffectObservations))
		grow(4, digits(op.DistinctEffects))
		grow(5, digits(len(op.PayloadHashes)))
		grow(actionCol, twwidth.Width(Sanitize(op.NextAction)))
	}
	room := tableWidth - len(columnSep)*(len(widths)-1)
	for _, w := range widths[:actionCol] {
		room -= w
	}
	widths[actionCol] = min(widths[actionCol], max(room, minActionWidth))
	return widths, rows
}

func digits(n int) int {
	var b [20]byte
	return len(strconv.AppendInt(b[:0], int64(n), 10))
}

// summaryLine counts the operations per label in SPEC's precedence order,
// then the attempts and effect observations, then the input lines.
func summaryLine(s *audit.Summary) string {
	var b strings.Builder
	b.WriteString(plural(s.Operations, "operation"))
	b.WriteString(": ")
	for i, l := range audit.Labels {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", s.Labels[l], l)
	}
	fmt.Fprintf(&b, " · %s, %s · %s (%d blank, %s, %d invalid)",
		plural(s.Attempts, "attempt"), plural(s.EffectObservations, "effect observation"),
		plural(s.Lines, "line"), s.BlankLines, plural(s.Records, "record"), s.InvalidLines)
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// trimWriter drops the spaces at the end of each line, which tablewriter
// pads the last column with. Spaces are held back until the next byte shows
// whether they end a line.
type trimWriter struct {
	w      io.Writer
	spaces int // spaces held back
}

var spaces = bytes.Repeat([]byte{' '}, 64)

func (t *trimWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		line, rest, newline := bytes.Cut(p, []byte{'\n'})
		p = rest
		text := bytes.TrimRight(line, " ")
		if len(text) > 0 {
			if err := t.flushSpaces(); err != nil {
				return 0, err
			}
			if _, err := t.w.Write(text); err != nil {
				return 0, err
			}
		}
		t.spaces += len(line) - len(text)
		if newline {
			t.spaces = 0
			if _, err := t.w.Write([]byte{'\n'}); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (t *trimWriter) flushSpaces() error {
	for t.spaces > 0 {
		k := min(t.spaces, len(spaces))
		if _, err := t.w.Write(spaces[:k]); err != nil {
			return err
		}
		t.spaces -= k
	}
	return nil
}

package report

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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

	// tableWidth is the width the table aims at unless Options.Width says
	// otherwise: the NEXT ACTION text wraps to fit in it. A long operation
	// id widens the table instead, up to maxTableID runes, past which it is
	// clipped in the middle (explain and the JSON report have it whole).
	tableWidth = 120
	// minActionWidth keeps the NEXT ACTION column readable when ids are long.
	minActionWidth = 30

	columnSep = "  "
)

var tableHeader = []string{"OPERATION", "LABEL", "ATTEMPTS", "OBSERVATIONS", "EFFECTS", "HASHES", "FINDINGS", "NEXT ACTION"}

// actionCol is the index of NEXT ACTION, the only column that wraps.
const actionCol = 7

var tableAlign = []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft, tw.AlignLeft}

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
// skipped, then a summary line and, when anything was found, a line of
// findings. It is borderless, like most CLI listings:
// columns are separated by two spaces, numbers are right-aligned, and
// trailing spaces are trimmed from every line.
type tablePrinter struct {
	opts Options
}

func (p *tablePrinter) Print(w io.Writer, rep *audit.Report) error {
	bw := bufio.NewWriterSize(w, bufferSize)
	out := &trimWriter{w: bw}
	if err := p.print(out, rep); err != nil {
		return fmt.Errorf("write table report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write table report: %w", err)
	}
	return nil
}

func (p *tablePrinter) print(out *trimWriter, rep *audit.Report) error {
	// First pass: measure the columns both with and without the healthy
	// operations, since whether they fold is known only at the end. A
	// healthy operation that fails the gate (on a finding) never folds.
	all, unhealthy := newLayout(), newLayout()
	g := newGate(p.opts.FailOn)
	foldable := func(op *audit.Operation, fails bool) bool { return op.Label == audit.Healthy && !fails }
	healthy, folded, ops := 0, 0, 0
	marks := map[string]int{} // baseline status → operations, with --baseline
	var failing []string      // the first operations that fail the gate
	failures := 0
	err := rep.Briefs(func(op *audit.Operation) error {
		ops++
		_, fails := g.match(op)
		if fails {
			failures++
			if len(failing) < listedIDs {
				failing = append(failing, strings.Clone(op.OperationID))
			}
		}
		if op.Baseline != "" {
			marks[op.Baseline]++
		}
		m := measureRow(op)
		all.add(&m)
		if op.Label == audit.Healthy {
			healthy++
		}
		if foldable(op, fails) {
			folded++
		} else {
			unhealthy.add(&m)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fold := healthy > foldLimit && !p.opts.All
	l := all
	if fold && folded > 0 {
		l = unhealthy
	}
	l.finish(cmp.Or(p.opts.Width, tableWidth))

	var trailer []string
	if fold && folded > 0 {
		trailer = append(trailer, fmt.Sprintf("%s folded (--all lists them)", Plural(folded, "healthy operation")))
	}
	if n := rep.Summary.InvalidLines; n > 0 {
		trailer = append(trailer, SkippedLine(n))
	}
	trailer = append(trailer, summaryLine(&rep.Summary))
	if line := findingsLine(&rep.Summary); line != "" {
		trailer = append(trailer, line)
	}
	// The rows do not say which operations fail the run anew: this line
	// names them.
	if line := baselineLine(&rep.Summary, failures, failing, tableID); line != "" {
		line += fmt.Sprintf(" · marked %d new, %d unchanged", marks[audit.BaselineNew], marks[audit.BaselineUnchanged])
		trailer = append(trailer, line)
	}

	switch {
	case l.rows > 0:
		listed := func(op *audit.Operation) bool {
			_, fails := g.match(op)
			return !fold || !foldable(op, fails)
		}
		if err := p.table(out, rep, listed, l); err != nil {
			return err
		}
		trailer = append([]string{""}, trailer...)
	case ops == 0:
		trailer = append([]string{"no operations", ""}, trailer...)
	}
	for _, line := range trailer {
		if _, err := io.WriteString(out, line+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// baselineLine says, with a baseline (Resolved is set then), how many
// operations fail anew, failing of them, naming the first of them, ids,
// when given, and which of the baseline's failures were resolved; ""
// without a baseline. Each id named is shown as show shows it, so that the
// format's limit on a string from the input holds here too.
func baselineLine(s *audit.Summary, failing int, ids []string, show func(string) string) string {
	if s.Resolved == nil {
		return ""
	}
	line := fmt.Sprintf("Against the baseline: %s failing anew", Plural(failing, "operation"))
	if len(ids) > 0 {
		line += " (" + listSome(showSome(ids, show), failing) + ")"
	}
	line += fmt.Sprintf(", %d resolved", len(s.Resolved))
	if len(s.Resolved) > 0 {
		line += " (" + listSome(showSome(s.Resolved, show), len(s.Resolved)) + ")"
	}
	return line
}

// showSome returns the first ids listSome names, as show shows them.
func showSome(ids []string, show func(string) string) []string {
	shown := make([]string, min(len(ids), listedIDs))
	for i := range shown {
		shown[i] = show(ids[i])
	}
	return shown
}

// listedIDs is how many ids listSome names.
const listedIDs = 5

// listSome names the first ids, of total, and counts the rest.
func listSome(ids []string, total int) string {
	if total <= listedIDs {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:listedIDs], ", "), total-listedIDs)
}

// table renders the listed operations, their header first.
func (p *tablePrinter) table(out *trimWriter, rep *audit.Report, listed func(*audit.Operation) bool, l *layout) error {
	s := newStamper(l.widths)
	if err := s.header(out); err != nil {
		return err
	}
	return rep.Briefs(func(op *audit.Operation) error {
		if !listed(op) {
			return nil
		}
		return s.row(out, p.row(op, l))
	})
}

// stamper lays rows out with tablewriter. tablewriter spends tens of
// microseconds and hundreds of allocations on a row, and a report on a
// million operations can list a hundred thousand rows, which differ mostly
// in their operation id alone. So the stamper has tablewriter lay out each
// distinct rest of a row (label, counts, findings, next action) once, with
// a placeholder as wide as the OPERATION column, and prints every row with
// that rest as those lines with its id over the placeholder: what
// tablewriter prints for the row itself, since OPERATION is the first
// column, left-aligned and padded with spaces. TestStampedRows holds the
// two to the same bytes.
type stamper struct {
	widths      []int             // of the columns
	placeholder string            // as wide as OPERATION, in as many bytes
	looks       map[string][]byte // by key: a row's lines after the placeholder
	limit       int               // of looks kept; past it, rows of a new look are laid out whole
	key         []byte            // scratch for a row's key in looks
	buf         bytes.Buffer
}

// maxLooks bounds the looks a stamper keeps, a few hundred bytes each.
const maxLooks = 4096

func newStamper(widths []int) *stamper {
	return &stamper{widths: widths, placeholder: strings.Repeat("x", widths[0]), looks: map[string][]byte{}, limit: maxLooks}
}

// newTable returns a tablewriter table writing to w with the columns' widths.
func (s *stamper) newTable(w io.Writer) *tablewriter.Table {
	cfg := tablewriter.Config{
		Header: tw.CellConfig{
			Formatting: tw.CellFormatting{AutoFormat: tw.Off},
			Alignment:  tw.CellAlignment{PerColumn: tableAlign},
			Padding:    tw.CellPadding{Global: tw.Padding{Overwrite: true}},
		},
		Row: tw.CellConfig{
			Alignment: tw.CellAlignment{PerColumn: tableAlign},
			Padding:   tw.CellPadding{Global: tw.Padding{Overwrite: true}},
		},
		// Cells are printed as they are: an id's spaces are part of it.
		Behavior: tw.Behavior{TrimSpace: tw.Off, TrimTab: tw.Off},
		Widths:   tw.CellWidth{PerColumn: tw.NewMapper[int, int]()},
	}
	for i, w := range s.widths {
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
	return tablewriter.NewTable(w,
		tablewriter.WithConfig(cfg),
		// WithConfig takes WrapNone (0) for "unset": say it again.
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithRenderer(renderer.NewBlueprint(rendition)))
}

// render has tablewriter lay out the header (a nil row) or one row into
// s.buf.
func (s *stamper) render(row []string) ([]byte, error) {
	s.buf.Reset()
	t := s.newTable(&s.buf)
	if row == nil {
		t.Header(tableHeader)
	} else if err := t.Append(row); err != nil {
		return nil, err
	}
	if err := t.Render(); err != nil {
		return nil, err
	}
	return s.buf.Bytes(), nil
}

func (s *stamper) header(out *trimWriter) error {
	b, err := s.render(nil)
	if err != nil {
		return err
	}
	return emit(out, b)
}

// row prints the row of cells, OPERATION first.
func (s *stamper) row(out *trimWriter, cells []string) error {
	s.key = s.key[:0]
	for _, c := range cells[1:] {
		s.key = strconv.AppendInt(s.key, int64(len(c)), 10)
		s.key = append(s.key, ':')
		s.key = append(s.key, c...)
	}
	look, ok := s.looks[string(s.key)]
	if !ok && len(s.looks) < s.limit {
		b, err := s.render(append([]string{s.placeholder}, cells[1:]...))
		if err != nil {
			return err
		}
		// Always so, as OPERATION comes first with no padding; but should
		// tablewriter ever print otherwise, the row is laid out whole.
		if ok = bytes.HasPrefix(b, []byte(s.placeholder)); ok {
			look = bytes.Clone(b[len(s.placeholder):])
			s.looks[string(s.key)] = look
		}
	}
	if !ok {
		b, err := s.render(cells)
		if err != nil {
			return err
		}
		return emit(out, b)
	}
	id := cells[0]
	if _, err := io.WriteString(out, id); err != nil {
		return err
	}
	if err := out.pad(s.widths[0] - textWidth(id)); err != nil {
		return err
	}
	return emit(out, look)
}

// emit writes b to out.
func emit(out *trimWriter, b []byte) error {
	_, err := out.Write(b)
	return err
}

func (p *tablePrinter) row(op *audit.Operation, l *layout) []string {
	label := Sanitize(string(op.Label))
	if c, ok := labelColor[op.Label]; ok && p.opts.Color {
		label = c + label + sgrReset
	}
	return []string{
		tableID(op.OperationID),
		label,
		strconv.Itoa(op.Attempts),
		strconv.Itoa(op.EffectObservations),
		strconv.Itoa(op.DistinctEffects),
		strconv.Itoa(len(op.PayloadHashes)),
		findingsCell(op),
		l.actions[op.NextAction],
	}
}

// maxTableID is the most runes of an operation id the table shows. Every
// row, each of its lines, is padded to the widest id shown, so one long id
// would widen them all: a megabyte id in a ledger of ten thousand
// operations made a table of 30 GB. A longer id keeps its start and its end
// (where ids tend to differ) around "…"; the JSON report has it whole.
const maxTableID = 120

// tableID is the operation id as the table shows it.
func tableID(id string) string { return clipMiddle(id, maxTableID) }

// clipMiddle returns s sanitized if that has at most n runes, else the
// sanitized start and end of s around "…", n runes in all. s is cut before
// it is sanitized, so never inside an escape.
func clipMiddle(s string, n int) string {
	if t := Sanitize(s); len(t) <= n || utf8.RuneCountInString(t) <= n {
		return t
	}
	head, tail := (n-1)/2, n-1-(n-1)/2
	i, j := headCut(s, head), tailCut(s, tail)
	if j <= i {
		// Escaping made s too long, not its runes: a "##[" that its
		// escape lengthens can belong to both halves. The end starts a
		// rune after the start ends, so that "…" stands for something,
		// and later still should it start a command that escaping
		// lengthens.
		_, size := utf8.DecodeRuneInString(s[i:])
		for j = i + size; utf8.RuneCountInString(Sanitize(s[j:])) > tail; j += size {
			_, size = utf8.DecodeRuneInString(s[j:])
		}
	}
	return Sanitize(s[:i]) + "…" + Sanitize(s[j:])
}

// findingsCell lists op's finding codes, one per line. Codes are never
// shortened, since they are what --fail-on and the JSON report name, and one
// per line keeps the column as narrow as the longest code: the rows are
// already several lines tall for NEXT ACTION.
func findingsCell(op *audit.Operation) string {
	switch len(op.Findings) {
	case 0:
		return ""
	case 1:
		return Sanitize(op.Findings[0].Code)
	}
	var b strings.Builder
	for i := range op.Findings {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(Sanitize(op.Findings[i].Code))
	}
	return b.String()
}

// findingsWidth is the width of op's FINDINGS cell: its widest line.
func findingsWidth(op *audit.Operation) int {
	w := 0
	for i := range op.Findings {
		w = max(w, textWidth(Sanitize(op.Findings[i].Code)))
	}
	return w
}

// layout is what the table needs to know before its first row: the width
// of every column, so that all rows line up, and each NEXT ACTION text
// sanitized and wrapped to its column.
type layout struct {
	widths  []int
	rows    int
	actions map[string]string // next action → its cell, lines joined by \n
}

// rowWidths is the width of each cell of one row but NEXT ACTION, measured
// as tablewriter measures them, colours aside.
type rowWidths struct {
	widths [actionCol]int
	action string
}

func measureRow(op *audit.Operation) rowWidths {
	return rowWidths{
		widths: [actionCol]int{
			textWidth(tableID(op.OperationID)),
			textWidth(Sanitize(string(op.Label))),
			digits(op.Attempts),
			digits(op.EffectObservations),
			digits(op.DistinctEffects),
			digits(len(op.PayloadHashes)),
			findingsWidth(op),
		},
		action: op.NextAction,
	}
}

func newLayout() *layout {
	l := &layout{widths: make([]int, len(tableHeader)), actions: make(map[string]string)}
	for i, h := range tableHeader {
		l.widths[i] = textWidth(h)
	}
	return l
}

func (l *layout) add(m *rowWidths) {
	l.rows++
	for i, w := range m.widths {
		l.widths[i] = max(l.widths[i], w)
	}
	l.actions[m.action] = ""
}

// finish gives NEXT ACTION the room the other columns leave in width, and
// wraps the texts to it.
func (l *layout) finish(width int) {
	room := width - len(columnSep)*(len(l.widths)-1)
	for _, w := range l.widths[:actionCol] {
		room -= w
	}
	room = max(room, minActionWidth)
	for action := range l.actions {
		cell := wrap(Sanitize(action), room)
		l.actions[action] = cell
		for line := range strings.SplitSeq(cell, "\n") {
			l.widths[actionCol] = max(l.widths[actionCol], textWidth(line))
		}
	}
}

// wrap breaks s at spaces into lines of at most width columns; a word wider
// than width gets a line of its own. s holds no newline: it is sanitized.
// The table wraps by itself rather than through tablewriter, which would
// wrap every column and squeeze the spaces (and U+2028) out of ids.
func wrap(s string, width int) string {
	if textWidth(s) <= width {
		return s
	}
	var b strings.Builder
	lineWidth := 0
	for i, word := range strings.Split(s, " ") {
		w := textWidth(word)
		switch {
		case i == 0:
		case lineWidth > 0 && lineWidth+1+w > width:
			b.WriteByte('\n')
			lineWidth = 0
		default:
			b.WriteByte(' ')
			lineWidth++
		}
		b.WriteString(word)
		lineWidth += w
	}
	return b.String()
}

// textWidth is the number of columns s takes on a terminal, as tablewriter
// counts them: its length when s is printable ASCII, as ids mostly are.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return twwidth.Width(s)
		}
	}
	return len(s)
}

func digits(n int) int {
	var b [20]byte
	return len(strconv.AppendInt(b[:0], int64(n), 10))
}

// summaryLine counts the operations per label in SPEC's precedence order,
// then the attempts and effect observations, then the input lines.
func summaryLine(s *audit.Summary) string {
	// Appended rather than formatted: fmt would allocate for every count
	// past 255, and JUnit prints this line in a stream that must not.
	b := make([]byte, 0, 256)
	b = appendPlural(b, s.Operations, "operation")
	b = append(b, ": "...)
	for i, l := range audit.Labels() {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(s.Labels[l]), 10)
		b = append(b, ' ')
		b = append(b, l...)
	}
	b = append(b, " · "...)
	b = appendPlural(b, s.Attempts, "attempt")
	b = append(b, ", "...)
	b = appendPlural(b, s.EffectObservations, "effect observation")
	b = append(b, " · "...)
	b = appendPlural(b, s.Lines, "line")
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(s.BlankLines), 10)
	b = append(b, " blank, "...)
	b = appendPlural(b, s.Records, "record")
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(s.InvalidLines), 10)
	b = append(b, " invalid)"...)
	return string(b)
}

// findingsLine counts the operations per finding code, naming only the
// codes found, in SPEC's order; it is "" when nothing was found. Codes the
// audit does not know, from a report another tool built, follow, sorted.
func findingsLine(s *audit.Summary) string {
	var b strings.Builder
	add := func(code string, n int) {
		if b.Len() == 0 {
			b.WriteString("findings: ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(Sanitize(code))
		b.WriteByte(' ')
		var digits [20]byte
		b.Write(strconv.AppendInt(digits[:0], int64(n), 10))
	}
	for _, code := range audit.FindingCodes() {
		if n := s.Findings[code]; n != 0 {
			add(code, n)
		}
	}
	var others []string
	for code, n := range s.Findings {
		if n != 0 && !audit.IsFindingCode(code) {
			others = append(others, code)
		}
	}
	slices.Sort(others)
	for _, code := range others {
		add(code, s.Findings[code])
	}
	return b.String()
}

// SkippedLine says that n invalid lines were skipped, in the formats that
// count them without listing them.
func SkippedLine(n int) string {
	return Plural(n, "invalid line") + " skipped (--format json lists them)"
}

// Plural returns n and the noun, with an s unless n is 1: "1 line",
// "2 lines".
func Plural(n int, noun string) string { return string(appendPlural(nil, n, noun)) }

func appendPlural(b []byte, n int, noun string) []byte {
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = append(b, noun...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}

// trimWriter drops the spaces at the end of each line, which tablewriter
// pads the last column with. Spaces are held back until the next byte shows
// whether they end a line. It keeps the first write error: every later
// write fails with it.
type trimWriter struct {
	w      io.Writer
	spaces int   // spaces held back
	err    error // first write error; every later write fails with it
}

var (
	spaces  = bytes.Repeat([]byte{' '}, 64)
	newline = []byte{'\n'}
)

func (t *trimWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if err := t.write(p); err != nil {
		t.err = err
		return 0, err
	}
	return len(p), nil
}

func (t *trimWriter) write(p []byte) error {
	for len(p) > 0 {
		line, rest, endsLine := bytes.Cut(p, newline)
		p = rest
		text := bytes.TrimRight(line, " ")
		if len(text) > 0 {
			if err := t.flushSpaces(); err != nil {
				return err
			}
			if _, err := t.w.Write(text); err != nil {
				return err
			}
		}
		t.spaces += len(line) - len(text)
		if endsLine {
			t.spaces = 0
			if _, err := t.w.Write(newline); err != nil {
				return err
			}
		}
	}
	return nil
}

// pad adds n spaces, held back like any others.
func (t *trimWriter) pad(n int) error {
	if t.err != nil {
		return t.err
	}
	t.spaces += max(n, 0)
	return nil
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

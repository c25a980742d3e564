package cmd

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/report"
)

// ExplainOptions is everything the explain command needs.
type ExplainOptions struct {
	Streams     *Streams
	Ledger      LedgerOptions
	OperationID string
	Format      string
}

// NewCmdExplain builds the explain command.
func NewCmdExplain(streams *Streams, runF func(*ExplainOptions) error) *cobra.Command {
	opts := &ExplainOptions{Streams: streams}
	format := newEnumFlag("table", "table", "json")
	c := &cobra.Command{
		Use:   "explain OPERATION_ID [FILE...]",
		Short: "Show one operation's records, label, reason, findings and next action",
		Long: `Explain audits the inputs as audit does (a label can depend on other
operations through shared keys) and prints every record of one operation in
time order, then input order, each with its input and line, followed by the
operation's label, reason, findings and next action. With --skip-invalid,
the lines skipped as invalid are listed last: any of them may be one of the
operation's records.

Exit status: 0 when the operation was found, 2 when it was not (with the
closest operation ids seen), when a line is invalid in strict mode, or on a
usage or input error.`,
		Example: `  effectaudit explain op-webhook-77 --example
  effectaudit explain op-7f3a9c2e-0001234 traces.ndjson.gz --format json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("missing OPERATION_ID: explain OPERATION_ID [FILE...]")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.OperationID = args[0]
			if err := refuseEmptyNames(c.Flags(), args[1:], "rejects", "policy", "map-file"); err != nil {
				return err
			}
			if err := opts.Ledger.complete(args[1:]); err != nil {
				return err
			}
			opts.Format = format.value
			if runF != nil {
				return runF(opts)
			}
			return explainRun(opts)
		},
	}
	opts.Ledger.addFlags(c.Flags())
	c.Flags().VarP(format, "format", "f", "output format: table or json")
	offerWords(c)
	return c
}

// explainBlock is how many records explain keeps in one block.
const explainBlock = 1024

// explained is one record of the operation, as explain shows it.
type explained struct {
	Input          string  `json:"input"`
	Line           int     `json:"line"`
	Type           string  `json:"type"`
	AttemptID      string  `json:"attemptId,omitempty"`
	IdempotencyKey string  `json:"idempotencyKey,omitempty"`
	Scope          string  `json:"scope,omitempty"`
	PayloadHash    string  `json:"payloadHash,omitempty"`
	Result         string  `json:"result,omitempty"`
	EffectRef      string  `json:"effectRef,omitempty"`
	ObservedAt     *string `json:"observedAt"`

	at  audit.Instant
	pos audit.Position
}

func explainRun(opts *ExplainOptions) error {
	var (
		mu sync.Mutex
		// In blocks: a busy operation's million records are never copied
		// whole as they grow, which with the collector scanning them took
		// longer than the audit itself.
		kept [][]explained
	)
	keep := func(r *audit.Record) {
		if r.OperationID != opts.OperationID {
			return
		}
		e := explained{
			Line: r.Pos.Line, Type: r.Type.String(), AttemptID: r.AttemptID, IdempotencyKey: r.IdempotencyKey,
			Scope: r.Scope, PayloadHash: r.PayloadHash, Result: r.Result, EffectRef: r.EffectRef,
			at: r.ObservedAt, pos: r.Pos,
		}
		e = e.clone()
		if r.HasObservedAt {
			s := r.ObservedAt.String()
			e.ObservedAt = &s
		}
		mu.Lock()
		if len(kept) == 0 || len(kept[len(kept)-1]) == explainBlock {
			kept = append(kept, make([]explained, 0, explainBlock))
		}
		kept[len(kept)-1] = append(kept[len(kept)-1], e)
		mu.Unlock()
	}
	defer tuneGC(opts.Streams)()
	// With --skip-invalid, the explanation shows the first lines it
	// skipped, and counts them all: any may be one of the operation's
	// records. Keeping them all would make memory grow with the input.
	opts.Ledger.showInvalid = true
	rep, names, err := readLedgers(opts.Streams, &opts.Ledger, keep)
	if err != nil {
		return err
	}
	var op *audit.Operation
	err = rep.Operations(func(o *audit.Operation) error {
		if o.OperationID == opts.OperationID {
			found := o.Clone() // o is reused once this returns
			op = &found
		}
		return nil
	})
	if err != nil {
		return failure(err)
	}
	if op == nil {
		return notFound(opts.OperationID, rep)
	}
	records := inOrder(kept, names)
	out := bufio.NewWriter(opts.Streams.Out)
	if opts.Format == "json" {
		err = writeExplainJSON(out, op, records, rep)
	} else {
		writeExplainText(out, op, records, rep, opts.Ledger.readOTLP)
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		return failure(fmt.Errorf("writing explanation: %w", err))
	}
	return nil
}

// notFound is the error for an operation id no record has: it names the
// closest ids there are. Only now the ids are measured against the one
// asked for: even cut short (see nearest), millions of them take a while.
func notFound(id string, rep *audit.Report) error {
	near := newNearest(id)
	err := rep.Briefs(func(o *audit.Operation) error {
		near.add(o.OperationID) // OperationID stays valid as long as rep
		return nil
	})
	if err != nil {
		return failure(err)
	}
	msg := fmt.Sprintf("operation %q not found", id)
	if ids := near.ids(); len(ids) > 0 {
		msg += "; closest ids: " + strings.Join(ids, ", ")
	}
	if n := rep.Summary.InvalidLines; n > 0 {
		msg += fmt.Sprintf(" (%s skipped as invalid may hold it)", report.Plural(n, "line"))
	}
	if st, err := os.Stat(id); err == nil && st.Mode().IsRegular() {
		msg += fmt.Sprintf("; %s is a file: the operation id comes first, explain OPERATION_ID [FILE...]", id)
	}
	return failure(errors.New(msg)) // exitCode sanitizes what it prints
}

// inOrder returns the kept records, named by their inputs' names, in time
// order, then input order; untimed records after the timed ones.
func inOrder(kept [][]explained, names []string) []*explained {
	var records []*explained
	for i := range kept {
		for j := range kept[i] {
			r := &kept[i][j]
			r.Input = names[r.pos.Input]
			records = append(records, r)
		}
	}
	slices.SortStableFunc(records, func(a, b *explained) int {
		switch {
		case (a.ObservedAt == nil) != (b.ObservedAt == nil):
			if a.ObservedAt == nil {
				return 1
			}
			return -1
		case a.ObservedAt != nil && a.at != b.at:
			if a.at.Before(b.at) {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.pos.Input, b.pos.Input), cmp.Compare(a.pos.Line, b.pos.Line))
	})
	return records
}

func (e explained) clone() explained {
	for _, s := range []*string{&e.AttemptID, &e.IdempotencyKey, &e.Scope, &e.PayloadHash, &e.Result, &e.EffectRef} {
		*s = strings.Clone(*s)
	}
	return e
}

// writeExplainJSON writes the document encoding/json would indent, a
// record at a time: a busy operation's million records, encoded whole and
// then indented, took seconds and twice their size in memory. A failed
// write shows at bw's Flush, which the caller reports; what this returns
// is a value that does not encode.
func writeExplainJSON(bw *bufio.Writer, op *audit.Operation, records []*explained, rep *audit.Report) error {
	var buf bytes.Buffer
	// value writes v as a member's value or an array element at depth, as
	// Encoder.SetIndent lays it out there: its first line after what came
	// before, the others indented.
	value := func(v any, depth int) error {
		buf.Reset()
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent(strings.Repeat("  ", depth), "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return nil
	}
	bw.WriteString("{\n  \"operation\": ")
	if err := value(op, 1); err != nil {
		return err
	}
	bw.WriteString(",\n  \"records\": [")
	for i, r := range records {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		if err := value(r, 2); err != nil {
			return err
		}
	}
	if len(records) > 0 {
		bw.WriteString("\n  ")
	}
	fmt.Fprintf(bw, "],\n  \"invalidLines\": %d,\n  \"invalid\": ", rep.Summary.InvalidLines)
	if err := value(rep.Invalid, 1); err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return nil
}

// writeExplainText writes the explanation for a terminal, saying, when otlp
// says an input was OTLP, what of its invalid lines is not counted. A
// failed write shows at w's Flush, which the caller reports.
func writeExplainText(w *bufio.Writer, op *audit.Operation, records []*explained, rep *audit.Report, otlp bool) {
	fmt.Fprintf(w, "%s\n\n", report.Sanitize(op.OperationID))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WHERE\tOBSERVED\tTYPE\tATTEMPT\tRESULT\tKEY\tHASH\tEFFECT")
	hashes := make([]string, len(records))
	for i, r := range records {
		hashes[i] = r.PayloadHash
	}
	short := abbreviate(hashes)
	for _, r := range records {
		when := "-"
		if r.ObservedAt != nil {
			when = *r.ObservedAt
		}
		key := r.IdempotencyKey
		if key != "" && r.Scope != "" {
			key += " (" + r.Scope + ")"
		}
		fmt.Fprintf(tw, "%s:%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", report.Sanitize(r.Input), r.Line, when, r.Type,
			dash(r.AttemptID), dash(r.Result), dash(key), dash(short[r.PayloadHash]), dash(r.EffectRef))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nlabel:       %s\nreason:      %s\n", op.Label, report.Sanitize(op.Reason))
	if len(op.Findings) == 0 {
		fmt.Fprintln(w, "findings:    none")
	}
	for i, f := range op.Findings {
		head := "findings:   "
		if i > 0 {
			head = "            "
		}
		fmt.Fprintf(w, "%s %s: %s\n", head, f.Code, report.Sanitize(f.Message))
	}
	fmt.Fprintf(w, "next action: %s\n", op.NextAction)
	if n := rep.Summary.InvalidLines; n > 0 {
		only := ""
		if otlp {
			only = " (of an OTLP export line, only its invalid spans)"
		}
		fmt.Fprintf(w, "\nskipped:     %s, not counted above%s; any may be a record of this operation\n", report.Plural(n, "invalid line"), only)
		for _, inv := range rep.Invalid {
			fmt.Fprintf(w, "             %s:%d: %s\n", report.Sanitize(inv.Input), inv.Line, report.Sanitize(inv.Error))
		}
		if more := n - len(rep.Invalid); more > 0 {
			fmt.Fprintf(w, "             ... and %d more\n", more)
		}
	}
}

// dash sanitizes s for the terminal, or stands in for an absent value.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return report.Sanitize(s)
}

// abbreviate shortens long hashes for the table (json has them whole): to
// 19 bytes, or as many more as tell every two of them apart, since telling
// two hashes under one key apart is what a key conflict is about.
func abbreviate(hashes []string) map[string]string {
	const least = 19
	n := least
	distinct := slices.Compact(slices.Sorted(slices.Values(hashes)))
	for i := 1; i < len(distinct); i++ {
		a, b := distinct[i-1], distinct[i]
		common := 0
		for common < len(a) && common < len(b) && a[common] == b[common] {
			common++
		}
		n = max(n, common+1)
	}
	short := make(map[string]string, len(distinct))
	for _, h := range distinct {
		short[h] = h
		cut := n
		for cut < len(h) && !utf8.RuneStart(h[cut]) {
			cut++ // past the character the two may differ in
		}
		if cut+1 < len(h) {
			short[h] = h[:cut] + "…"
		}
	}
	return short
}

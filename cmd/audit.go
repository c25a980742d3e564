package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/fixtures"
	"github.com/effectaudit/effectaudit/ingest"
	"github.com/effectaudit/effectaudit/input"
	"github.com/effectaudit/effectaudit/ndjson"
	"github.com/effectaudit/effectaudit/report"
)

// maxShownInvalid is how many invalid lines a strict run lists before it
// only counts them.
const maxShownInvalid = 20

// defaultFailOn is SPEC's default gate.
var defaultFailOn = []string{string(audit.Duplicate), string(audit.KeyConflict), string(audit.Uncertain)}

// AuditOptions is everything the audit command needs, parsed from flags.
type AuditOptions struct {
	Streams *Streams

	Files        []string
	Example      bool
	Format       string
	FailOn       []string
	SkipInvalid  bool
	Rejects      string
	MaxLineBytes int
	All          bool
}

const auditLong = `Audit reads ledger records (NDJSON, one attempt or effect object per line)
from the files in order, or from standard input when no file or "-" is given;
gzip and zstd inputs are recognised by their magic bytes. It labels every
operation and prints a report.

Labels, first matching rule wins:
  key-conflict  one key or operation bound to two payload hashes
  duplicate     two or more distinct effects
  healthy       exactly one distinct effect
  absent        the provider proved no effect after the last attempt
  uncertain     no effect proof and no reliable proof of absence

Invalid records stop the run (exit 2) and are listed as input:line: reason,
unless --skip-invalid is given.

Exit status:
  0  the audit completed and no operation matched --fail-on
  1  the audit completed and at least one operation matched --fail-on
  2  usage error, unreadable input, or invalid records in strict mode`

// NewCmdAudit builds the audit command. runF replaces auditRun in tests of
// flag parsing.
func NewCmdAudit(streams *Streams, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{Streams: streams}
	labels := make([]string, len(audit.Labels))
	for i, l := range audit.Labels {
		labels[i] = string(l)
	}
	format := newEnumFlag("table", report.Formats...)
	failOn := newListFlag(slices.Clone(defaultFailOn), labels)
	maxLine := &sizeFlag{n: ndjson.DefaultMaxLineBytes}

	c := &cobra.Command{
		Use:   "audit [FILE...]",
		Short: "Label every operation of a ledger and gate on the result",
		Long:  auditLong,
		Example: `  effectaudit audit --example
  effectaudit audit traces.ndjson.gz --format json
  kubectl logs deploy/agent | effectaudit audit --fail-on duplicate,key-conflict`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			opts.Format = format.value
			opts.FailOn = failOn.values
			opts.MaxLineBytes = maxLine.n
			if opts.Example && len(args) > 0 {
				return usageError("--example audits the built-in fixture and takes no FILE")
			}
			if runF != nil {
				return runF(opts)
			}
			return auditRun(opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.Example, "example", false, "audit the built-in four-operation fixture")
	f.VarP(format, "format", "f", "report format: table, json or ndjson")
	f.Var(failOn, "fail-on", "labels that make the exit status 1, comma-separated, or none")
	f.BoolVar(&opts.SkipInvalid, "skip-invalid", false, "audit the valid records and list invalid lines in the report")
	f.StringVar(&opts.Rejects, "rejects", "", "write every invalid line verbatim to `FILE`")
	f.Var(maxLine, "max-line-bytes", "longest accepted line, e.g. 16MiB; longer lines are invalid records")
	f.BoolVar(&opts.All, "all", false, "table: list healthy operations even when there are more than 100")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(report.Formats, cobra.ShellCompDirectiveNoFileComp))
	return c
}

func auditRun(opts *AuditOptions) (err error) {
	s := opts.Streams
	inputs := opts.Files
	if len(inputs) == 0 && !opts.Example {
		if s.InTTY {
			return usageError("no input: give a ledger FILE, pipe NDJSON into standard input, or try --example")
		}
		inputs = []string{input.Stdin}
	}
	printer, err := report.New(opts.Format, report.Options{All: opts.All, Color: s.colorOK()})
	if err != nil {
		return usageError("%v", err)
	}

	ingestOpts := ingest.Options{MaxLineBytes: opts.MaxLineBytes}
	if !opts.SkipInvalid {
		ingestOpts.KeepInvalid = maxShownInvalid
	}
	if opts.Rejects != "" {
		f, err := os.Create(opts.Rejects)
		if err != nil {
			return failure(fmt.Errorf("rejects: %w", err))
		}
		w := bufio.NewWriterSize(f, 64<<10)
		defer func() {
			if ferr := errors.Join(w.Flush(), f.Close()); ferr != nil && err == nil {
				err = failure(fmt.Errorf("rejects: %w", ferr))
			}
		}()
		ingestOpts.Rejects = w
	}
	pipe := ingest.New(ingestOpts, func() *audit.Auditor { return audit.New(nil) })

	if opts.Example {
		in := ingest.Input{Name: fixtures.FourOperationsName, R: bytes.NewReader(fixtures.FourOperations)}
		if err := pipe.Read(in, 0); err != nil {
			return failure(err)
		}
	}
	for i, name := range inputs {
		if err := readInput(pipe, s.In, name, i); err != nil {
			return failure(err)
		}
	}

	rep := pipe.Report()
	if rep.Summary.InvalidLines > 0 && !opts.SkipInvalid {
		return strictFailure(s.ErrOut, rep)
	}
	out := bufio.NewWriterSize(s.Out, 64<<10)
	if err := printer.Print(out, rep); err != nil {
		return failure(fmt.Errorf("writing report: %w", err))
	}
	if err := out.Flush(); err != nil {
		return failure(fmt.Errorf("writing report: %w", err))
	}
	if gateFails(rep, opts.FailOn) {
		return silentExit(ExitFailOn)
	}
	return nil
}

func readInput(pipe *ingest.Pipeline, stdin io.Reader, name string, index int) error {
	src, err := input.Open(name, stdin)
	if err != nil {
		return err
	}
	display := name
	if name == input.Stdin {
		display = "<stdin>"
	}
	err = pipe.Read(ingest.Input{Name: display, R: src}, index)
	if cerr := src.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("%s: %w", display, cerr)
	}
	return err
}

// strictFailure lists the first invalid lines and ends the run with status 2.
func strictFailure(stderr io.Writer, rep *audit.Report) error {
	w := bufio.NewWriter(stderr)
	for _, inv := range rep.Invalid {
		fmt.Fprintf(w, "%s:%d: %s\n", report.Sanitize(inv.Input), inv.Line, report.Sanitize(inv.Error))
	}
	if more := rep.Summary.InvalidLines - len(rep.Invalid); more > 0 {
		fmt.Fprintf(w, "... and %d more invalid lines\n", more)
	}
	fmt.Fprintf(w, "effectaudit: %d invalid of %d lines; no report (use --skip-invalid to audit the rest)\n",
		rep.Summary.InvalidLines, rep.Summary.Lines)
	if err := w.Flush(); err != nil {
		return failure(err)
	}
	return silentExit(ExitError)
}

// gateFails reports whether any operation carries a label named in failOn.
func gateFails(rep *audit.Report, failOn []string) bool {
	for _, l := range audit.Labels {
		if rep.Summary.Labels[l] > 0 && slices.Contains(failOn, string(l)) {
			return true
		}
	}
	return false
}

package cmd

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/baseline"
	"github.com/effectaudit/effectaudit/input"
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
	Ledger  LedgerOptions

	Format        string
	FailOn        []string
	All           bool
	Annotations   string // "" or "github"
	Baseline      string // earlier JSON report: gate only on what is new or worse
	WriteBaseline string // write this run's JSON report here
}

const auditLong = `Audit reads ledger records (NDJSON, one attempt or effect object per line)
from the files in order, or from standard input when no file or "-" is given;
gzip, zstd, xz, bzip2, lz4 and lzma inputs are recognised by their magic
bytes. It labels every operation and prints a report.

Labels, first matching rule wins:
  key-conflict  one key or operation bound to two payload hashes
  duplicate     two or more distinct effects
  healthy       exactly one distinct effect
  absent        the provider proved no effect after the last attempt
  uncertain     no effect proof and no reliable proof of absence

Invalid records stop the run (exit 2) and are listed as input:line: reason,
unless --skip-invalid is given.

Findings (never change a label) name what in the retry discipline made a
failure possible: key-churn, missing-key, missing-payload-hash, shared-key,
shared-effect, retry-after-success, retry-after-final, retry-past-retention,
orphan-effect, effect-before-attempt, contradictory-evidence and
sensitive-identifier. --fail-on accepts their codes as well as labels.

Exit status:
  0  the audit completed and no operation matched --fail-on
  1  the audit completed and at least one operation matched --fail-on
  2  usage error, unreadable input, a report that could not be written, or
     invalid records in strict mode`

// NewCmdAudit builds the audit command. runF replaces auditRun in tests of
// flag parsing.
func NewCmdAudit(streams *Streams, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{Streams: streams}
	format := newEnumFlag("table", report.Formats()...)
	failOn := newListFlag(slices.Clone(defaultFailOn), audit.GateNames())
	annotations := newEnumFlag("", "github")

	c := &cobra.Command{
		Use:   "audit [FILE...]",
		Short: "Label every operation of a ledger and gate on the result",
		Long:  auditLong,
		Example: `  effectaudit audit --example
  effectaudit audit traces.ndjson.gz --format json
  kubectl logs deploy/agent | effectaudit audit --fail-on duplicate,key-conflict`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseEmptyNames(c.Flags(), args, "baseline", "write-baseline", "rejects", "policy", "map-file"); err != nil {
				return err
			}
			if err := opts.Ledger.complete(args); err != nil {
				return err
			}
			opts.Format = format.value
			opts.FailOn = failOn.values
			opts.Annotations = annotations.value
			if runF != nil {
				return runF(opts)
			}
			return auditRun(opts)
		},
	}
	f := c.Flags()
	opts.Ledger.addFlags(f)
	f.VarP(format, "format", "f", "report format: "+strings.Join(report.Formats(), ", "))
	f.Var(failOn, "fail-on", "labels and finding codes that make the exit status 1, comma-separated and repeatable, or none")
	f.StringVar(&opts.Baseline, "baseline", "", "earlier JSON report `FILE`: --fail-on counts only operations new or worse than in it")
	f.StringVar(&opts.WriteBaseline, "write-baseline", "", "also write this run's JSON report to `FILE`, for a later --baseline")
	f.Var(annotations, "annotations", "also write CI annotations on stderr: github (workflow commands on each operation's first line: errors for those that fail, warnings for the other unhealthy ones; 50 at most)")
	f.BoolVar(&opts.All, "all", false, "table: list healthy operations even when there are more than 100")
	offerWords(c)
	return c
}

func auditRun(opts *AuditOptions) error {
	s := opts.Streams
	printer, err := report.New(opts.Format, report.Options{All: opts.All, Color: s.colorOK(), Width: s.tableWidth(), FailOn: opts.FailOn})
	if err != nil {
		return usageError("%v", err)
	}
	if err := refuseBaselineFiles(opts); err != nil {
		return err
	}
	var baseOut *output
	if opts.WriteBaseline != "" {
		// Made now, so that a directory it cannot be written to is found
		// before the audit's work; put in place only once written whole.
		if baseOut, err = createOutput(opts.WriteBaseline, nil, s.temps); err != nil {
			return failure(fmt.Errorf("write baseline: %w", err))
		}
		defer baseOut.discard()
	}
	loaded := func() (*baseline.Baseline, error) { return nil, nil }
	if opts.Baseline != "" {
		if loaded, err = startBaseline(opts.Baseline); err != nil {
			return err
		}
		if !opts.Ledger.finite() {
			// A stream may not end for long: a bad baseline must not
			// wait for it to be reported.
			if _, err := loaded(); err != nil {
				return err
			}
		}
	}
	defer tuneGC(s)()
	// Only the JSON report lists the invalid lines.
	opts.Ledger.listInvalid = opts.Format == "json" || opts.WriteBaseline != ""
	opts.Ledger.read = func() error {
		_, err := loaded()
		return err
	}
	rep, names, err := readLedgers(s, &opts.Ledger, nil)
	// A bad baseline is the error, as if it had been read first: before
	// the invalid lines of a strict run are listed, and before an input
	// that could not be read.
	base, err := awaitBaseline(loaded, err)
	if err != nil {
		return err
	}
	warnNothingAudited(s.ErrOut, &rep.Summary)
	fails, err := compareBaseline(rep, base, opts.FailOn)
	if err != nil {
		return err
	}
	if opts.Annotations == "github" {
		// Workflow commands go to stderr: stdout is the report's.
		if err := report.WriteAnnotations(s.ErrOut, rep, annotatedFiles(&opts.Ledger, names), opts.FailOn); err != nil {
			return failure(err) // it says "write annotations"
		}
	}
	out := bufio.NewWriterSize(s.Out, 64<<10)
	if err := printer.Print(out, rep); err != nil {
		return failure(err) // it says which report it was writing
	}
	if err := out.Flush(); err != nil {
		return failure(fmt.Errorf("write %s report: %w", opts.Format, err))
	}
	if n := rep.Summary.InvalidLines; n > 0 && opts.Format == "ndjson" {
		// NDJSON holds operations only: the skipped lines would go
		// unmentioned.
		fmt.Fprintf(s.ErrOut, "effectaudit: %s\n", report.SkippedLine(n))
	}
	if baseOut != nil {
		if err := writeReport(baseOut, rep); err != nil {
			return err
		}
	}
	if fails() {
		return silentExit(ExitFailOn)
	}
	return nil
}

// refuseBaselineFiles refuses --baseline and --write-baseline files that
// the run could not read or write whole.
func refuseBaselineFiles(opts *AuditOptions) error {
	// Writing the report over the baseline it reads is how a baseline
	// moves on; over a ledger, it would lose the ledger.
	if err := opts.Ledger.refuseOutput(opts.Streams, "write-baseline", opts.WriteBaseline, "the report would replace the ledger"); err != nil {
		return err
	}
	if rejects := opts.Ledger.Rejects; rejects != "" {
		// The rejects file is emptied as the run starts: a baseline there
		// would be gone before it is read, and a report written there
		// would replace the rejected lines.
		if err := refuseSame("rejects", rejects, flagFile{"baseline", opts.Baseline}, flagFile{"write-baseline", opts.WriteBaseline}); err != nil {
			return err
		}
	}
	if opts.Baseline == input.Stdin {
		return usageError("--baseline -: name a file; standard input is where ledgers are read from")
	}
	return refuseOwnStreams(opts.Streams, "--baseline "+opts.Baseline, opts.Baseline)
}

// warnNothingAudited warns when nothing was audited. SPEC passes the gate
// on no operations; an export that came out empty, whose every line is now
// invalid, or whose spans are none of them marked as records, deserves a
// word.
func warnNothingAudited(w io.Writer, sum *audit.Summary) {
	switch {
	case sum.Records == 0 && sum.Operations == 0: // OTLP lines that are invalid may hold operations
		fmt.Fprintf(w, "effectaudit: warning: no records in %s; nothing was audited\n", report.Plural(sum.Lines, "line"))
	case sum.Operations == 0: // only OTLP records (export lines) hold no operation
		fmt.Fprintf(w, "effectaudit: warning: no span in %s is marked as an attempt or effect (by effect.record, or the attribute --map type= names); nothing was audited\n",
			report.Plural(sum.Records, "OTLP export line"))
	}
}

// compareBaseline marks rep's operations against base, if there is one, and
// returns what decides whether the run fails: every operation failOn names,
// or with a baseline only those that fail anew. One pass marks every
// operation, so the summary can list the resolved ones before the
// operations are printed.
func compareBaseline(rep *audit.Report, base *baseline.Baseline, failOn []string) (fails func() bool, err error) {
	if base == nil {
		return func() bool { return gateFails(rep, failOn) }, nil
	}
	cmp := base.Compare(failOn)
	if err := rep.Briefs(func(o *audit.Operation) error { cmp.Mark(o); return nil }); err != nil {
		return nil, failure(err)
	}
	rep.Summary.Resolved = cmp.Resolved()
	rep.Annotate = cmp.Annotate
	return cmp.Failed, nil
}

// startBaseline opens the report name, which may be compressed as ledgers
// may (a report is as large as its ledger, and compresses as well), and
// starts reading it, so that it is read while ledger files are; loaded
// waits for it, and may be called more than once. Reading it allocates
// next to nothing, so it does not make the garbage collector run more
// often while the audit grows.
func startBaseline(name string) (loaded func() (*baseline.Baseline, error), err error) {
	src, err := input.Open(name, nil) // never "-": refused before
	if err != nil {
		return nil, failure(fmt.Errorf("baseline: %w", named(name, err)))
	}
	var (
		b       *baseline.Baseline
		loadErr error
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		defer src.Close()
		b, loadErr = baseline.Load(name, src)
	}()
	return func() (*baseline.Baseline, error) {
		<-done
		if loadErr != nil {
			return nil, failure(fmt.Errorf("baseline: %w", loadErr))
		}
		return b, nil
	}, nil
}

// awaitBaseline waits for the baseline and returns it, or its error, or
// else the ledgers' error.
func awaitBaseline(loaded func() (*baseline.Baseline, error), ledgerErr error) (*baseline.Baseline, error) {
	b, err := loaded()
	if err != nil {
		return nil, err
	}
	return b, ledgerErr
}

// writeReport writes rep as a JSON report to out, for the next run's
// --baseline, and puts it in place.
func writeReport(out *output, rep *audit.Report) error {
	p, _ := report.New("json", report.Options{})
	if err := p.Print(out, rep); err != nil {
		return failure(fmt.Errorf("write baseline: %w", err))
	}
	if err := commit(out); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

// annotatedFiles returns the inputs' names as annotations point at them:
// none for standard input, which is no file in the repository.
func annotatedFiles(o *LedgerOptions, names []string) []string {
	files := slices.Clone(names)
	for i := range files {
		if !o.Example && (i >= len(o.Files) || o.Files[i] == input.Stdin) {
			files[i] = ""
		}
	}
	return files
}

// gateFails reports whether any operation carries a label or a finding
// named in failOn.
func gateFails(rep *audit.Report, failOn []string) bool {
	for _, l := range audit.Labels() {
		if rep.Summary.Labels[l] > 0 && slices.Contains(failOn, string(l)) {
			return true
		}
	}
	for code, n := range rep.Summary.Findings {
		if n > 0 && slices.Contains(failOn, code) {
			return true
		}
	}
	return false
}

package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/pflag"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/fixtures"
	"github.com/effectaudit/effectaudit/gctune"
	"github.com/effectaudit/effectaudit/ingest"
	"github.com/effectaudit/effectaudit/input"
	"github.com/effectaudit/effectaudit/ndjson"
	"github.com/effectaudit/effectaudit/otlp"
	"github.com/effectaudit/effectaudit/policy"
	"github.com/effectaudit/effectaudit/progress"
	"github.com/effectaudit/effectaudit/report"
)

// LedgerOptions are what every command that reads ledgers shares: the
// inputs and how strictly they are read.
type LedgerOptions struct {
	Files        []string
	Example      bool
	SkipInvalid  bool
	Rejects      string
	MaxLineBytes int
	Policy       string
	Quiet        bool
	InputFormat  string   // auto, ndjson or otlp
	Maps         []string // --map FIELD=PATH
	MapFile      string

	maxLine     sizeFlag
	inputFormat *enumFlag
	listInvalid bool // with SkipInvalid: the output lists every invalid line, so keep them
	showInvalid bool // with SkipInvalid: the output shows the first maxShownInvalid
	readOTLP    bool // set once an input was read as OTLP
	// read, if set, is called once the inputs are read, before anything is
	// said of them: an error it returns is the run's. The baseline, read
	// beside the inputs, is awaited there.
	read func() error
}

func (o *LedgerOptions) addFlags(f *pflag.FlagSet) {
	o.maxLine.n = ndjson.DefaultMaxLineBytes
	o.inputFormat = newEnumFlag("auto", "auto", "ndjson", "otlp")
	f.Var(o.inputFormat, "input-format", "auto (OTLP when an input's first line is an OTLP/JSON export), ndjson or otlp")
	f.StringArrayVar(&o.Maps, "map", nil, "read a ledger field from another place: `FIELD=PATH` (dotted path; for OTLP an attribute name)")
	f.StringVar(&o.MapFile, "map-file", "", "YAML `FILE` with a map: section of FIELD: PATH entries (--map wins)")
	f.BoolVar(&o.Example, "example", false, "read the built-in four-operation fixture")
	f.StringVar(&o.Policy, "policy", "", "retry policy `FILE` (YAML) for the findings; default: the built-in policy")
	f.BoolVar(&o.SkipInvalid, "skip-invalid", false, "audit the valid records and report the invalid lines instead of stopping at them")
	f.StringVar(&o.Rejects, "rejects", "", "write every invalid line verbatim to `FILE`")
	f.Var(&o.maxLine, "max-line-bytes", "longest accepted line, from 1 byte to 2GiB, e.g. 16MiB; longer lines are invalid records")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no progress on a terminal for long runs")
}

// complete fills in what flags parsed into helper values.
func (o *LedgerOptions) complete(files []string) error {
	o.Files = files
	o.MaxLineBytes = o.maxLine.n
	o.InputFormat = o.inputFormat.value
	if o.Example && len(files) > 0 {
		return usageError("--example reads the built-in fixture and takes no FILE")
	}
	if o.Example && o.InputFormat == "otlp" {
		return usageError("--input-format otlp: the built-in fixture is a ledger, not an OTLP export")
	}
	if len(files) > audit.MaxInputs {
		return usageError("%s given; one run audits at most %d: concatenate some of them first",
			report.Plural(len(files), "input"), audit.MaxInputs)
	}
	return nil
}

// finite reports whether every ledger input is the built-in fixture or a
// regular file, which reading cannot wait on: a baseline is read beside
// such inputs, and its error, if any, reported soon after they are read
// (any rejects are written all the same).
func (o *LedgerOptions) finite() bool {
	if o.Example {
		return true
	}
	for _, name := range o.Files {
		if st, err := os.Stat(name); name == input.Stdin || err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return len(o.Files) > 0 // none is standard input
}

// readLedgers audits the inputs of o and returns the report and the input
// names as reports show them. record, if set, sees every valid record (see
// ingest.Options.Record). In strict mode, invalid records end the run here
// with exit status 2 after listing them.
func readLedgers(s *Streams, o *LedgerOptions, record func(*audit.Record)) (rep *audit.Report, names []string, err error) {
	inputs, err := ledgerInputs(s, o)
	if err != nil {
		return nil, nil, err
	}
	opts, pol, err := pipelineOptions(o, record)
	if err != nil {
		return nil, nil, err
	}
	if err := o.refuseOutput(s, "rejects", o.Rejects, "writing it would empty it before it is read"); err != nil {
		return nil, nil, err
	}
	if o.Rejects != "" {
		w, done, cerr := create(o.Rejects)
		if cerr != nil {
			return nil, nil, failure(fmt.Errorf("rejects: %w", cerr))
		}
		// The last rejects are written here, when the buffer is flushed:
		// a failure must reach the named result, or the lines it held are
		// lost and the run still passes.
		defer func() {
			if derr := done(); derr != nil {
				rep, names, err = nil, nil, joinFailures(err, derr)
			}
		}()
		opts.Rejects = w
	}
	pipe := ingest.New(opts, func() *audit.Auditor { return audit.New(pol) })

	if o.Example {
		names = append(names, fixtures.FourOperationsName)
		in := ingest.Input{Name: fixtures.FourOperationsName, R: bytes.NewReader(fixtures.FourOperations)}
		if err := pipe.Read(in, 0); err != nil {
			return nil, nil, failure(err)
		}
	} else {
		for i, name := range inputs {
			display := name
			if name == input.Stdin {
				display = "<stdin>"
			}
			names = append(names, display)
			if err := readInput(s, o, pipe, recordMarks(opts.Fields), name, display, i); err != nil {
				return nil, nil, failure(err)
			}
		}
	}
	if o.read != nil {
		if err := o.read(); err != nil {
			return nil, nil, err
		}
	}
	rep = pipe.Report()
	if rep.Summary.InvalidLines > 0 && !o.SkipInvalid {
		return nil, nil, strictFailure(s.ErrOut, rep)
	}
	return rep, names, nil
}

// ledgerInputs returns the inputs o names, or standard input when it names
// none, refusing those and the config files that the run writes to.
func ledgerInputs(s *Streams, o *LedgerOptions) ([]string, error) {
	inputs := o.Files
	if len(inputs) == 0 && !o.Example {
		if s.InTTY {
			return nil, usageError("no input: give a ledger FILE, pipe NDJSON into standard input, or try --example")
		}
		inputs = []string{input.Stdin}
	}
	for _, name := range inputs {
		if err := refuseOwnStreams(s, name, name); err != nil {
			return nil, err
		}
	}
	for _, f := range []flagFile{{"policy", o.Policy}, {"map-file", o.MapFile}} {
		if err := refuseOwnStreams(s, "--"+f.flag+" "+f.path, f.path); err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

// pipelineOptions loads the policy and the field map o names, and returns
// them as the pipeline's options and the policy its auditors judge by.
func pipelineOptions(o *LedgerOptions, record func(*audit.Record)) (ingest.Options, *policy.Policy, error) {
	pol, err := loadPolicy(o.Policy)
	if err != nil {
		return ingest.Options{}, nil, err
	}
	fields, err := loadFields(o.Maps, o.MapFile)
	if err != nil {
		return ingest.Options{}, nil, err
	}
	opts := ingest.Options{MaxLineBytes: o.MaxLineBytes, Record: record, OTLP: otlp.DefaultMapping()}
	if fields != nil {
		opts.Fields = fields
		opts.OTLP.Apply(fields)
	}
	switch {
	case !o.SkipInvalid || o.showInvalid && !o.listInvalid:
		opts.KeepInvalid = maxShownInvalid
	case !o.listInvalid:
		opts.KeepInvalid = -1 // counted, never listed
	}
	return opts, pol, nil
}

// named prefixes err with the name of the input it is about, unless it is
// a *fs.PathError, which names the file already.
func named(name string, err error) error {
	if errors.As(err, new(*fs.PathError)) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// readInput audits one input, with progress on a terminal after a second.
func readInput(s *Streams, o *LedgerOptions, pipe *ingest.Pipeline, marks []string, name, display string, index int) error {
	src, err := input.Open(name, s.In)
	if err != nil {
		return named(display, err)
	}
	in := ingest.Input{Name: display}
	// Just big enough to sniff the format: the pipeline reads chunks of
	// 256 KiB, which a smaller buffer passes straight through.
	br := bufio.NewReaderSize(src, sniffPeekBytes)
	in.R = br
	if in.OTLP, err = isOTLP(br, o.InputFormat, marks); err != nil {
		src.Close()
		return fmt.Errorf("%s: %w", display, err)
	}
	o.readOTLP = o.readOTLP || in.OTLP
	stop := progress.Start(s.ErrOut, s.ErrTTY && !o.Quiet, progress.Counters{
		Bytes: src.Consumed, Total: src.Size, Records: pipe.Records, Ops: pipe.Operations,
	}, progress.Options{Width: s.ErrWidth})
	err = pipe.Read(in, index)
	stop()
	if cerr := src.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("%s: %w", display, cerr)
	}
	return err
}

// tuneGC sizes the garbage collector's headroom for an audit, unless the
// user set GOGC, and returns what undoes it. Nearly all the audit's heap
// stays live to the end, so Go's default headroom (GOGC=100) would only
// double its peak memory; 32 MB above the live heap, but at least 3%
// of a large one, costs little CPU as the state holds few pointers. Where
// much of the heap does hold pointers (explain keeping a busy operation's
// records), the headroom grows with it, so that collections do not run
// ever more often over ever more.
func tuneGC(s *Streams) (stop func()) {
	if s.Getenv("GOGC") != "" {
		return func() {}
	}
	return gctune.Start(gctune.Options{Headroom: 32 << 20, MinPercent: 3, MaxPercent: 100})
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
	fmt.Fprintf(w, "effectaudit: %d invalid of %s; nothing audited (use --skip-invalid to audit the rest)\n",
		rep.Summary.InvalidLines, report.Plural(rep.Summary.Lines, "line"))
	if err := w.Flush(); err != nil {
		return failure(err)
	}
	return silentExit(ExitError)
}

package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/fieldmap"
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
	inputs := o.Files
	if len(inputs) == 0 && !o.Example {
		if s.InTTY {
			return nil, nil, usageError("no input: give a ledger FILE, pipe NDJSON into standard input, or try --example")
		}
		inputs = []string{input.Stdin}
	}
	for _, name := range inputs {
		if err := refuseOwnStreams(s, name, name); err != nil {
			return nil, nil, err
		}
	}
	for _, f := range []flagFile{{"policy", o.Policy}, {"map-file", o.MapFile}} {
		if err := refuseOwnStreams(s, "--"+f.flag+" "+f.path, f.path); err != nil {
			return nil, nil, err
		}
	}
	pol, err := loadPolicy(o.Policy)
	if err != nil {
		return nil, nil, err
	}
	fields, err := loadFields(o.Maps, o.MapFile)
	if err != nil {
		return nil, nil, err
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
			if err := readInput(s, o, pipe, recordMarks(fields), name, display, i); err != nil {
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

// refuseInput refuses a file that flag would write and that is also one
// of o's inputs (standard input included, when it is a file): writing it
// would destroy the input, as why says.
func (o *LedgerOptions) refuseInput(s *Streams, flag, path, why string) error {
	target, err := os.Stat(path)
	if err != nil || o.Example {
		return nil // not there yet (or the write will say why not), or no file is read
	}
	inputs := o.Files
	if len(inputs) == 0 {
		inputs = []string{input.Stdin}
	}
	for _, name := range inputs {
		var st os.FileInfo
		if name == input.Stdin {
			st = streamFile(s.In)
		} else {
			st, _ = os.Stat(name) // nil if it cannot be read: reading will say so
		}
		if st != nil && os.SameFile(target, st) {
			return usageError("--%s %s is also an input: %s", flag, path, why)
		}
	}
	return nil
}

// refuseOwnFiles refuses a file that flag would write and that is also the
// --policy or --map-file file: writing would replace what the run reads.
// refuseOutput refuses path, which flag writes, when it is standard output
// or error, one of the inputs (why says what writing it would do) or a
// config file the run reads; "" is no file and passes.
func (o *LedgerOptions) refuseOutput(s *Streams, flag, path, why string) error {
	if err := refuseStreams(s, flag, path); err != nil || path == "" {
		return err
	}
	if err := o.refuseInput(s, flag, path, why); err != nil {
		return err
	}
	return o.refuseOwnFiles(flag, path)
}

func (o *LedgerOptions) refuseOwnFiles(flag, path string) error {
	return refuseSame(flag, path, flagFile{"policy", o.Policy}, flagFile{"map-file", o.MapFile})
}

// flagFile is the file a flag names; "" when the flag is not given.
type flagFile struct{ flag, path string }

// refuseSame refuses path, which flag would write, when it is also one of
// the others' files.
func refuseSame(flag, path string, others ...flagFile) error {
	for _, other := range others {
		if other.path != "" && sameFile(path, other.path) {
			return usageError("--%s %s is also the --%s file: give each its own", flag, path, other.flag)
		}
	}
	return nil
}

// refuseStreams refuses path, which flag would write, when it is standard
// output ("-", or standard output's file by another name): the report's;
// or standard error's file (see refuseStderrFile).
func refuseStreams(s *Streams, flag, path string) error {
	if path == input.Stdin || path != "" && writesTo(s, path) {
		return usageError("--%s %s: standard output is the report's; name another file", flag, path)
	}
	return refuseStderrFile(s, flag, path)
}

// refuseStderrFile refuses path, which flag would write, when it is the
// regular file standard error writes to, by any name: a CI job's log,
// which writing the output there would empty or replace. (Standard error's
// pipe or terminal takes no harm: there the lines written join the
// messages.)
func refuseStderrFile(s *Streams, flag, path string) error {
	if path != "" && isStream(s.ErrOut, path, nil) {
		return usageError("--%s %s: standard error goes to that file; name another file", flag, path)
	}
	return nil
}

// writesTo reports whether standard output writes to the file at path.
func writesTo(s *Streams, path string) bool {
	return isStream(s.Out, path, []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/proc/thread-self/fd/1"})
}

// isStream reports whether path is the file that stream, a standard
// stream, writes to, such that writing to path harms what the stream
// writes: when that file keeps what is written (a regular file), or, if
// names are given, is a pipe that path names as the stream itself (one of
// names) or by the name of a FIFO. /dev/null, a terminal, or the other
// stream sharing a pipe with it (/dev/stderr) take no harm.
func isStream(stream any, path string, names []string) bool {
	out, ok := streamAt(stream, path)
	if !ok {
		return false
	}
	if out.Mode().IsRegular() || names == nil || out.Mode()&os.ModeCharDevice != 0 {
		return out.Mode().IsRegular()
	}
	clean := filepath.Clean(path)
	descriptor := strings.HasPrefix(clean, "/dev/") || strings.HasPrefix(clean, "/proc/")
	return slices.Contains(names, clean) || !descriptor
}

// refuseOwnStreams refuses path, which the run would read (what names it
// in the message: an input, or a flag and its value), when it is the
// regular file or the pipe that standard output or standard error writes
// to, by any name: reading its own pipe, the run would wait for ever for
// itself to close it, and the file is one it writes (the report, or a
// job's log), which a shell's > has just emptied (audit x.ndjson >
// x.ndjson would pass on no records). A terminal is read as any terminal
// is, until end of file is typed, and /dev/null reads as empty.
func refuseOwnStreams(s *Streams, what, path string) error {
	switch {
	case path == "" || path == input.Stdin:
	case isStreamFile(s.Out, path):
		return usageError("%s: that is standard output, which this run writes to; name another file", what)
	case isStreamFile(s.ErrOut, path):
		return usageError("%s: that is standard error, which this run writes to; name another file", what)
	}
	return nil
}

// isStreamFile reports whether path names the regular file or the pipe
// that stream, a standard stream, is.
func isStreamFile(stream any, path string) bool {
	out, ok := streamAt(stream, path)
	return ok && (out.Mode().IsRegular() || out.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0)
}

// streamAt returns what file stream, a standard stream, is, and whether
// path names that file.
func streamAt(stream any, path string) (os.FileInfo, bool) {
	out := streamFile(stream)
	st, err := os.Stat(path)
	return out, out != nil && err == nil && os.SameFile(out, st)
}

// streamFile returns what file a standard stream is, or nil when it is no
// file (a test's buffer) or cannot be told.
func streamFile(stream any) os.FileInfo {
	if f, ok := stream.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			return st
		}
	}
	return nil
}

// sameFile reports whether paths a and b name one file: the same file if
// both exist, else the same absolute path once links are followed (a link
// to a file not made yet names that file).
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		// A character device (/dev/null, a terminal) keeps nothing to lose.
		return os.SameFile(sa, sb) && sa.Mode()&os.ModeCharDevice == 0
	}
	absA, errA := filepath.Abs(replaced(a))
	absB, errB := filepath.Abs(replaced(b))
	return errA == nil && errB == nil && absA == absB
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

// loadFields builds the field mapping of --map-file and --map (which wins);
// nil when there is none.
func loadFields(specs []string, file string) (*fieldmap.Map, error) {
	var m *fieldmap.Map
	if file != "" {
		data, err := readConfig("map file", file)
		if err != nil {
			return nil, err
		}
		if m, err = fieldmap.Load(file, data); err != nil {
			// Named, as a ledger's errors have the same file:line form.
			return nil, usageError("map file %v", err)
		}
	}
	if len(specs) > 0 {
		flags, err := fieldmap.Parse(specs)
		if err != nil {
			return nil, usageError("%v", err)
		}
		m = m.Merge(flags)
	}
	if m == nil || m.Len() == 0 {
		return nil, nil
	}
	return m, nil
}

// maxConfigBytes bounds what --policy and --map-file read: each is a few
// lines of YAML, and a ledger or a device named by mistake must not be read
// whole into memory before the first line is found wrong.
const maxConfigBytes = 1 << 20

// readConfig reads the --policy or --map-file file name; what names the
// file's kind in errors.
func readConfig(what, name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, failure(fmt.Errorf("%s: %w", what, err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, failure(fmt.Errorf("%s: %w", what, err))
	}
	if len(data) > maxConfigBytes {
		return nil, usageError("%s %s: larger than %d MiB; it is a few lines of YAML", what, name, maxConfigBytes>>20)
	}
	return data, nil
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

// loadPolicy reads the --policy file, or returns the built-in policy.
func loadPolicy(name string) (*policy.Policy, error) {
	if name == "" {
		return policy.Default(), nil
	}
	data, err := readConfig("policy", name)
	if err != nil {
		return nil, err
	}
	p, err := policy.Parse(name, data)
	if err != nil {
		// Named, as a ledger's errors have the same file:line form.
		return nil, usageError("policy %v", err)
	}
	return p, nil
}

package cmd

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/effectaudit/effectaudit/fixtures"
)

// TestAuditFlags checks argv → options without running an audit.
func TestAuditFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want AuditOptions
	}{
		{
			name: "defaults",
			args: []string{"ledger.ndjson"},
			want: AuditOptions{Ledger: LedgerOptions{Files: []string{"ledger.ndjson"}, MaxLineBytes: 16 << 20, InputFormat: "auto"},
				Format: "table", FailOn: []string{"duplicate", "key-conflict", "uncertain"}},
		},
		{
			name: "every flag",
			args: []string{"-f", "ndjson", "--fail-on", "duplicate, key-conflict,duplicate,shared-key", "--skip-invalid",
				"--rejects", "bad.ndjson", "--max-line-bytes", "64KiB", "--all", "--policy", "p.yaml", "--input-format", "otlp", "--map", "operationId=op_id", "-q", "a", "-", "b"},
			want: AuditOptions{
				Ledger: LedgerOptions{Files: []string{"a", "-", "b"}, SkipInvalid: true, Rejects: "bad.ndjson",
					MaxLineBytes: 64 << 10, Policy: "p.yaml", InputFormat: "otlp", Maps: []string{"operationId=op_id"}, Quiet: true},
				Format: "ndjson", FailOn: []string{"duplicate", "key-conflict", "shared-key"}, All: true},
		},
		{
			name: "fail-on repeated",
			args: []string{"--example", "--fail-on", "duplicate", "--fail-on", "uncertain,duplicate", "--fail-on", "orphan-effect"},
			want: AuditOptions{Ledger: LedgerOptions{Example: true, MaxLineBytes: 16 << 20, InputFormat: "auto"}, Format: "table",
				FailOn: []string{"duplicate", "uncertain", "orphan-effect"}},
		},
		{
			name: "fail-on none twice",
			args: []string{"--example", "--fail-on", "none", "--fail-on", " none "},
			want: AuditOptions{Ledger: LedgerOptions{Example: true, MaxLineBytes: 16 << 20, InputFormat: "auto"}, Format: "table"},
		},
		{
			name: "max-line-bytes at the limits",
			args: []string{"--example", "--max-line-bytes", "2GiB", "--max-line-bytes", "1"},
			want: AuditOptions{Ledger: LedgerOptions{Example: true, MaxLineBytes: 1, InputFormat: "auto"}, Format: "table", FailOn: []string{"duplicate", "key-conflict", "uncertain"}},
		},
		{
			name: "fail-on none",
			args: []string{"--example", "--fail-on", "none"},
			want: AuditOptions{Ledger: LedgerOptions{Example: true, MaxLineBytes: 16 << 20, InputFormat: "auto"}, Format: "table"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streams, _, _ := TestStreams("")
			var got *AuditOptions
			c := NewCmdAudit(streams, func(o *AuditOptions) error { got = o; return nil })
			c.SetArgs(tt.args)
			if err := c.Execute(); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if diff := cmp.Diff(&tt.want, got, cmpopts.IgnoreFields(AuditOptions{}, "Streams"), cmpopts.IgnoreUnexported(LedgerOptions{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAuditFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, `"xml" is not one of table, json, ndjson`},
		{[]string{"--fail-on", "dupe"}, `"dupe" is not one of none, key-conflict, duplicate, healthy, absent, uncertain, key-churn,`},
		{[]string{"--fail-on", ","}, "empty list"},
		{[]string{"--fail-on", "none,duplicate"}, "none cannot be combined with names"},
		{[]string{"--fail-on", "duplicate", "--fail-on", "none"}, "none cannot be combined with names"},
		{[]string{"--fail-on", "none", "--fail-on", "duplicate"}, "names cannot be combined with none"},
		{[]string{"--max-line-bytes", "0"}, `"0" is below the smallest size, 1 byte`},
		{[]string{"--max-line-bytes", "-1KiB"}, "is below the smallest size"},
		{[]string{"--max-line-bytes", "-99999999999999999999"}, "is below the smallest size"},
		{[]string{"--max-line-bytes", "3GiB"}, `"3GiB" is above the largest size, 2GiB`},
		{[]string{"--max-line-bytes", "2147483649"}, "is above the largest size"},
		{[]string{"--max-line-bytes", "99999999999999999999"}, "is above the largest size"},
		{[]string{"--max-line-bytes", "16 MB"}, "is not a size such as"},
		{[]string{"--max-line-bytes", "KiB"}, "is not a size such as"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			streams, _, stderr := TestStreams("")
			code := Main(streams, append([]string{"audit"}, tt.args...)...)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tt.want)
			}
		})
	}
}

// TestCompressedInputs checks that gzip, zstd, xz and bzip2 are recognised
// by content, whatever the file is called, also one inside another, and
// give the plain file's report.
func TestCompressedInputs(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(fixtures.FourOperations)
	zw.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zst := enc.EncodeAll(fixtures.FourOperations, nil)
	// As pzstd writes it: a skippable frame (magic 0x184D2A50, a length,
	// the frame's size) before each frame.
	half := len(fixtures.FourOperations) / 2
	var pzst []byte
	for _, part := range [][]byte{fixtures.FourOperations[:half], fixtures.FourOperations[half:]} {
		frame := enc.EncodeAll(part, nil)
		pzst = append(pzst, 0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0)
		pzst = binary.LittleEndian.AppendUint32(pzst, uint32(len(frame)))
		pzst = append(pzst, frame...)
	}
	var xzData bytes.Buffer
	xw, err := xz.NewWriter(&xzData)
	if err != nil {
		t.Fatal(err)
	}
	xw.Write(fixtures.FourOperations)
	xw.Close()
	// The standard library reads bzip2 but does not write it: the file was
	// made with bzip2(1).
	bz2, err := os.ReadFile(filepath.Join("..", "input", "testdata", "four-operations.ndjson.bz2"))
	if err != nil {
		t.Fatal(err)
	}
	var gzOfZst bytes.Buffer
	zw = gzip.NewWriter(&gzOfZst)
	zw.Write(zst)
	zw.Close()
	files := map[string][]byte{"plain.ndjson": fixtures.FourOperations, "ledger.gz.txt": gz.Bytes(), "ledger.bin": zst, "ledger.pzst": pzst,
		"ledger.xz": xzData.Bytes(), "ledger.data": bz2, "ledger.zst.gz": gzOfZst.Bytes()}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, int) {
		streams, stdout, stderr := TestStreams("")
		code := Main(streams, args...)
		if stderr.Len() > 0 {
			t.Errorf("stderr: %s", stderr)
		}
		return stdout.String(), code
	}
	want, wantCode := run("audit", "-f", "ndjson", filepath.Join(dir, "plain.ndjson"))
	for _, name := range []string{"ledger.gz.txt", "ledger.bin", "ledger.pzst", "ledger.xz", "ledger.data", "ledger.zst.gz"} {
		got, code := run("audit", "-f", "ndjson", filepath.Join(dir, name))
		if diff := cmp.Diff(want, got); diff != "" || code != wantCode {
			t.Errorf("%s: exit %d (want %d), report (-plain +compressed):\n%s", name, code, wantCode, diff)
		}
	}

	// OTLP exports are recognised after decompression.
	otlpData, err := os.ReadFile(filepath.Join("..", "otlp", "testdata", "four-operations.otlp.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var otlpGz bytes.Buffer
	zw = gzip.NewWriter(&otlpGz)
	zw.Write(otlpData)
	zw.Close()
	otlpFile := filepath.Join(dir, "traces.json.gz")
	if err := os.WriteFile(otlpFile, otlpGz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, code := run("audit", "-f", "ndjson", otlpFile); code != wantCode || strings.Count(got, "\n") != 4 {
		t.Errorf("gzip OTLP: exit %d, report %q", code, got)
	}

	// Compressed standard input too.
	streams, stdout, _ := TestStreams(gz.String())
	if code := Main(streams, "audit", "-f", "ndjson"); code != wantCode || stdout.String() != want {
		t.Errorf("gzip on stdin: exit %d, report %q", code, stdout.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, errors.New("no space left on device") }

// TestWriteFailureIsExit2 makes sure a report that cannot be written never
// passes the gate, in every format.
func TestWriteFailureIsExit2(t *testing.T) {
	for _, format := range []string{"table", "json", "ndjson"} {
		t.Run(format, func(t *testing.T) {
			streams, _, stderr := TestStreams("")
			streams.Out = failingWriter{}
			code := Main(streams, "audit", "--example", "--fail-on", "none", "--format", format)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if !strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("stderr %q does not name the write error", stderr.String())
			}
		})
	}
}

// TestHelpWriteFailureIsExit2 checks that help or a completion script that
// cannot be written fails, as a report does and without a usage hint,
// where cobra would pass help as printed.
func TestHelpWriteFailureIsExit2(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"audit", "--help"}, {"help", "explain"}, {"completion"}, {"completion", "bash"}, {}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			streams, _, stderr := TestStreams("")
			streams.Out = failingWriter{}
			code := Main(streams, args...)
			if code != ExitError || !strings.Contains(stderr.String(), "no space left on device") || strings.Contains(stderr.String(), "for usage") {
				t.Errorf("exit %d, stderr %q; want %d and the write error, no usage hint", code, stderr, ExitError)
			}
		})
	}
}

func TestRejectsUnwritable(t *testing.T) {
	streams, _, stderr := TestStreams("")
	code := Main(streams, "audit", "--example", "--rejects", filepath.Join(t.TempDir(), "missing", "rejects.ndjson"))
	if code != ExitError || !strings.Contains(stderr.String(), "rejects") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming the rejects file", code, stderr.String())
	}
}

// TestCompressedHeaderErrors cuts compressed inputs short, or breaks their
// headers: the error names the input, as every read error does.
func TestCompressedHeaderErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join("..", "fixtures", "four-operations.ndjson")
	for name, data := range map[string][]byte{
		"magic-only.gz": {0x1f, 0x8b},
		"bad-method.gz": append([]byte{0x1f, 0x8b, 0x07, 0, 0, 0, 0, 0, 0, 3}, "abcdefghijk"...),
		"cut-frame.zst": {0x28, 0xb5, 0x2f, 0xfd, 0x04},
		"cut-skip.pzst": {0x50, 0x2a, 0x4d, 0x18, 4, 0},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			streams, _, stderr := TestStreams("")
			code := Main(streams, "audit", "--fail-on", "none", plain, path)
			if code != ExitError || !strings.HasPrefix(stderr.String(), "effectaudit: "+path+": ") {
				t.Errorf("exit %d, stderr %q; want exit 2 and the input named first", code, stderr)
			}
		})
	}
}

// TestRejectsWriteFailure fills the disk under the rejects file: the run
// must fail with the write error, with no report, whether or not it is
// strict. The rejects are written when the run ends, from a buffer.
func TestRejectsWriteFailure(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	ledger := filepath.Join(t.TempDir(), "ledger.ndjson")
	if err := os.WriteFile(ledger, []byte("not json\n{\"type\":\"attempt\",\"operationId\":\"op-1\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantStderr []string
	}{
		{"skip invalid", []string{"--skip-invalid", "--fail-on", "none"}, []string{"writing /dev/full", "no space left on device"}},
		{"strict", nil, []string{"1 invalid of 2 lines", "writing /dev/full", "no space left on device"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streams, stdout, stderr := TestStreams("")
			code := Main(streams, append([]string{"audit", ledger, "--rejects", "/dev/full"}, tt.args...)...)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if stdout.Len() > 0 {
				t.Errorf("a report was printed:\n%s", stdout)
			}
			for _, want := range tt.wantStderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
			}
		})
	}
}

// TestWrittenFileIsInput refuses a rejects file or a baseline to write that
// is one of the inputs, named or on standard input, and leaves the input as
// it was. Writing the baseline over the one read is allowed (see
// testdata/e2e/write-baseline-over-baseline.txt).
func TestWrittenFileIsInput(t *testing.T) {
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.ndjson")
	content := []byte("not json\n{\"type\":\"attempt\",\"operationId\":\"op-1\"}\n")
	if err := os.WriteFile(ledger, content, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		args  []string
		stdin bool
	}{
		{"named", []string{ledger}, false},
		{"among others", []string{filepath.Join("..", "fixtures", "four-operations.ndjson"), filepath.Join(dir, ".", "ledger.ndjson")}, false},
		{"standard input", nil, true},
	} {
		for _, flag := range []string{"--rejects", "--write-baseline"} {
			t.Run(tt.name+"/"+flag, func(t *testing.T) {
				streams, stdout, stderr := TestStreams("")
				if tt.stdin {
					f, err := os.Open(ledger)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					streams.In = f
				}
				args := append([]string{"audit", "--skip-invalid", flag, ledger}, tt.args...)
				if code := Main(streams, args...); code != ExitError {
					t.Errorf("exit %d, want %d; stdout %q", code, ExitError, stdout)
				}
				if want := flag + " " + ledger + " is also an input"; !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
				if got, err := os.ReadFile(ledger); err != nil || !bytes.Equal(got, content) {
					t.Errorf("the input now holds %q (%v), want it unchanged", got, err)
				}
			})
		}
	}
}

// TestRejectsIsBaseline refuses a rejects file that is also the baseline
// read or the one written: emptied as the run starts, it would lose the
// baseline, or the report would replace the rejected lines.
func TestRejectsIsBaseline(t *testing.T) {
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.ndjson")
	if err := os.WriteFile(ledger, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base.json")
	baseContent := []byte(`{"schemaVersion":1,"operations":[]}`)
	if err := os.WriteFile(base, baseContent, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, want string
		args       []string
	}{
		{"the baseline read", "--rejects " + base + " is also the --baseline file", []string{"--baseline", base, "--rejects", filepath.Join(dir, ".", "base.json")}},
		{"the baseline written, not there yet", "is also the --write-baseline file", []string{"--write-baseline", filepath.Join(dir, "new.json"), "--rejects", filepath.Join(dir, "sub", "..", "new.json")}},
		{"the baseline written over the one read", "is also the --baseline file", []string{"--baseline", base, "--write-baseline", base, "--rejects", base}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			streams, _, stderr := TestStreams("")
			code := Main(streams, append([]string{"audit", "--skip-invalid", ledger}, tt.args...)...)
			if code != ExitError || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.want)
			}
			if got, err := os.ReadFile(base); err != nil || !bytes.Equal(got, baseContent) {
				t.Errorf("the baseline now holds %q (%v), want it unchanged", got, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.json")); err == nil {
				t.Errorf("new.json was written")
			}
		})
	}
}

func TestJoinFailures(t *testing.T) {
	later := failure(errors.New("writing rejects: disk full"))
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"none before", nil, "writing rejects: disk full"},
		{"already printed", silentExit(ExitError), "writing rejects: disk full"},
		{"a failure before", failure(errors.New("ledger: read error")), "ledger: read error\nwriting rejects: disk full"},
		{"a plain error before", errors.New("boom"), "boom\nwriting rejects: disk full"},
		{"a wrapped failure before", fmt.Errorf("write baseline: %w", failure(errors.New("b.json: disk full"))),
			"write baseline: b.json: disk full\nwriting rejects: disk full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := joinFailures(tt.err, later)
			var stderr bytes.Buffer
			if code := exitCode(got, &stderr, "effectaudit audit"); code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if diff := cmp.Diff("effectaudit: "+tt.want+"\n", stderr.String()); diff != "" {
				t.Errorf("printed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExitCodeKeepsContext checks that context wrapped around a failure
// is printed with it, and that a wrapped silent exit prints nothing.
func TestExitCodeKeepsContext(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		want string
	}{
		{"a failure", failure(errors.New("b.json: disk full")), ExitError, "effectaudit: b.json: disk full\n"},
		{"a wrapped failure", fmt.Errorf("write baseline: %w", failure(errors.New("b.json: disk full"))), ExitError,
			"effectaudit: write baseline: b.json: disk full\n"},
		{"a wrapped silent exit", fmt.Errorf("gate: %w", silentExit(ExitFailOn)), ExitFailOn, ""},
		// What a CI runner would read as commands, quoted from an input.
		{"workflow commands defused", failure(errors.Join(errors.New(`p.json: near "##[error]x"`), errors.New("::warning::y"))), ExitError,
			"effectaudit: p.json: near \"\\x23#[error]x\"\n\\x3a:warning::y\n"},
		// A path with a CR would end the runner's line early, and one with
		// ESC could clear the terminal; the first line's "::" is no command.
		{"controls in a path", failure(errors.New("read d\r::error::D\x1b[2J: is a directory")), ExitError,
			"effectaudit: read d\\x0d::error::D\\x1b[2J: is a directory\n"},
		{"a path starting with ::", failure(errors.New("::g.ndjson: cut short")), ExitError, "effectaudit: ::g.ndjson: cut short\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := exitCode(tt.err, &stderr, "effectaudit audit"); code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if diff := cmp.Diff(tt.want, stderr.String()); diff != "" {
				t.Errorf("printed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	streams, stdout, _ := TestStreams("")
	if code := Main(streams, "version"); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(stdout.String(), "effectaudit ") || !strings.HasSuffix(stdout.String(), ")\n") {
		t.Errorf("version output %q", stdout.String())
	}
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		t.Run(shell, func(t *testing.T) {
			streams, stdout, stderr := TestStreams("")
			if code := Main(streams, "completion", shell); code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout.String(), "effectaudit") {
				t.Errorf("%s completion does not mention effectaudit", shell)
			}
		})
	}
}

// TestColor checks that colour appears only on a terminal without NO_COLOR.
func TestColor(t *testing.T) {
	tests := []struct {
		name    string
		tty     bool
		noColor string
		want    bool
	}{
		{"pipe", false, "", false},
		{"terminal", true, "", true},
		{"terminal with NO_COLOR", true, "1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streams, stdout, _ := TestStreams("")
			streams.OutTTY = tt.tty
			streams.Getenv = func(k string) string {
				if k == "NO_COLOR" {
					return tt.noColor
				}
				return ""
			}
			Main(streams, "audit", "--example")
			if got := strings.Contains(stdout.String(), "\x1b["); got != tt.want {
				t.Errorf("colour = %v, want %v:\n%s", got, tt.want, stdout)
			}
		})
	}
}

// TestTableFitsTerminal checks that the table fits a terminal's width, and
// keeps its own width of 120 where stdout is no terminal, whatever width
// the streams report.
func TestTableFitsTerminal(t *testing.T) {
	table := func(tty bool, width int) string {
		streams, stdout, _ := TestStreams("")
		streams.OutTTY, streams.OutWidth = tty, width
		streams.Getenv = func(k string) string {
			if k == "NO_COLOR" {
				return "1"
			}
			return ""
		}
		Main(streams, "audit", "--example")
		return stdout.String()
	}
	wrapped := func(out string) int { return strings.Count(out, "\n ") } // a row's lines after its first
	pipe := table(false, 0)
	if got := table(false, 200); got != pipe {
		t.Errorf("not a terminal, width 200:\n%s\nwant the table of a pipe:\n%s", got, pipe)
	}
	if got := table(true, 0); got != pipe {
		t.Errorf("a terminal of unknown width:\n%s\nwant the table of a pipe:\n%s", got, pipe)
	}
	if wrapped(pipe) == 0 {
		t.Fatalf("the table of a pipe wraps nothing, so this test shows nothing:\n%s", pipe)
	}
	if got := table(true, 200); wrapped(got) != 0 {
		t.Errorf("a terminal of 200 columns: next actions wrapped:\n%s", got)
	}
	// Narrower than the default: the action column shrinks to its floor,
	// and wraps more.
	if got := table(true, 100); wrapped(got) <= wrapped(pipe) {
		t.Errorf("a terminal of 100 columns: %d wrapped lines, want more than a pipe's %d:\n%s", wrapped(got), wrapped(pipe), got)
	}
}

// TestOutputIgnoresGOMAXPROCS runs the whole command on a generated ledger
// with 1, 2 and 8 procs: decoding, sharding and rendering spread over them,
// and the report must not change by a byte.
func TestOutputIgnoresGOMAXPROCS(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger.ndjson")
	streams, _, stderr := TestStreams("")
	if code := Main(streams, "generate", "--ops", "5000", "--seed", "9", "-o", ledger); code != ExitOK {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	want := map[string]string{}
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		for _, format := range []string{"json", "ndjson", "table"} {
			streams, stdout, stderr := TestStreams("")
			if code := Main(streams, "audit", "--fail-on", "none", "--all", "-f", format, ledger); code != ExitOK {
				t.Fatalf("GOMAXPROCS=%d: exit %d: %s", procs, code, stderr)
			}
			if procs == 1 {
				want[format] = stdout.String()
			} else if diff := cmp.Diff(want[format], stdout.String()); diff != "" {
				t.Errorf("GOMAXPROCS=%d, %s: report differs (-1 proc +%d procs):\n%s", procs, format, procs, diff)
			}
		}
	}
}

// TestBaselineAtScale audits a ledger against the report on its first
// part, with enough operations that marking runs in parallel batches
// (go test -race checks that it may), at GOMAXPROCS 1, 2 and 8, with the
// report plain and gzipped: the reports must agree, and must hold new,
// unchanged and resolved operations.
func TestBaselineAtScale(t *testing.T) {
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.ndjson")
	streams, _, stderr := TestStreams("")
	if code := Main(streams, "generate", "--ops", "4000", "--seed", "12", "-o", ledger); code != ExitOK {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	first := filepath.Join(dir, "first.ndjson")
	if err := os.WriteFile(first, bytes.Join(lines[:len(lines)*2/3], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base.json")
	streams, _, stderr = TestStreams("")
	if code := Main(streams, "audit", "--fail-on", "none", "-f", "ndjson", "--write-baseline", base, first); code != ExitOK {
		t.Fatalf("write baseline: exit %d: %s", code, stderr)
	}
	report, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(report); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	baseGz := filepath.Join(dir, "base.json.gz")
	if err := os.WriteFile(baseGz, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	want := map[string]string{}
	for _, procs := range []int{1, 2, 8} {
		for _, b := range []string{base, baseGz} {
			for _, format := range []string{"json", "table", "junit"} {
				t.Run(fmt.Sprintf("GOMAXPROCS=%d/%s/%s", procs, filepath.Base(b), format), func(t *testing.T) {
					runtime.GOMAXPROCS(procs)
					streams, stdout, stderr := TestStreams("")
					code := Main(streams, "audit", "--baseline", b, "-f", format, ledger)
					if code != ExitFailOn || stderr.Len() > 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					if w, ok := want[format]; !ok {
						want[format] = stdout.String()
					} else if diff := cmp.Diff(w, stdout.String()); diff != "" {
						t.Errorf("report differs from the first (-first +this):\n%s", diff)
					}
				})
			}
		}
	}
	for _, status := range []string{`"baseline": "new"`, `"baseline": "unchanged"`, `"baseline": "resolved"`} {
		if !strings.Contains(want["json"], status) {
			t.Errorf("no operation marked %s", status)
		}
	}
}

// TestBadBaselineBeforeStream checks that a bad baseline is reported at once
// when the ledger is a stream, which may not end for long (kubectl logs -f):
// a baseline is read beside files only.
func TestBadBaselineBeforeStream(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base.json")
	if err := os.WriteFile(base, []byte(`{"operations": `), 0o644); err != nil {
		t.Fatal(err)
	}
	stream, writer := io.Pipe() // nothing is ever written to it
	defer writer.Close()
	streams, _, stderr := TestStreams("")
	streams.In = stream
	exit := make(chan int, 1)
	go func() { exit <- Main(streams, "audit", "--baseline", base) }()
	select {
	case code := <-exit:
		if want := "baseline: " + base + ": not a JSON report: unexpected EOF"; code != ExitError || !strings.Contains(stderr.String(), want) {
			t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, ExitError, want)
		}
	case <-time.After(time.Minute): // a hang, not a slow run
		t.Fatal("the bad baseline is not reported while the ledger stream is open")
	}
}

// TestAnnotatedFiles checks which inputs annotations name: files, not
// standard input, and the fixture's name with --example.
func TestAnnotatedFiles(t *testing.T) {
	for _, tt := range []struct {
		name  string
		opts  LedgerOptions
		names []string
		want  []string
	}{
		{"files and standard input", LedgerOptions{Files: []string{"a.ndjson", "-", "b.ndjson"}},
			[]string{"a.ndjson", "<stdin>", "b.ndjson"}, []string{"a.ndjson", "", "b.ndjson"}},
		{"standard input alone", LedgerOptions{}, []string{"<stdin>"}, []string{""}},
		{"the fixture", LedgerOptions{Example: true}, []string{"four-operations.ndjson"}, []string{"four-operations.ndjson"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, annotatedFiles(&tt.opts, tt.names)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestGenerateTruthOnStdout refuses a truth file that is where standard
// output goes, when the ledger goes there.
func TestGenerateTruthOnStdout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.ndjson")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	streams, _, stderr := TestStreams("")
	streams.Out = f
	if code := Main(streams, "generate", "--ops", "3", "--truth", path); code != ExitError ||
		!strings.Contains(stderr.String(), "standard output holds the ledger") {
		t.Errorf("exit %d, stderr %q; want exit 2, the truth file refused", code, stderr)
	}
}

// TestGenerateToStdoutByName checks that generate writes a ledger or truth
// file named as standard output's file through the stream, so that what
// the file held stays (a shell's >>), where putting a new file in place
// would replace it.
func TestGenerateToStdoutByName(t *testing.T) {
	for _, args := range [][]string{{"-o"}, {"-o", os.DevNull, "--truth"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.txt")
			if err := os.WriteFile(path, []byte("earlier\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			streams, _, stderr := TestStreams("")
			streams.Out = f
			if code := Main(streams, append(append([]string{"generate", "--ops", "3"}, args...), path)...); code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if lines := strings.Count(string(got), "\n"); !strings.HasPrefix(string(got), "earlier\n") || lines < 4 {
				t.Errorf("the file holds %q; want what it held, then the output", got)
			}
		})
	}
}

// TestInputsOfAnotherKind checks that inputs that are no ledger, however
// compressed, are refused by what they are rather than taken for OTLP
// protobuf: UTF-16 text, a zip archive, and compression nested too deep.
func TestInputsOfAnotherKind(t *testing.T) {
	dir := t.TempDir()
	utf16 := []byte{0xff, 0xfe}
	for _, c := range fixtures.FourOperations {
		utf16 = append(utf16, c, 0)
	}
	gzipped := func(data []byte, times int) []byte {
		for range times {
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(data)
			zw.Close()
			data = gz.Bytes()
		}
		return data
	}
	nested := gzipped(fixtures.FourOperations, 5)
	// Deflate data that is no deflate stream, inside four layers: the
	// error is the stream's, not "too deep".
	corrupt := gzipped([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff}, 3)
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"utf16.ndjson":   {utf16, "the input is UTF-16"},
		"utf16be":        {[]byte{0xfe, 0xff, 0, '{'}, "the input is UTF-16"},
		"utf16le-nobom":  {utf16[2:], "the input looks like UTF-16"},
		"utf16be-nobom":  {[]byte{0, '{', 0, '"', 0, 't'}, "the input looks like UTF-16"},
		"ledger.zip":     {[]byte("PK\x03\x04\x14\x00\x00\x00"), "the input is a zip archive"},
		"deep.ndjson.gz": {nested, "compressed more than 4 times over"},
		"corrupt.gz":     {corrupt, "inside the compressed stream: flate"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			streams, _, stderr := TestStreams("")
			if code := Main(streams, "audit", "--skip-invalid", path); code != ExitError || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 saying %q", code, stderr, tc.want)
			}
		})
	}
}

func TestPlainFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "--skip-invalid=maybe", "--example"}, `invalid argument "maybe" for "--skip-invalid" flag: want true or false`},
		{[]string{"generate", "--ops", "abc"}, `invalid argument "abc" for "--ops" flag: want a whole number`},
		{[]string{"generate", "--ops", "99999999999999999999"}, `invalid argument "99999999999999999999" for "--ops" flag: out of range`},
		{[]string{"explain"}, "missing OPERATION_ID"},
		{[]string{"hash", "a", "b"}, "hash takes one FILE"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			streams, _, stderr := TestStreams("")
			if code := Main(streams, tc.args...); code != ExitError || !strings.Contains(stderr.String(), tc.want) || strings.Contains(stderr.String(), "strconv") {
				t.Errorf("exit %d, stderr %q; want exit 2 saying %q", code, stderr, tc.want)
			}
		})
	}
}

// TestHelpCommand checks that "help CMD" prints what "CMD --help" does.
func TestHelpCommand(t *testing.T) {
	for _, cmd := range [][]string{{}, {"audit"}, {"explain"}, {"hash"}, {"generate"}} {
		t.Run(strings.Join(append([]string{"help"}, cmd...), " "), func(t *testing.T) {
			run := func(args ...string) string {
				streams, stdout, stderr := TestStreams("")
				if code := Main(streams, args...); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, stderr)
				}
				return stdout.String()
			}
			want := run(append(slices.Clone(cmd), "--help")...)
			if diff := cmp.Diff(want, run(append([]string{"help"}, cmd...)...)); diff != "" {
				t.Errorf("help (-flag +command):\n%s", diff)
			}
		})
	}
}

// TestConfigFilesBounded checks that --policy and --map-file read at most
// maxConfigBytes: a file one byte over is refused by name, before more is
// read (so a device that never ends is refused at once too), and one at the
// limit is read.
func TestConfigFilesBounded(t *testing.T) {
	dir := t.TempDir()
	// An empty mapping, then a comment to make the file n bytes long.
	yaml := func(n int) []byte { return fmt.Appendf(nil, "{}\n#%s\n", bytes.Repeat([]byte(" "), n-5)) }
	atLimit, over := filepath.Join(dir, "at-limit.yaml"), filepath.Join(dir, "over.yaml")
	for name, n := range map[string]int{atLimit: maxConfigBytes, over: maxConfigBytes + 1} {
		if err := os.WriteFile(name, yaml(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, flag := range []string{"--policy", "--map-file"} {
		for _, tc := range []struct {
			name, file, wantErr string
			wantCode            int
		}{
			{"at the limit", atLimit, "", 1}, // the fixture's operations fail the gate
			{"a byte over", over, over + ": larger than 1 MiB", 2},
		} {
			t.Run(flag+" "+tc.name, func(t *testing.T) {
				streams, _, stderr := TestStreams("")
				code := Main(streams, "audit", "--example", flag, tc.file)
				if code != tc.wantCode || !strings.Contains(stderr.String(), tc.wantErr) || tc.wantErr == "" && stderr.Len() > 0 {
					t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.wantCode, tc.wantErr)
				}
			})
		}
	}
}

//go:build unix

package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOutputNewFileTakesUmask checks that a new file gets the permissions
// os.Create would give it, 0666 less the umask, not the temporary file's.
func TestOutputNewFileTakesUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	name := filepath.Join(t.TempDir(), "new.json")
	o, err := createOutput(name, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := commit(o); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o640 {
		t.Errorf("mode %v; want 0640 (0666 less the umask 027)", got)
	}
}

// TestWritesToStdout checks which names count as standard output's file,
// whose report writing there would harm: the regular file it is, and
// /dev/stdout naming a pipe, but not /dev/null, which keeps nothing.
func TestWritesToStdout(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.txt")
	f, err := os.Create(report)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, w := nullAndPipe(t)
	fifoName := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifoName, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo, err := os.OpenFile(fifoName, os.O_RDWR, 0) // read and write: opening does not wait
	if err != nil {
		t.Fatal(err)
	}
	defer fifo.Close()
	for _, tc := range []struct {
		name string
		out  *os.File
		path string
		want bool
	}{
		{"the report's regular file", f, report, true},
		{"another file", f, filepath.Join(dir, "other.txt"), false},
		{"/dev/null as standard output too", null, os.DevNull, false},
		{"a pipe, named by its own descriptor", w, "/dev/fd/" + fmt.Sprint(w.Fd()), false},
		{"a FIFO, named by its own name", fifo, fifoName, true},
		{"a FIFO, named by its own name, uncleaned", fifo, dir + "//./fifo", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := writesTo(&Streams{Out: tc.out}, tc.path); got != tc.want {
				t.Errorf("writesTo(%s) = %v; want %v", tc.path, got, tc.want)
			}
		})
	}
}

// TestRefuseStderrFile checks that an output flag may not name the regular
// file standard error writes to (a CI job's log, which creating the output
// would empty), by any name, but may name standard error's pipe, where its
// lines join the messages, or /dev/null.
func TestRefuseStderrFile(t *testing.T) {
	dir := t.TempDir()
	logName := filepath.Join(dir, "job.log")
	log, err := os.Create(logName)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	link := filepath.Join(dir, "link.log")
	if err := os.Symlink(logName, link); err != nil {
		t.Fatal(err)
	}
	null, w := nullAndPipe(t)
	for _, tc := range []struct {
		name    string
		errOut  *os.File
		path    string
		refused bool
	}{
		{"the log file", log, logName, true},
		{"the log file through a link", log, link, true},
		{"the log file by its descriptor", log, "/dev/fd/" + fmt.Sprint(log.Fd()), true},
		{"another file", log, filepath.Join(dir, "rejects.ndjson"), false},
		{"a pipe, by its descriptor", w, "/dev/fd/" + fmt.Sprint(w.Fd()), false},
		{"/dev/null as standard error too", null, os.DevNull, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := refuseStreams(&Streams{Out: null, ErrOut: tc.errOut}, "rejects", tc.path)
			if refused := err != nil; refused != tc.refused {
				t.Errorf("refuseStreams(%s) = %v; want refused %v", tc.path, err, tc.refused)
			}
		})
	}
}

// TestOutputsSpareStderrFile checks that every output flag refuses the
// file standard error goes to, leaving what it holds as it was.
func TestOutputsSpareStderrFile(t *testing.T) {
	for _, args := range [][]string{
		{"audit", "--example", "--rejects"},
		{"audit", "--example", "--write-baseline"},
		{"generate", "--ops", "10", "-o"},
		{"generate", "--ops", "10", "-o", os.DevNull, "--truth"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			logName := filepath.Join(t.TempDir(), "job.log")
			log, err := os.Create(logName)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			if _, err := log.WriteString("earlier steps\n"); err != nil {
				t.Fatal(err)
			}
			streams, _, _ := TestStreams("")
			streams.ErrOut = log
			if code := Main(streams, append(args, logName)...); code != 2 {
				t.Errorf("exit %d; want 2", code)
			}
			got, err := os.ReadFile(logName)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(got), "earlier steps\n") || !strings.Contains(string(got), "standard error goes to that file") {
				t.Errorf("the log holds %q", got)
			}
		})
	}
}

// nullAndPipe opens /dev/null for writing, and a pipe whose write end it
// returns, both closed when the test ends: streams that keep nothing.
func nullAndPipe(t *testing.T) (null, w *os.File) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { null.Close() })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return null, w
}

// TestReplacedDotDotAfterLink checks that ".." in a link's target, after a
// part of it that is a link itself, climbs from where that link leads.
func TestReplacedDotDotAfterLink(t *testing.T) {
	base := t.TempDir()
	t.Chdir(base)
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../c", "a/b/cl"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("cl/../t.json", "a/b/tl"); err != nil {
		t.Fatal(err)
	}
	got, err := filepath.Abs(replaced("a/b/tl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(base, "t.json"); got != want {
		t.Errorf("replaced(a/b/tl) = %s; want %s", got, want)
	}
}

// TestOutputLinkLoop checks that a loop of links is an error, not a file
// made in the link's place.
func TestOutputLinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "loopa"), filepath.Join(dir, "loopb")
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	if _, err := createOutput(a, nil, nil); err == nil {
		t.Error("createOutput through a loop of links succeeded")
	}
}

// TestTempCreateError checks that a failure to create an output's
// temporary file names the output, and, when permission is refused, the
// directory that must be writable: a user who finds the output itself
// writable is otherwise left guessing. (Tests run as root here, for whom
// no directory refuses, so the errors are made up; their text is Unix's.)
func TestTempCreateError(t *testing.T) {
	tmp := "d/.base.json.0123456789ab.tmp"
	other := errors.New("stopped by a signal")
	// What os.OpenFile returns: an errno, which only errors.Is takes
	// for fs.ErrPermission.
	tests := []struct {
		name, target string
		err          error
		want         string
	}{
		{"d/base.json", "d/base.json", &fs.PathError{Op: "open", Path: tmp, Err: syscall.EACCES},
			"create d/base.json: permission denied (it is written to a new file in d, then renamed over it, so that directory must be writable)"},
		{"d/base.json", "d/base.json", &fs.PathError{Op: "open", Path: tmp, Err: syscall.EPERM},
			"create d/base.json: operation not permitted (it is written to a new file in d, then renamed over it, so that directory must be writable)"},
		{"link.json", "real/base.json", &fs.PathError{Op: "open", Path: tmp, Err: syscall.EACCES},
			"create link.json: permission denied (it is written to a new file in real, then renamed over it, so that directory must be writable)"},
		{"base.json", "base.json", &fs.PathError{Op: "open", Path: tmp, Err: syscall.EACCES},
			"create base.json: permission denied (it is written to a new file in ., then renamed over it, so that directory must be writable)"},
		{"d/base.json", "d/base.json", &fs.PathError{Op: "open", Path: tmp, Err: syscall.ENOENT},
			"create d/base.json: no such file or directory"},
		{"d/base.json", "d/base.json", other, "stopped by a signal"},
	}
	for _, tt := range tests {
		err := tempCreateError(tt.name, tt.target, tt.err)
		if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
			t.Errorf("tempCreateError(%q, %q, %v) (-want +got):\n%s", tt.name, tt.target, tt.err, diff)
		}
		if !errors.Is(err, fs.ErrPermission) && errors.Is(tt.err, fs.ErrPermission) {
			t.Errorf("tempCreateError(%q, %q, %v) = %v, which no longer is fs.ErrPermission", tt.name, tt.target, tt.err, err)
		}
	}
}

// TestReadFlagsRefuseOwnStreams checks that --baseline, --policy,
// --map-file, a ledger (of audit or explain) and hash's document naming
// standard output's or standard error's regular file or pipe, by any
// name, are refused at once: read, the run's own pipe would wait for it
// to close it, for ever, and the file is one it writes. Another pipe, as
// <(cat FILE) gives, is read, and /dev/null as the empty file it is.
func TestReadFlagsRefuseOwnStreams(t *testing.T) {
	dir := t.TempDir()
	reportName := filepath.Join(dir, "report.json")
	report, err := os.Create(reportName)
	if err != nil {
		t.Fatal(err)
	}
	defer report.Close()
	baseName := filepath.Join(dir, "base.json")
	streams, _, _ := TestStreams("")
	streams.Out = report
	if code := Main(streams, "audit", "--example", "--fail-on", "none", "--write-baseline", baseName); code != ExitOK {
		t.Fatalf("writing the baseline: exit %d", code)
	}
	policyName := filepath.Join(dir, "policy.yaml")
	mapName := filepath.Join(dir, "map.yaml")
	for name, text := range map[string]string{policyName: "{}\n", mapName: "map: {}\n"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	null, w := nullAndPipe(t)
	pipe := "/dev/fd/" + fmt.Sprint(w.Fd())
	logName := filepath.Join(dir, "job.log")
	log, err := os.Create(logName)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	ledgerName := filepath.Join(dir, "ledger.ndjson")
	docName := filepath.Join(dir, "payload.json")
	for name, text := range map[string]string{ledgerName: `{"type":"attempt","operationId":"op-1"}` + "\n", docName: `{"a":1}`} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, flag := range []struct {
		name, own string
		args      func(path string) []string
	}{
		{"baseline", baseName, func(path string) []string {
			return []string{"audit", "--example", "--fail-on", "none", "--baseline", path}
		}},
		{"policy", policyName, func(path string) []string {
			return []string{"audit", "--example", "--fail-on", "none", "--policy", path}
		}},
		{"map-file", mapName, func(path string) []string {
			return []string{"audit", "--example", "--fail-on", "none", "--map-file", path}
		}},
		{"ledger", ledgerName, func(path string) []string { return []string{"audit", path, "--fail-on", "none"} }},
		{"explain's ledger", ledgerName, func(path string) []string { return []string{"explain", "op-1", path} }},
		{"hash", docName, func(path string) []string { return []string{"hash", path} }},
	} {
		for _, tc := range []struct {
			name        string
			out, errOut *os.File
			path        string
			refusal     string // "" when the file is read
			pipe        string // "own": path is a new pipe holding flag.own; "stderr": standard error's own pipe
		}{
			{"another pipe, holding its own file", report, nil, "", "", "own"},
			{"standard error's pipe", null, nil, "", "standard error", "stderr"},
			{"the report's file", report, nil, reportName, "standard output", ""},
			{"the report's file by its descriptor", report, nil, "/dev/fd/" + fmt.Sprint(report.Fd()), "standard output", ""},
			{"standard output's pipe", w, nil, pipe, "standard output", ""},
			{"standard error's file", null, log, logName, "standard error", ""},
			{"standard error's file by its descriptor", null, log, "/dev/fd/" + fmt.Sprint(log.Fd()), "standard error", ""},
			{"its own file", report, nil, flag.own, "", ""},
			{"/dev/null, standard output too", null, nil, os.DevNull, "none", ""},
		} {
			t.Run(flag.name+", "+tc.name, func(t *testing.T) {
				streams, _, buf := TestStreams("")
				streams.Out = tc.out
				messages := buf.String
				if tc.errOut != nil {
					streams.ErrOut = tc.errOut
					if err := tc.errOut.Truncate(0); err != nil {
						t.Fatal(err)
					}
					messages = func() string {
						b, _ := os.ReadFile(tc.errOut.Name())
						return string(b)
					}
				}
				path := tc.path
				switch tc.pipe {
				case "own": // as <(cat FILE) gives it
					content, err := os.ReadFile(flag.own)
					if err != nil {
						t.Fatal(err)
					}
					r, pw, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					go func() {
						pw.Write(content)
						pw.Close()
					}()
					path = "/dev/fd/" + fmt.Sprint(r.Fd())
				case "stderr":
					r, pw, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					var got bytes.Buffer
					copied := make(chan struct{})
					go func() {
						io.Copy(&got, r)
						close(copied)
					}()
					streams.ErrOut = pw
					path = "/dev/fd/" + fmt.Sprint(pw.Fd())
					messages = sync.OnceValue(func() string {
						pw.Close()
						<-copied
						return got.String()
					})
				}
				done := make(chan int, 1)
				go func() { done <- Main(streams, flag.args(path)...) }()
				var code int
				select {
				case code = <-done:
				case <-time.After(20 * time.Second):
					t.Fatalf("%s %s: no exit after 20 s", flag.name, path)
				}
				if tc.refusal == "none" {
					// Read as empty: accepted or not, not for being a stream.
					if strings.Contains(messages(), "that is standard") {
						t.Errorf("%s %s: refused as a stream: %s", flag.name, path, messages())
					}
					return
				}
				if tc.refusal == "" {
					if code != ExitOK {
						t.Errorf("%s %s: exit %d, want 0: %s", flag.name, path, code, messages())
					}
					return
				}
				if want := "that is " + tc.refusal; code != ExitError || !strings.Contains(messages(), want) {
					t.Errorf("%s %s: exit %d, want %d and %q: %s", flag.name, path, code, ExitError, want, messages())
				}
			})
		}
	}
}

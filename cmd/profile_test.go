package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
)

// needNoProfile skips a test when the CPU profiler is busy, as it is under
// go test -cpuprofile: --cpuprofile could not start.
func needNoProfile(t *testing.T) {
	t.Helper()
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Skipf("the CPU profiler is in use: %v", err)
	}
	pprof.StopCPUProfile()
}

// TestCPUProfile checks that --cpuprofile writes a profile whatever the
// run's exit status, and lets go of the profiler when the run ends.
func TestCPUProfile(t *testing.T) {
	needNoProfile(t)
	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"passing audit", []string{"audit", "--example", "--fail-on", "none"}, ExitOK},
		{"failing gate", []string{"audit", "--example"}, ExitFailOn},
		{"missing ledger", []string{"audit", "no-such-ledger.ndjson"}, ExitError},
		{"another command", []string{"version"}, ExitOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cpu.prof")
			streams, _, errOut := TestStreams("")
			if code := Main(streams, append(tt.args, "--cpuprofile", path)...); code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// A profile is gzipped protocol buffers.
			if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
				t.Errorf("profile starts %q, not as gzip does", data[:min(len(data), 8)])
			}
			if err := pprof.StartCPUProfile(io.Discard); err != nil {
				t.Fatalf("the profiler is still running after the run: %v", err)
			}
			pprof.StopCPUProfile()
		})
	}
}

func TestCPUProfileUnwritable(t *testing.T) {
	needNoProfile(t)
	path := filepath.Join(t.TempDir(), "no-such-dir", "cpu.prof")
	streams, out, errOut := TestStreams("")
	if code := Main(streams, "audit", "--example", "--cpuprofile", path); code != ExitError {
		t.Fatalf("exit %d, want %d", code, ExitError)
	}
	if want := "effectaudit: cpuprofile: open " + path; !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("stderr %q, want it to start %q", errOut, want)
	}
	if out.Len() != 0 {
		t.Errorf("a report was printed without its profile:\n%s", out)
	}
}

// TestCPUProfileHidden checks that the flag stays out of the help, which
// is for users, not for building.
func TestCPUProfileHidden(t *testing.T) {
	streams, out, _ := TestStreams("")
	if code := Main(streams, "audit", "--help"); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out.String(), "cpuprofile") {
		t.Errorf("--cpuprofile is in the help:\n%s", out)
	}
}

//go:build unix

package cmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalRemovesTempFiles runs an audit in a child process (this test
// binary, told so by the environment) that writes a baseline and waits on
// its standard input, sends it each signal that ends a run, and checks
// that the child ended by that signal and left neither the baseline nor
// its temporary file behind.
func TestSignalRemovesTempFiles(t *testing.T) {
	if dir := os.Getenv("EFFECTAUDIT_SIGNAL_CHILD"); dir != "" {
		os.Exit(Main(SystemStreams(), "audit", "-", "--write-baseline", filepath.Join(dir, "b.json")))
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			stdin, feed, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer feed.Close()
			child := exec.Command(os.Args[0], "-test.run=^TestSignalRemovesTempFiles$")
			child.Env = append(os.Environ(), "EFFECTAUDIT_SIGNAL_CHILD="+dir)
			child.Stdin = stdin
			var stderr strings.Builder
			child.Stderr = &stderr
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			stdin.Close()
			// The temporary file is made before the audit reads anything.
			deadline := time.Now().Add(10 * time.Second)
			for !hasFiles(t, dir) {
				if time.Now().After(deadline) {
					child.Process.Kill()
					child.Wait()
					t.Fatalf("no temporary file after 10 s; stderr: %s", stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if _, err := feed.WriteString(`{"type":"attempt","operationId":"op-1","result":"timeout"}` + "\n"); err != nil {
				t.Fatal(err)
			}
			if err := child.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = child.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("child ended with %v; want it ended by %v", err, sig)
			}
			if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("child ended with %v; want it ended by %v", exit, sig)
			}
			if hasFiles(t, dir) {
				entries, _ := os.ReadDir(dir)
				t.Errorf("files left behind: %v", entries)
			}
		})
	}
}

// hasFiles reports whether dir holds anything.
func hasFiles(t *testing.T, dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries) > 0
}

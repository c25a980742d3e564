//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
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

package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readDir returns the names in dir and the content of each.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func TestOutputReplacesOnlyWhenCommitted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit bool
		want   string
	}{
		{"committed", true, "new"},
		{"discarded", false, "old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "base.json")
			if err := os.WriteFile(name, []byte("old"), 0o640); err != nil {
				t.Fatal(err)
			}
			temps := &tempFiles{}
			o, err := createOutput(name, nil, temps)
			if err != nil {
				t.Fatal(err)
			}
			o.WriteString("new")
			if got := readDir(t, dir)["base.json"]; got != "old" {
				t.Fatalf("while writing, the file holds %q; want it untouched", got)
			}
			if tc.commit {
				if err := o.commit(); err != nil {
					t.Fatal(err)
				}
			}
			o.discard() // after commit, nothing
			if diff := cmp.Diff(map[string]string{"base.json": tc.want}, readDir(t, dir)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if len(temps.names) != 0 {
				t.Errorf("temporary files still listed: %v", temps.names)
			}
			fi, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v; want the earlier file's 0640", fi.Mode().Perm())
			}
		})
	}
}

func TestOutputThroughLink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.json", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	o, err := createOutput(link, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.WriteString("new")
	if err := o.commit(); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(link); err != nil || target != "real.json" {
		t.Errorf("link now %q, %v; want it still naming real.json", target, err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the file linked to holds %q; want %q", b, "new")
	}
}

// TestTempFilesRemoveAll checks what a signal does: every temporary file
// not yet put in place is removed.
func TestTempFilesRemoveAll(t *testing.T) {
	dir := t.TempDir()
	temps := &tempFiles{}
	kept, err := createOutput(filepath.Join(dir, "kept.json"), nil, temps)
	if err != nil {
		t.Fatal(err)
	}
	kept.WriteString("whole")
	if err := kept.commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := createOutput(filepath.Join(dir, "cut.json"), nil, temps); err != nil {
		t.Fatal(err)
	}
	if n := len(readDir(t, dir)); n != 2 {
		t.Fatalf("%d files before the signal; want kept.json and cut.json's temporary file", n)
	}
	temps.removeAll()
	if diff := cmp.Diff(map[string]string{"kept.json": "whole"}, readDir(t, dir)); diff != "" {
		t.Errorf("files after the signal (-want +got):\n%s", diff)
	}
}

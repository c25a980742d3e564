package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
				if err := commit(o); err != nil {
					t.Fatal(err)
				}
			}
			o.discard() // after commit, nothing
			if diff := cmp.Diff(map[string]string{"base.json": tc.want}, readDir(t, dir)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if len(temps.files) != 0 {
				t.Errorf("temporary files still listed: %v", temps.files)
			}
			fi, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v; want the earlier file's 0640", fi.Mode().Perm())
			}
		})
	}
}

// TestCommitAllOrNone checks that outputs committed together are put in
// place only when every one was written whole.
func TestCommitAllOrNone(t *testing.T) {
	dir := t.TempDir()
	ledger, truth := filepath.Join(dir, "ledger"), filepath.Join(dir, "truth")
	for _, name := range []string{ledger, truth} {
		if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := createOutput(ledger, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := createOutput(truth, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.WriteString("new")
	b.WriteString("new")
	b.file.Close() // its last flush and close fail
	if err := commit(a, b); err == nil {
		t.Fatal("commit succeeded; want the failure of the second output")
	}
	a.discard()
	if diff := cmp.Diff(map[string]string{"ledger": "old", "truth": "old"}, readDir(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestOutputThroughLink(t *testing.T) {
	for _, exists := range []bool{true, false} {
		t.Run(fmt.Sprintf("target exists %v", exists), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			real := filepath.Join(dir, "sub", "real.json")
			link := filepath.Join(dir, "link.json")
			if exists {
				if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(filepath.Join("sub", "real.json"), link); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			o, err := createOutput(link, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			o.WriteString("new")
			if err := commit(o); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("existing %v: link.json is no longer a link (%v)", exists, err)
			}
			if b, _ := os.ReadFile(real); string(b) != "new" {
				t.Errorf("existing %v: the file linked to holds %q; want %q", exists, b, "new")
			}
		})
	}
}

// TestOutputThroughLinkedDir checks that a link's "..", in a directory
// reached through another link, climbs from where the link really is, as
// the kernel resolves it.
func TestOutputThroughLinkedDir(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"real/dir", "work"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(base, "real", "other.json")
	if err := os.WriteFile(other, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "real", "dir"), filepath.Join(base, "work", "d")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink("../other.json", filepath.Join(base, "real", "dir", "out.json")); err != nil {
		t.Fatal(err)
	}
	o, err := createOutput(filepath.Join(base, "work", "d", "out.json"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.WriteString("new")
	if err := commit(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); string(b) != "new" {
		t.Errorf("real/other.json holds %q; want the report written through the links", b)
	}
	if _, err := os.Stat(filepath.Join(base, "work", "other.json")); err == nil {
		t.Error("work/other.json was made: the link's .. was taken from the path as written")
	}
}

// TestOutputNotRegular checks that a name that is no regular file, such as
// /dev/null, is written to directly.
func TestOutputNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/null")
	}
	o, err := createOutput(os.DevNull, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.WriteString("report")
	if err := commit(o); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Errorf("%s was replaced: %v %v", os.DevNull, fi.Mode(), err)
	}
}

// TestTempFilesRemoveAll checks what a signal does: every temporary file
// not yet put in place is removed, and no more are made.
func TestTempFilesRemoveAll(t *testing.T) {
	dir := t.TempDir()
	temps := &tempFiles{}
	kept, err := createOutput(filepath.Join(dir, "kept.json"), nil, temps)
	if err != nil {
		t.Fatal(err)
	}
	kept.WriteString("whole")
	if err := commit(kept); err != nil {
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
	if _, err := createOutput(filepath.Join(dir, "late.json"), nil, temps); err == nil {
		t.Error("an output was made after the signal")
	}
}

package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

// TestManyInputs audits more inputs than 12 bits of input index hold, as a
// directory of hourly exports has in a year: the report must list the
// operations in input order at any GOMAXPROCS, and an annotation must name
// the file that holds its operation.
func TestManyInputs(t *testing.T) {
	const files = 4200
	dir := t.TempDir()
	args := []string{"audit", "--fail-on", "duplicate", "--format", "ndjson", "--annotations", "github"}
	var want []string
	for i := range files {
		name := filepath.Join(dir, fmt.Sprintf("f%05d.ndjson", i))
		id := fmt.Sprintf("op-%05d", files-i) // ids against file order, so that an order by id shows
		lines := fmt.Sprintf(`{"type":"effect","operationId":%q,"effectRef":"r-%d"}`+"\n", id, i)
		if i == files-1 {
			lines += fmt.Sprintf(`{"type":"effect","operationId":%q,"effectRef":"r-again"}`+"\n", id)
		}
		if err := os.WriteFile(name, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, name)
		want = append(want, id)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		streams, stdout, stderr := TestStreams("")
		if code := Main(streams, args...); code != ExitFailOn {
			t.Fatalf("GOMAXPROCS=%d: exit %d, want %d: %s", procs, code, ExitFailOn, stderr)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
			var id string
			if _, err := fmt.Sscanf(line, `{"operationId":%q`, &id); err != nil {
				t.Fatalf("GOMAXPROCS=%d: report line %.80q: %v", procs, line, err)
			}
			got = append(got, id)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GOMAXPROCS=%d: operations not in input order (-want +got):\n%s", procs, diff)
		}
		last := filepath.Join(dir, fmt.Sprintf("f%05d.ndjson", files-1))
		if annotation := fmt.Sprintf("::error file=%s,line=1,", last); !strings.Contains(stderr.String(), annotation) {
			t.Errorf("GOMAXPROCS=%d: stderr does not name the duplicate's file, %q:\n%s", procs, annotation, stderr)
		}
	}
}

// TestTooManyInputs refuses more inputs than positions can tell apart, at
// once, before reading any.
func TestTooManyInputs(t *testing.T) {
	args := []string{"audit"}
	for i := range audit.MaxInputs + 1 {
		args = append(args, fmt.Sprintf("missing-%d.ndjson", i))
	}
	streams, stdout, stderr := TestStreams("")
	if code := Main(streams, args...); code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
	want := fmt.Sprintf("effectaudit: %d inputs given; one run audits at most %d: concatenate some of them first\n", audit.MaxInputs+1, audit.MaxInputs)
	if !strings.HasPrefix(stderr.String(), want) || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want stderr to start %q", stdout, stderr, want)
	}
}

package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBaselineSchemaVersionTwice checks that audit refuses a baseline that
// gives schemaVersion twice, before it reads the ledger: exit 2 and the
// reader's error, nothing on standard output. The last value would win,
// so a version-2 document could pass for version 1.
func TestBaselineSchemaVersionTwice(t *testing.T) {
	const ledger = `{"type":"attempt","operationId":"o","attemptId":"1"}
{"type":"effect","operationId":"o","effectRef":"r"}
not json
`
	for _, tc := range []struct{ name, doc string }{
		{"the same version twice", `{"schemaVersion":1,"schemaVersion":1,"summary":{},"operations":[],"invalid":[]}`},
		{"version 2, then 1", `{"schemaVersion":2,"operations":[],"schemaVersion":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			base, input := filepath.Join(dir, "base.json"), filepath.Join(dir, "ledger.ndjson")
			if err := os.WriteFile(base, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(input, []byte(ledger), 0o644); err != nil {
				t.Fatal(err)
			}
			streams, stdout, stderr := TestStreams("")
			code := Main(streams, "audit", "--baseline", base, "--skip-invalid", input)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			want := "effectaudit: baseline: " + base + ": not a JSON report: member \"schemaVersion\" given twice\n"
			if diff := cmp.Diff(want, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

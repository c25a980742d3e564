package baseline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadSchemaVersionTwice checks that a report giving schemaVersion
// twice is refused, whatever the two values: the last one would win, and a
// version-2 document could be read as version 1.
func TestLoadSchemaVersionTwice(t *testing.T) {
	const want = `b.json: not a JSON report: member "schemaVersion" given twice`
	for _, tc := range []struct{ name, in string }{
		{"the same version twice", `{"schemaVersion":1,"schemaVersion":1,"summary":{},"operations":[],"invalid":[]}`},
		{"version 2, then 1 after the operations", `{"schemaVersion":2,"operations":[],"schemaVersion":1}`},
		{"null, then 1", `{"schemaVersion":null,"operations":[],"schemaVersion":1}`},
		{"1, then null", `{"schemaVersion":1,"operations":[{"operationId":"a"}],"schemaVersion":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Load("b.json", strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("Load accepted the report, with ids %v", idList(b))
			}
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

package baseline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

const before = `{"schemaVersion":1,"operations":[
{"operationId":"op-same","label":"duplicate","findings":[]},
{"operationId":"op-worse","label":"healthy","findings":[]},
{"operationId":"op-worse-finding","label":"duplicate","findings":[]},
{"operationId":"op-fixed","label":"uncertain","findings":[{"code":"missing-key"}]},
{"operationId":"op-gone","label":"key-conflict","findings":[]},
{"operationId":"op-gone-healthy","label":"healthy","findings":[]},
{"operationId":"op-better","label":"key-conflict","findings":[]}
]}`

func TestTransitions(t *testing.T) {
	b, err := Load("before.json", strings.NewReader(before))
	if err != nil {
		t.Fatal(err)
	}
	failOn := []string{"duplicate", "key-conflict", "uncertain", "shared-key"}
	now := []audit.Operation{
		{OperationID: "op-same", Label: audit.Duplicate},
		{OperationID: "op-worse", Label: audit.Duplicate},
		{OperationID: "op-worse-finding", Label: audit.Duplicate, Findings: []audit.Finding{{Code: "shared-key"}}},
		{OperationID: "op-fixed", Label: audit.Healthy},
		{OperationID: "op-better", Label: audit.Duplicate},
		{OperationID: "op-brand-new", Label: audit.Uncertain},
		{OperationID: "op-new-healthy", Label: audit.Healthy},
	}
	c := b.Compare(failOn)
	got := map[string]string{}
	for i := range now {
		c.Mark(&now[i])
		got[now[i].OperationID] = now[i].Baseline
	}
	want := map[string]string{
		"op-same":          Unchanged,
		"op-worse":         New,
		"op-worse-finding": New,
		"op-fixed":         Resolved,
		"op-better":        New, // key-conflict → duplicate fails on a name it did not fail on
		"op-brand-new":     New,
		"op-new-healthy":   New,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if !c.Failed() {
		t.Error("Failed() = false, want true: op-worse fails anew")
	}
	if diff := cmp.Diff([]string{"op-fixed", "op-gone"}, c.Resolved()); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
}

func TestNothingNewPasses(t *testing.T) {
	b, err := Load("before.json", strings.NewReader(before))
	if err != nil {
		t.Fatal(err)
	}
	c := b.Compare([]string{"duplicate", "key-conflict", "uncertain"})
	for _, op := range []audit.Operation{{OperationID: "op-same", Label: audit.Duplicate}, {OperationID: "op-fixed", Label: audit.Uncertain}} {
		c.Mark(&op)
		if op.Baseline != Unchanged {
			t.Errorf("%s: %s, want unchanged", op.OperationID, op.Baseline)
		}
	}
	if c.Failed() {
		t.Error("Failed() = true with nothing new")
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`not json`, "b.json: not a JSON report"},
		{`{"schemaVersion":2,"operations":[]}`, "b.json: schemaVersion 2; want 1"},
		{`{"schemaVersion":1,"operations":[{"label":"healthy"}]}`, "b.json: an operation without operationId"},
	}
	for _, tt := range tests {
		_, err := Load("b.json", strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

package baseline

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
		{``, "b.json: not a JSON report: unexpected EOF"},
		{`{"schemaVersion":1,"operations":[{"operationId":"a"}`, "b.json: not a JSON report: operations: unexpected EOF"},
		{`[]`, "b.json: not a JSON report: found [ where { belongs"},
		{`{"schemaVersion":1,"operations":{}}`, "b.json: not a JSON report: operations: found { where [ belongs"},
		{`{"schemaVersion":1,"operations":"all"}`, `b.json: not a JSON report: operations: found "all" where [ belongs`},
		{`{"schemaVersion":1,"operations":[],"operations":[]}`, `b.json: not a JSON report: member "operations" given twice`},
		{`{"schemaVersion":"1","operations":[]}`, "b.json: not a JSON report: schemaVersion: json: cannot unmarshal string"},
		{`{"schemaVersion":1,"operations":[{"operationId":7}]}`, "b.json: not a JSON report: operations: json: cannot unmarshal number"},
		{`{"schemaVersion":1,"operations":[]`, "b.json: not a JSON report: unexpected EOF"},
		{`{"operations":[]}`, "b.json: schemaVersion 0; want 1"},
	}
	for _, tt := range tests {
		_, err := Load("b.json", strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// TestLoadSkipsOtherMembers checks that a report's other members, nested
// or not, and an operation's other members are read past, wherever they
// stand, and that names the gate never takes are kept out.
func TestLoadSkipsOtherMembers(t *testing.T) {
	doc := `{"summary":{"operations":[{"operationId":"not-this"}],"labels":{"healthy":1}},
	"operations":[{"reason":"[not { a } list]","operationId":"op-1","findings":[{"message":"x","code":"made-up"},{"code":"missing-key"}],"label":"healthy","extra":[[{}]]},
	{"operationId":"op-2","label":"no-such-label"}],
	"invalid":[{"input":"a","line":1,"error":"e"}],"schemaVersion":1}`
	b, err := Load("b.json", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"op-1", "op-2"}, b.ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]names{b.bit("healthy") | b.bit("missing-key"), 0}, b.names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// TestMarksMatchModel compares the comparison with a model of it, written
// with lists of names, on random baselines and reports: ids listed twice,
// names unknown to the gate, every gate.
func TestMarksMatchModel(t *testing.T) {
	gateNames := audit.GateNames()
	all := append(slices.Clone(gateNames), "made-up-code")
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 3))
		someNames := func() []string {
			out := []string{all[r.IntN(len(audit.Labels))]}
			for range r.IntN(3) {
				out = append(out, all[len(audit.Labels)+r.IntN(len(all)-len(audit.Labels))])
			}
			return out
		}
		var doc strings.Builder
		doc.WriteString(`{"schemaVersion":1,"operations":[`)
		before := map[string][]string{}
		var order []string
		for i := range r.IntN(12) {
			id := fmt.Sprintf("op-%d", r.IntN(10))
			names := someNames()
			if i > 0 {
				doc.WriteString(",")
			}
			fmt.Fprintf(&doc, `{"operationId":%q,"label":%q,"findings":[`, id, names[0])
			for j, code := range names[1:] {
				if j > 0 {
					doc.WriteString(",")
				}
				fmt.Fprintf(&doc, `{"code":%q}`, code)
			}
			doc.WriteString("]}")
			if _, ok := before[id]; !ok {
				order = append(order, id)
			}
			before[id] = names // the last one listed holds
		}
		doc.WriteString("]}")
		var failOn []string
		for _, n := range gateNames {
			if r.IntN(3) == 0 {
				failOn = append(failOn, n)
			}
		}
		b, err := Load("b.json", strings.NewReader(doc.String()))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		c := b.Compare(failOn)

		matched := func(names []string) []string {
			var out []string
			for _, n := range names {
				if slices.Contains(failOn, n) && !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
			return out
		}
		seen, resolved := map[string]bool{}, map[string]bool{}
		wantFailed := false
		for range r.IntN(12) {
			names := someNames()
			op := audit.Operation{OperationID: fmt.Sprintf("op-%d", r.IntN(14)), Label: audit.Label(names[0])}
			for _, code := range names[1:] {
				if code != "made-up-code" { // an audit raises only its own codes
					op.Findings = append(op.Findings, audit.Finding{Code: code})
				}
			}
			var codes []string
			for _, f := range op.Findings {
				codes = append(codes, f.Code)
			}
			now := matched(append([]string{string(op.Label)}, codes...))
			was, ok := before[op.OperationID]
			var want string
			switch {
			case !ok:
				want = New
			case len(now) > 0 && slices.ContainsFunc(now, func(n string) bool { return !slices.Contains(matched(was), n) }):
				want = New
			case len(now) == 0 && len(matched(was)) > 0:
				want = Resolved
			default:
				want = Unchanged
			}
			wantFailed = wantFailed || want == New && len(now) > 0
			seen[op.OperationID] = true
			resolved[op.OperationID] = want == Resolved

			c.Mark(&op)
			if op.Baseline != want {
				t.Fatalf("seed %d: %s %v marked %s; want %s (baseline %s, gate %v)", seed, op.OperationID, names, op.Baseline, want, doc.String(), failOn)
			}
		}
		var wantResolved []string
		for _, id := range order {
			if len(matched(before[id])) > 0 && (!seen[id] || resolved[id]) {
				wantResolved = append(wantResolved, id)
			}
		}
		if diff := cmp.Diff(wantResolved, c.Resolved()); diff != "" {
			t.Fatalf("seed %d: resolved (-want +got):\n%s", seed, diff)
		}
		if c.Failed() != wantFailed {
			t.Fatalf("seed %d: Failed() = %v; want %v", seed, c.Failed(), wantFailed)
		}
	}
}

func TestGateNamesFit(t *testing.T) {
	if n := len(audit.GateNames()); n > 32 {
		t.Fatalf("%d gate names do not fit in the 32 bits of names", n)
	}
}

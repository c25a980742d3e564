package report

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

func annotate(t testing.TB, rep *audit.Report, inputs, failOn []string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteAnnotations(&buf, rep, inputs, failOn); err != nil {
		t.Fatalf("WriteAnnotations: %v", err)
	}
	return buf.String()
}

func TestAnnotationsGolden(t *testing.T) {
	for _, tc := range []struct {
		file   string
		rep    *audit.Report
		inputs []string
		failOn []string
	}{
		{"annotations.four-operations.txt", fourOperations(), []string{"ledger.ndjson"}, specFailOn},
		{"annotations.fail-on-none.txt", fourOperations(), []string{"ledger.ndjson"}, nil},
		{"annotations.stdin.txt", fourOperations(), []string{"-"}, specFailOn},
		{"annotations.cap.txt", manyOperations(300, 2), []string{"ledgers/big.ndjson"}, []string{"duplicate", "absent"}},
		{"annotations.hostile.txt", hostilePlus(), []string{"dir,with:odd%chars\n::error::x.ndjson", "", "b.ndjson"}, specFailOn},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := annotate(t, tc.rep, tc.inputs, tc.failOn)
			golden(t, tc.file, []byte(got))
		})
	}
}

// command is a workflow command read back as the runner reads it.
type command struct {
	name  string
	props map[string]string
	data  string
}

// readCommands parses out line by line; every line must be one command.
func readCommands(t testing.TB, out string) []command {
	t.Helper()
	if out == "" {
		return nil
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("output does not end with a newline")
	}
	var cmds []command
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.ContainsAny(line, "\r\x00\x1b") {
			t.Errorf("line %d holds a control character: %q", i+1, line)
		}
		rest, ok := strings.CutPrefix(line, "::")
		if !ok {
			t.Fatalf("line %d is not a command: %q", i+1, line)
		}
		head, data, ok := strings.Cut(rest, "::")
		if !ok {
			t.Fatalf("line %d has no data: %q", i+1, line)
		}
		name, props, _ := strings.Cut(head, " ")
		c := command{name: name, props: map[string]string{}, data: unpercent(t, data)}
		for _, p := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(p, "=")
			if !ok {
				t.Fatalf("line %d: property %q has no value", i+1, p)
			}
			c.props[k] = unpercent(t, v)
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// unpercent undoes the escapes of GitHub's toolkit.
func unpercent(t testing.TB, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			t.Fatalf("truncated escape in %q", s)
		}
		switch s[i+1 : i+3] {
		case "25":
			b.WriteByte('%')
		case "0D":
			b.WriteByte('\r')
		case "0A":
			b.WriteByte('\n')
		case "3A":
			b.WriteByte(':')
		case "2C":
			b.WriteByte(',')
		default:
			t.Fatalf("unknown escape %q in %q", s[i:i+3], s)
		}
		i += 2
	}
	return b.String()
}

// TestAnnotations reads every command back: errors for the operations the
// gate names, then warnings for the others that are not healthy, each
// pointing at the first record, the strings as they went in, sanitized; and
// past the cap, one notice with the counts.
func TestAnnotations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rep    *audit.Report
		inputs []string
		failOn []string
	}{
		{"four operations", fourOperations(), []string{"ledger.ndjson"}, specFailOn},
		{"no gate", fourOperations(), []string{"ledger.ndjson"}, nil},
		{"healthy fails", fourOperations(), []string{"ledger.ndjson"}, []string{"healthy"}},
		{"a finding fails", fourOperations(), []string{"ledger.ndjson"}, []string{"missing-key"}},
		{"a finding and labels fail", fourOperations(), []string{"ledger.ndjson"}, []string{"duplicate", "missing-key", "healthy"}},
		{"hostile findings fail", hostilePlus(), []string{"a,b:c%d\ne.ndjson", "-", "dir/\x1b[31m.ndjson"}, []string{"key-churn", "orphan-effect", "shared-key"}},
		{"unknown input", fourOperations(), nil, specFailOn},
		{"hostile", hostilePlus(), []string{"a,b:c%d\ne.ndjson", "-", "dir/\x1b[31m.ndjson"}, specFailOn},
		{"empty", emptyReport(), []string{"ledger.ndjson"}, specFailOn},
		{"under the cap", manyOperations(60, 2), []string{"x"}, specFailOn},
		{"errors fill the cap", manyOperations(1000, 1), []string{"x"}, []string{"healthy"}},
		{"errors then warnings", manyOperations(400, 2), []string{"x"}, []string{"absent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmds := readCommands(t, annotate(t, tc.rep, tc.inputs, tc.failOn))
			g := newGate(tc.failOn)
			var errs, warns []command
			for _, op := range tc.rep.OperationList() {
				name, failed := g.match(&op)
				if !failed && op.Label == audit.Healthy {
					continue
				}
				c := command{name: "warning", props: map[string]string{}}
				if failed {
					c.name = "error"
				}
				if i := op.First.Input; i < len(tc.inputs) && tc.inputs[i] != "" && tc.inputs[i] != "-" {
					c.props["file"] = shown(tc.inputs[i])
					c.props["line"] = strconv.Itoa(op.First.Line)
				}
				c.props["title"] = string(op.Label) + ": " + shown(op.OperationID)
				c.data = shown(op.Reason) + "\nnext action: " + shown(op.NextAction)
				if i := slices.IndexFunc(op.Findings, func(f audit.Finding) bool { return f.Code == name }); failed && name != string(op.Label) && i >= 0 {
					// The finding that failed the gate leads.
					c.props["title"] = name + ": " + shown(op.OperationID)
					c.data = shown(op.Findings[i].Message) + "\n" + string(op.Label) + ": " + c.data
				}
				if failed {
					errs = append(errs, c)
				} else {
					warns = append(warns, c)
				}
			}
			want := append(errs, warns...)
			if len(want) > maxAnnotations {
				more, moreFailing := len(want)-maxAnnotations, max(0, len(errs)-maxAnnotations)
				want = append(want[:maxAnnotations:maxAnnotations], command{
					name:  "notice",
					props: map[string]string{"title": "effectaudit"},
					data: fmt.Sprintf("%d more operations not annotated (%d failing the gate, %d not healthy); the report lists every operation",
						more, moreFailing, more-moreFailing),
				})
			}
			if diff := cmp.Diff(want, cmds, cmp.AllowUnexported(command{})); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGateNamesWhatFailsAnew checks that with a baseline, an operation that
// fails anew on a finding, its label accepted before, is reported by that
// finding in every CI format.
func TestGateNamesWhatFailsAnew(t *testing.T) {
	op := audit.Operation{OperationID: "op-x", Label: audit.Uncertain, Reason: "r",
		Findings: []audit.Finding{{Code: "missing-key", Message: "no key"}}, Baseline: "new", FailsAnew: "missing-key"}
	g := newGate([]string{"uncertain", "missing-key"})
	if name, failed := g.match(&op); name != "missing-key" || !failed {
		t.Errorf("match = %q, %v; want missing-key, true", name, failed)
	}
	ann := string(appendAnnotation(nil, "error", &op, "missing-key", nil))
	if want := "::error title=missing-key%3A op-x::no key%0Auncertain: r"; !strings.HasPrefix(ann, want) {
		t.Errorf("annotation %q; want it to start %q", ann, want)
	}
	p := &junitPrinter{gate: g}
	if tc := string(p.testcase(nil, &op)); !strings.Contains(tc, `message="missing-key: no key" type="missing-key"`) {
		t.Errorf("JUnit test case %q does not name missing-key", tc)
	}
	if row := string(markdownRow(nil, &op, "missing-key")); !strings.Contains(row, "uncertain, fails on missing-key") {
		t.Errorf("markdown row %q does not name missing-key", row)
	}
}

func TestAppendPercent(t *testing.T) {
	for _, tc := range []struct {
		in, data, property string
	}{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"%0A", "%250A", "%250A"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"k: v, w", "k: v, w", "k%3A v%2C w"},
		{"::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"},
		{"=;é", "=;é", "=;é"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := string(appendCommandData(nil, tc.in)); got != tc.data {
				t.Errorf("data %q; want %q", got, tc.data)
			}
			if got := string(appendCommandProperty(nil, tc.in)); got != tc.property {
				t.Errorf("property %q; want %q", got, tc.property)
			}
		})
	}
}

func TestAnnotationsWriteError(t *testing.T) {
	rep := manyOperations(300, 2)
	full := annotate(t, rep, []string{"x"}, specFailOn)
	for _, n := range []int{0, 1000, len(full) - 1} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			w := &failWriter{n: n}
			err := WriteAnnotations(w, rep, []string{"x"}, specFailOn)
			if !errors.Is(err, errDiskFull) || !strings.Contains(err.Error(), "annotations") {
				t.Fatalf("WriteAnnotations = %v; want an error naming annotations and wrapping %v", err, errDiskFull)
			}
			if w.afterFails > 0 {
				t.Errorf("%d writes after the failed one; want none", w.afterFails)
			}
		})
	}
}

// FuzzAnnotations puts one string in the input name, the operation id and
// the reason: each must come back whole, on one line.
func FuzzAnnotations(f *testing.F) {
	for _, op := range hostilePlus().OperationList() {
		f.Add(op.OperationID)
	}
	f.Fuzz(func(t *testing.T, s string) {
		op := syntheticOperation(1, audit.Duplicate)
		op.OperationID, op.Reason = s, s
		cmds := readCommands(t, annotate(t, reportOf([]audit.Operation{op}), []string{s}, specFailOn))
		if len(cmds) != 1 {
			t.Fatalf("%d commands; want 1", len(cmds))
		}
		c := cmds[0]
		if s != "" && s != "-" && c.props["file"] != shown(s) {
			t.Errorf("file %q; want %q", c.props["file"], shown(s))
		}
		if c.props["title"] != "duplicate: "+shown(s) || !strings.HasPrefix(c.data, shown(s)+"\nnext action: ") {
			t.Errorf("title %q, message %q; want %q in both", c.props["title"], c.data, shown(s))
		}
	})
}

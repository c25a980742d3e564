package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

// specFailOn is SPEC's default --fail-on.
var specFailOn = []string{"duplicate", "key-conflict", "uncertain"}

// hostilePlus is hostile() with the strings that are hostile to XML in
// particular: a CDATA end, both quotes, entities, and the characters XML 1.0
// forbids although they are valid UTF-8.
func hostilePlus() *audit.Report {
	ops := hostile().OperationList()
	for i, s := range []string{
		"cdata ]]> end <![CDATA[ x ]]>",
		`quotes ' " and entities &amp; &#0; &lt;`,
		"nonchars \uFFFE \uFFFF and \U0010FFFF",
		"pipes | a\\|b \\\\| and `code` ``more`` `",
		" spaced ",
		"` leading backtick",
		"markdown *em* _em_ ~~s~~ [l](http://x) ![i](y) <b>h</b> &amp; $x$ @team #1 <!--",
		"percent %25 %0A colon : comma , equals = double :: colons",
		strings.Repeat("long ", 300),
	} {
		op := syntheticOperation(100+i, audit.Labels()[i%len(audit.Labels())])
		op.OperationID, op.Reason, op.NextAction = s, "reason: "+s, "next: "+s
		op.First = audit.Position{Input: i % 3, Line: i + 1}
		ops = append(ops, op)
	}
	return reportOf(ops)
}

// The JUnit document as CI servers read it.
type junitDoc struct {
	XMLName  xml.Name        `xml:"testsuites"`
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Suites   []junitSuiteDoc `xml:"testsuite"`
}

type junitSuiteDoc struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure"`
	SystemOut *string       `xml:"system-out"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// parseJUnit decodes out strictly, as one document and nothing after it.
func parseJUnit(t testing.TB, out []byte) *junitDoc {
	t.Helper()
	if !utf8.Valid(out) {
		t.Fatalf("output is not UTF-8")
	}
	d := xml.NewDecoder(bytes.NewReader(out))
	d.Strict = true
	var doc junitDoc
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("invalid XML: %v\n%s", err, out)
	}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("after the document: %v", err)
		}
		if cd, ok := tok.(xml.CharData); !ok || strings.TrimSpace(string(cd)) != "" {
			t.Fatalf("after the document: %#v", tok)
		}
	}
	return &doc
}

// xmlRead is what an XML parser gives back for an input string: sanitized,
// with what XML 1.0 forbids replaced by U+FFFD.
func xmlRead(s string) string {
	var b strings.Builder
	for _, r := range Sanitize(s) {
		ok := r == '\t' || r == '\n' || r == '\r' || (0x20 <= r && r <= 0xD7FF) ||
			(0xE000 <= r && r <= 0xFFFD) || (0x10000 <= r && r <= 0x10FFFF)
		if !ok {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// failsGate is SPEC's --fail-on: an operation fails when its label is
// named, or else one of its finding codes; it returns the name matched.
func failsGate(op *audit.Operation, failOn []string) (string, bool) {
	if slices.Contains(failOn, string(op.Label)) {
		return string(op.Label), true
	}
	for _, f := range op.Findings {
		if slices.Contains(failOn, f.Code) {
			return f.Code, true
		}
	}
	return "", false
}

func printJUnit(t testing.TB, failOn []string, rep *audit.Report) []byte {
	t.Helper()
	return printReport(t, "junit", Options{FailOn: failOn}, rep)
}

func TestJUnitGolden(t *testing.T) {
	for _, tc := range []struct {
		file   string
		rep    *audit.Report
		failOn []string
	}{
		{"junit.four-operations.xml", fourOperations(), specFailOn},
		{"junit.empty.xml", emptyReport(), specFailOn},
		{"junit.hostile.xml", hostilePlus(), specFailOn},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := printJUnit(t, tc.failOn, tc.rep)
			parseJUnit(t, got)
			golden(t, tc.file, got)
		})
	}
}

// TestJUnitDocument parses every output and checks it against the report:
// the counts, one test case per operation in order, a failure exactly for
// the operations the gate names, and every string as it went in, sanitized.
func TestJUnitDocument(t *testing.T) {
	reports := []struct {
		name string
		rep  *audit.Report
	}{
		{"four operations", fourOperations()},
		{"hostile", hostilePlus()},
		{"empty", emptyReport()},
		{"many", manyOperations(500, 3)},
	}
	gates := []struct {
		name   string
		failOn []string
	}{
		{"spec default", specFailOn},
		{"nil", nil},
		{"healthy", []string{"healthy"}},
		{"every label", []string{"key-conflict", "duplicate", "healthy", "absent", "uncertain"}},
		{"repeated", []string{"duplicate", "duplicate"}},
		{"not a label", []string{"missing-key", "duplicate"}},
	}
	for _, r := range reports {
		for _, g := range gates {
			t.Run(r.name+"/"+g.name, func(t *testing.T) {
				doc := parseJUnit(t, printJUnit(t, g.failOn, r.rep))
				ops := r.rep.OperationList()
				failures := 0
				for _, op := range ops {
					if _, failed := failsGate(&op, g.failOn); failed {
						failures++
					}
				}
				if doc.Name != "effectaudit" || doc.Tests != len(ops) || doc.Failures != failures || doc.Errors != 0 {
					t.Errorf("testsuites %q tests=%d failures=%d errors=%d; want effectaudit, %d, %d, 0",
						doc.Name, doc.Tests, doc.Failures, doc.Errors, len(ops), failures)
				}
				if len(doc.Suites) != 1 {
					t.Fatalf("%d test suites; want 1", len(doc.Suites))
				}
				s := doc.Suites[0]
				if s.Name != "effectaudit" || s.Tests != len(ops) || s.Failures != failures || s.Errors != 0 || s.Skipped != 0 {
					t.Errorf("testsuite %q tests=%d failures=%d errors=%d skipped=%d; want effectaudit, %d, %d, 0, 0",
						s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, len(ops), failures)
				}
				if len(s.Cases) != len(ops) {
					t.Fatalf("%d test cases for %d operations", len(s.Cases), len(ops))
				}
				for i, op := range ops {
					c := s.Cases[i]
					details := "reason: " + xmlRead(op.Reason) + "\nnext action: " + xmlRead(op.NextAction) +
						"\nattempts: " + strconv.Itoa(op.Attempts) +
						", effect observations: " + strconv.Itoa(op.EffectObservations) +
						", distinct effects: " + strconv.Itoa(op.DistinctEffects) +
						", payload hashes: " + strconv.Itoa(len(op.PayloadHashes))
					for _, f := range op.Findings {
						details += "\nfinding " + xmlRead(f.Code) + ": " + xmlRead(f.Message)
					}
					want := junitCase{Classname: string(op.Label), Name: xmlRead(op.OperationID)}
					if name, failed := failsGate(&op, g.failOn); failed {
						// A finding code in the gate names what failed;
						// a label, the verdict.
						message := string(op.Label) + ": " + xmlRead(op.Reason)
						if name != string(op.Label) {
							i := slices.IndexFunc(op.Findings, func(f audit.Finding) bool { return f.Code == name })
							message = xmlRead(name) + ": " + xmlRead(op.Findings[i].Message)
						}
						want.Failure = &junitFailure{
							Message: message,
							Type:    name,
							Body:    details,
						}
					} else {
						want.SystemOut = &details
					}
					if diff := cmp.Diff(want, c); diff != "" {
						t.Errorf("test case %d (-want +got):\n%s", i, diff)
					}
				}
			})
		}
	}
}

func TestAppendXML(t *testing.T) {
	for _, tc := range []struct {
		name, in, text, attr string
	}{
		{"plain", "op-ticket-42", "op-ticket-42", "op-ticket-42"},
		{"specials", `a&b<c>d"e'f`, "a&amp;b&lt;c&gt;d&quot;e&apos;f", "a&amp;b&lt;c&gt;d&quot;e&apos;f"},
		{"cdata end", "]]>", "]]&gt;", "]]&gt;"},
		{"whitespace", "a\tb\nc\rd", "a\tb\nc&#xD;d", "a&#x9;b&#xA;c&#xD;d"},
		{"C0 controls", "a\x00b\x1bc\x7f", "a\uFFFDb\uFFFDc\x7f", "a\uFFFDb\uFFFDc\x7f"},
		{"nonchars", "\uFFFE\uFFFF\uFFFD", "\uFFFD\uFFFD\uFFFD", "\uFFFD\uFFFD\uFFFD"},
		{"invalid UTF-8", "a\xffb\xed\xa0\x80c", "a\uFFFDb\uFFFD\uFFFD\uFFFDc", "a\uFFFDb\uFFFD\uFFFD\uFFFDc"},
		{"astral and BOM pass", "🙂\U0010FFFF\uFEFF\u2028", "🙂\U0010FFFF\uFEFF\u2028", "🙂\U0010FFFF\uFEFF\u2028"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.text, string(appendXMLText(nil, tc.in))); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.attr, string(appendXML(nil, tc.in, true))); diff != "" {
				t.Errorf("attribute (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGateFailures checks that the counts taken from the summary, or from a
// pass when the gate names finding codes, are those of the operations that
// fail, and of the healthy ones among them.
func TestGateFailures(t *testing.T) {
	rep := manyOperations(300, 2)
	for _, failOn := range [][]string{nil, {}, specFailOn, {"healthy"}, {"absent", "absent"}, {"missing-key"}, {"missing-key", "uncertain"}, {"healthy", "missing-key"}} {
		t.Run(strings.Join(failOn, ","), func(t *testing.T) {
			g := newGate(failOn)
			want, wantHealthy := 0, 0
			for _, op := range rep.OperationList() {
				if _, failed := g.match(&op); failed {
					want++
					if op.Label == audit.Healthy {
						wantHealthy++
					}
				}
			}
			got, healthy, err := g.count(rep)
			if err != nil || got != want || healthy != wantHealthy {
				t.Errorf("count = %d, %d, %v; want %d, %d", got, healthy, err, want, wantHealthy)
			}
		})
	}
}

// FuzzJUnit puts one string in every field of an operation: the output must
// parse, and give the string back sanitized.
func FuzzJUnit(f *testing.F) {
	for _, op := range hostilePlus().OperationList() {
		f.Add(op.OperationID)
	}
	f.Fuzz(func(t *testing.T, s string) {
		op := syntheticOperation(1, audit.Duplicate)
		op.OperationID, op.Reason, op.NextAction = s, s, s
		op.Label = audit.Label(s)
		rep := reportOf([]audit.Operation{op, syntheticOperation(2, audit.Duplicate)})
		doc := parseJUnit(t, printJUnit(t, []string{"duplicate", s}, rep))
		if n := len(doc.Suites[0].Cases); n != 2 {
			t.Fatalf("%d test cases; want 2", n)
		}
		c := doc.Suites[0].Cases[0]
		if c.Name != xmlRead(s) || c.Classname != xmlRead(s) || c.Failure == nil || c.Failure.Type != xmlRead(s) {
			t.Errorf("test case %+v; want name, classname and failure type %q", c, xmlRead(s))
		}
	})
}

func BenchmarkJUnit(b *testing.B) {
	rep := manyOperations(100_000, 10)
	b.SetBytes(int64(len(printJUnit(b, specFailOn, rep))))
	p, err := New("junit", Options{FailOn: specFailOn})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Print(io.Discard, rep); err != nil {
			b.Fatal(err)
		}
	}
}

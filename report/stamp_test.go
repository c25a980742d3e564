package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/effectaudit/effectaudit/audit"
)

// idParts are pieces random operation ids are made of: ASCII, wide,
// zero-width, combining and ambiguous-width runes, spaces, and what
// Sanitize escapes.
var idParts = []string{"op-", "42", "ticket", " ", "  ", "日本", "ｶﾅ", "e\u0301", "\u200b", "🙂", "é", "\t", "\x1b[31m", "\u2028", "\xff", "─", "·", "ß"}

// randomOperations returns n operations with random ids and rows that
// repeat often, as they do in real reports, but not always.
func randomOperations(r *rand.Rand, n int) []audit.Operation {
	ops := make([]audit.Operation, n)
	for i := range ops {
		var id strings.Builder
		for range 1 + r.IntN(4) {
			id.WriteString(idParts[r.IntN(len(idParts))])
		}
		op := syntheticOperation(i, audit.Labels()[r.IntN(len(audit.Labels()))])
		op.OperationID = id.String()
		op.Attempts = r.IntN(3)
		op.EffectObservations = r.IntN(3)
		if r.IntN(20) == 0 {
			op.Attempts = r.IntN(100000) // some rows of a look of their own
		}
		op.Findings = nil
		for _, code := range audit.FindingCodes() {
			if r.IntN(8) == 0 {
				op = withFindings(op, code)
			}
		}
		ops[i] = op
	}
	return ops
}

// TestStampedRows checks that the rows the stamper prints are the bytes
// tablewriter prints for the same rows in one table, whether a row's look
// is kept, reused or laid out whole past the stamper's limit.
func TestStampedRows(t *testing.T) {
	for seed := range uint64(24) {
		r := rand.New(rand.NewPCG(seed, 7))
		ops := randomOperations(r, 1+r.IntN(150))
		l := newLayout()
		for i := range ops {
			m := measureRow(&ops[i])
			l.add(&m)
		}
		l.finish(tableWidth)
		p := &tablePrinter{opts: Options{Color: seed%2 == 1}}

		var want bytes.Buffer
		table := newStamper(l.widths).newTable(&trimWriter{w: &want})
		table.Header(tableHeader)
		for i := range ops {
			if err := table.Append(p.row(&ops[i], l)); err != nil {
				t.Fatal(err)
			}
		}
		if err := table.Render(); err != nil {
			t.Fatal(err)
		}

		for _, limit := range []int{maxLooks, 3, 0} {
			var got bytes.Buffer
			out := &trimWriter{w: &got}
			s := newStamper(l.widths)
			s.limit = limit
			if err := s.header(out); err != nil {
				t.Fatal(err)
			}
			for i := range ops {
				if err := s.row(out, p.row(&ops[i], l)); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Fatalf("seed %d, limit %d: stamped rows differ from tablewriter's (-want +got):\n%s", seed, limit, diff)
			}
			// Every distinct look is kept, up to the limit: rows are
			// stamped, not each laid out by tablewriter.
			looks := map[string]bool{}
			for i := range ops {
				looks[strings.Join(p.row(&ops[i], l)[1:], "\x00")] = true
			}
			if want := min(len(looks), limit); len(s.looks) != want {
				t.Errorf("seed %d, limit %d: %d looks kept; want %d", seed, limit, len(s.looks), want)
			}
		}
	}
}

// TestTextWidth checks the ASCII shortcut against tablewriter's measure.
func TestTextWidth(t *testing.T) {
	var ascii strings.Builder
	for c := range 0x80 {
		ascii.WriteByte(byte(c))
	}
	cases := []string{"", ascii.String(), "op-42", "op 42 ", "\x7f", "\x1b[31mred\x1b[0m", "\t", "日本", "e\u0301", "\u200b"}
	for c := range 0x80 {
		cases = append(cases, "id-"+string(rune(c)))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		ops := randomOperations(r, 1)
		cases = append(cases, ops[0].OperationID, Sanitize(ops[0].OperationID))
	}
	for _, s := range cases {
		if got, want := textWidth(s), twwidth.Width(s); got != want {
			t.Errorf("textWidth(%q) = %d; tablewriter says %d", s, got, want)
		}
	}
}

package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
)

// TestExplainJSONStreams checks that writing the explanation a record at a
// time gives the document encoding/json indents whole, for zero, one and
// many records, strings that encoding/json would escape for HTML, and
// invalid lines or none.
func TestExplainJSONStreams(t *testing.T) {
	at := "2026-11-29T09:00:00Z"
	op := &audit.Operation{OperationID: "op-<1>&", Label: audit.Duplicate, Reason: "a \"reason\"\n",
		Results: audit.Results{{Result: "timeout", Attempts: 2}}, EffectRefs: []string{"r1", "r&2"},
		IdempotencyKeys: []string{}, PayloadHashes: []string{}, Findings: []audit.Finding{{Code: "missing-key", Message: "m"}}}
	for _, n := range []int{0, 1, 3} {
		for _, invalid := range [][]audit.Invalid{{}, {{Input: "a<b>.ndjson", Line: 2, Error: "bad \u2028 line"}}} {
			t.Run(fmt.Sprintf("%d records, %d invalid", n, len(invalid)), func(t *testing.T) {
				records := []*explained{}
				for i := range n {
					r := &explained{Input: "in.ndjson", Line: i + 1, Type: "attempt", AttemptID: fmt.Sprintf("a<%d>", i), EffectRef: "é😀"}
					if i%2 == 0 {
						r.ObservedAt = &at
					}
					records = append(records, r)
				}
				rep := &audit.Report{Summary: audit.Summary{InvalidLines: len(invalid)}, Invalid: invalid}
				var got bytes.Buffer
				bw := bufio.NewWriter(&got)
				if err := writeExplainJSON(bw, op, records, rep); err != nil {
					t.Fatal(err)
				}
				if err := bw.Flush(); err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				enc := json.NewEncoder(&want)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(struct {
					Operation    *audit.Operation `json:"operation"`
					Records      []*explained     `json:"records"`
					InvalidLines int              `json:"invalidLines"`
					Invalid      []audit.Invalid  `json:"invalid"`
				}{op, records, len(invalid), invalid}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want.String(), got.String()); diff != "" {
					t.Errorf("streamed document (-encoding/json +streamed):\n%s", diff)
				}
			})
		}
	}
}

func TestAbbreviate(t *testing.T) {
	long := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name   string
		hashes []string
		want   map[string]string
	}{
		{"short ones whole", []string{"h1", "", "h1"}, map[string]string{"h1": "h1", "": ""}},
		{"long one cut", []string{long}, map[string]string{long: long[:19] + "…"}},
		{"cut past what they share", []string{"payload-digest-version-1-and-more", "payload-digest-version-2-and-more"},
			map[string]string{"payload-digest-version-1-and-more": "payload-digest-version-1…", "payload-digest-version-2-and-more": "payload-digest-version-2…"}},
		{"one a prefix of the other", []string{"payload-digest-version-1", "payload-digest-version-12"},
			map[string]string{"payload-digest-version-1": "payload-digest-version-1", "payload-digest-version-12": "payload-digest-version-12"}},
		{"never inside a character", []string{"payload-digest-vers日本語日本語"}, map[string]string{"payload-digest-vers日本語日本語": "payload-digest-vers…"}},
		{"differing inside a character", []string{"sha256:abcdefghijklmnopqrstuvwxyz\u2020a", "sha256:abcdefghijklmnopqrstuvwxyz\u2060b"},
			map[string]string{"sha256:abcdefghijklmnopqrstuvwxyz\u2020a": "sha256:abcdefghijklmnopqrstuvwxyz\u2020a", "sha256:abcdefghijklmnopqrstuvwxyz\u2060b": "sha256:abcdefghijklmnopqrstuvwxyz\u2060b"}},
		{"differing inside a character, more after", []string{"sha256:abcdefghijklmnopqrstuvwxyz\u2020abc", "sha256:abcdefghijklmnopqrstuvwxyz\u2060abc"},
			map[string]string{"sha256:abcdefghijklmnopqrstuvwxyz\u2020abc": "sha256:abcdefghijklmnopqrstuvwxyz\u2020…", "sha256:abcdefghijklmnopqrstuvwxyz\u2060abc": "sha256:abcdefghijklmnopqrstuvwxyz\u2060…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, abbreviate(tc.hashes)); diff != "" {
				t.Errorf("abbreviate(%q) (-want +got):\n%s", tc.hashes, diff)
			}
		})
	}
}

// TestInOrder checks the order explain lists records in: timed ones by
// time, then untimed ones, each group in input order, then line order.
func TestInOrder(t *testing.T) {
	timed := func(sec int64) explained {
		s := fmt.Sprint(sec)
		return explained{ObservedAt: &s, at: audit.Instant{Sec: sec}}
	}
	at := func(e explained, input, line int) explained {
		e.pos, e.Line = audit.Position{Input: input, Line: line}, line
		return e
	}
	kept := [][]explained{{
		at(explained{}, 1, 1), // untimed, second input
		at(timed(20), 0, 5),   // timed, later
		at(explained{}, 0, 2), // untimed, first input, line 2
		at(timed(10), 1, 9),   // timed, earliest
		at(explained{}, 0, 1), // untimed, first input, line 1
		at(timed(20), 0, 3),   // timed, a tie with line 5: line order
	}}
	var got []string
	for _, r := range inOrder(kept, []string{"a", "b"}) {
		got = append(got, fmt.Sprintf("%s:%d", r.Input, r.Line))
	}
	want := []string{"b:9", "a:3", "a:5", "a:1", "a:2", "b:1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

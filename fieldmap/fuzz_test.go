package fieldmap

import (
	"strings"
	"testing"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

// FuzzMembers maps arbitrary lines with arbitrary --map specifications
// (separated by newlines). Properties: nothing panics, Members never fails
// on a line the Parser accepted, the result holds only ledger fields and
// each at most once, a mapped field's value is valid JSON of its kind, and
// Decode copes with whatever comes out.
func FuzzMembers(f *testing.F) {
	seeds := []struct{ specs, line string }{
		{"operationId=op_id", `{"type":"attempt","op_id":"op-1","attemptId":"a1"}`},
		{"effectRef=provider.object_id\nscope=provider.region", `{"type":"effect","operationId":"op-1","provider":{"region":"eu","object_id":"ticket-908"}}`},
		{"effectRef=provider.object_id", `{"provider":{"object\u005fid":"ticket-\u003908"}}`},
		{`payloadHash=meta.hash\.v2`, `{"meta":{"hash.v2":"sha256:ab","hash":{"v2":1}}}`},
		{"type=result\nresult=type", `{"type":"timeout","result":"attempt","operationId":"x"}`},
		{"attempt=a.b.c", `{"a":{"b":{"c":[1,{"d":2}]}}}`},
		{"observedAt=ts", `{"type":"attempt","operationId":"op","ts":"2026-11-29T09:00:00Z"}`},
		{"scope=a.b", `{"a":"not an object"}`},
		{"scope=a.b", `{"a":{"b":{"b":{"b":null}}}}`},
		{"", `{}`},
		{"bogus", `{"type":"effect"}`},
	}
	for _, s := range seeds {
		f.Add(s.specs, []byte(s.line))
	}
	f.Fuzz(func(t *testing.T, specs string, line []byte) {
		var list []string
		if specs != "" {
			list = strings.Split(specs, "\n")
		}
		m, err := Parse(list)
		if err != nil {
			return
		}
		var p ndjson.Parser
		members, err := p.Parse(line)
		if err != nil {
			return
		}
		got, err := m.Members(members)
		if err != nil {
			t.Fatalf("Members failed on a parsed line: %v", err)
		}
		if m.Len() > 0 {
			seen := map[string]bool{}
			for _, g := range got {
				name := string(g.Name)
				if fieldIndex(name) < 0 {
					t.Fatalf("non-ledger member %q in the result", name)
				}
				if seen[name] {
					t.Fatalf("member %q twice in the result", name)
				}
				seen[name] = true
				if _, mapped := m.Path(name); mapped {
					// A value found by a path is one whole JSON value.
					var q ndjson.Parser
					if _, err := q.Parse([]byte(`{"v":` + string(g.Value) + `}`)); err != nil {
						t.Fatalf("mapped %s = %q is not a JSON value: %v", name, g.Value, err)
					}
				}
			}
		}
		var d audit.Decoder
		_, _ = d.Decode(got, audit.Position{Line: 1})
	})
}

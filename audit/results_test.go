package audit

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResultsJSON checks that Results reads and writes as the map of counts
// it stands for, with and without HTML escaping.
func TestResultsJSON(t *testing.T) {
	m := map[string]int{"success": 1, "timeout": 2, "<b>&amp;</b>": 3, "é \u2028 \"q\"": 4, "": 5}
	r := Results{{"", 5}, {"<b>&amp;</b>", 3}, {"success", 1}, {"timeout", 2}, {"é \u2028 \"q\"", 4}}
	for _, escape := range []bool{true, false} {
		encode := func(v any) string {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(escape)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		got := encode(struct{ R Results }{r})
		if want := encode(struct{ R map[string]int }{m}); got != want {
			t.Errorf("escape HTML %v: %s, want %s", escape, got, want)
		}
		var back struct{ R Results }
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(r, back.R); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	if got := marshal(t, Results(nil)); got != "{}" {
		t.Errorf("nil Results encode as %s, want {}", got)
	}
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

package canon

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzCanonicalize checks that Canonicalize never panics, that every error
// wraps one of the sentinels, and that an accepted document's canonical form
// is accepted again and is a fixed point.
func FuzzCanonicalize(f *testing.F) {
	// More seeds live in testdata/fuzz/FuzzCanonicalize.
	f.Add([]byte(`{"b":[1,2e3,-0.0,"\u00e9"],"a":{"\ud83d\ude00":null}}`), "/a")
	f.Fuzz(func(t *testing.T, data []byte, ptr string) {
		var drop []string
		if ptr != "" {
			drop = []string{ptr}
		}
		out, err := Canonicalize(data, drop)
		if err != nil {
			if !errors.Is(err, ErrNotJSON) && !errors.Is(err, ErrNotIJSON) && !errors.Is(err, ErrPointer) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		again, err := Canonicalize(out, nil)
		if err != nil {
			t.Fatalf("canonical form %q rejected: %v", out, err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point:\n first: %q\nsecond: %q", out, again)
		}
		if h := Hash(out); len(h) != len("sha256:")+64 {
			t.Fatalf("Hash = %q", h)
		}
	})
}

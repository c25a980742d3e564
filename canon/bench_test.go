package canon

import (
	"fmt"
	"strings"
	"testing"
)

// benchRecord is shaped like a ledger effect payload: a few dozen members,
// nested objects, ids, timestamps and non-ASCII text.
func benchRecord() []byte {
	var b strings.Builder
	b.WriteString(`{"effect":"payment.capture","idempotencyKey":"7f3c9a2e-1b4d-4e8f-9a6b-2c5d8e1f4a7b",`)
	b.WriteString(`"ts":"2024-05-01T12:34:56.789Z","seq":1234567,"amount":{"value":1999.99,"currency":"EUR"},`)
	b.WriteString(`"attrs":{`)
	for i := range 30 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"attr_%02d":{"s":"välue \"%d\"\n","n":%d.5e-3,"ok":true}`, 29-i, i, i)
	}
	b.WriteString(`},"tags":["a","b","c",null,1e21]}`)
	return []byte(b.String())
}

func BenchmarkCanonicalize(b *testing.B) {
	data := benchRecord()
	drop := []string{"/ts", "/seq"}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Canonicalize(data, drop); err != nil {
			b.Fatal(err)
		}
	}
}

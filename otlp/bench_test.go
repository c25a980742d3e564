package otlp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/effectaudit/effectaudit/audit"
)

func BenchmarkConvert(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "four-operations.otlp.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	c := &Converter{Mapping: DefaultMapping()}
	n := 0
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for i, line := range lines {
			if err := c.Convert(line, audit.Position{Line: i + 1}, func(*audit.Record) { n++ }); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// longLine writes one export line whose resource has attrs attributes and
// which holds spans spans, every one marked as an attempt: the shape where
// a lookup that scans the resource list for every span is quadratic.
func longLine(attrs, spans int) []byte {
	var b strings.Builder
	b.WriteString(`{"resourceSpans":[{"resource":{"attributes":[`)
	for i := range attrs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"key":"r%d","value":{"stringValue":"x"}}`, i)
	}
	b.WriteString(`]},"scopeSpans":[{"scope":{},"spans":[`)
	for i := range spans {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"spanId":"%016x","endTimeUnixNano":"1764500000000000000","attributes":[`+
			`{"key":"effect.record","value":{"stringValue":"attempt"}},{"key":"effect.operation_id","value":{"stringValue":"op-%d"}}]}`, i+1, i)
	}
	b.WriteString(`]}]}]}`)
	return []byte(b.String())
}

// BenchmarkLongAttributeLists converts one line with n resource attributes
// and n spans. The time per byte should grow little with n; it grew in
// proportion to n when every lookup scanned the whole resource list.
func BenchmarkLongAttributeLists(b *testing.B) {
	for _, n := range []int{3000, 30000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			line := longLine(n, n)
			c := &Converter{Mapping: DefaultMapping()}
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				recs := 0
				if err := c.Convert(line, audit.Position{Line: 1}, func(*audit.Record) { recs++ }); err != nil {
					b.Fatal(err)
				}
				if recs != n {
					b.Fatalf("%d records, want %d", recs, n)
				}
			}
		})
	}
}

package otlp

import (
	"bytes"
	"os"
	"path/filepath"
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

package ndjson

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"strconv"
	"testing"
)

// ledgerLine returns the i-th line of a realistic ledger: an attempt record
// of about 270 bytes.
func ledgerLine(i int) string {
	return fmt.Sprintf(`{"type":"attempt","operationId":"op-%08d","attemptId":"att-%08d-2",`+
		`"idempotencyKey":"key-%08d","scope":"stripe","payloadHash":"sha256:%x","result":"timeout",`+
		`"observedAt":"2026-11-29T10:00:%02d.123Z","attempt":2,"meta":{"tool":"x"}}`,
		i, i, i, sha256.Sum256([]byte(strconv.Itoa(i))), i%60)
}

// ledger returns a stream of about size bytes of ledger lines.
func ledger(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		b.WriteString(ledgerLine(i))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func BenchmarkReader(b *testing.B) {
	data := ledger(8 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(data))
		n := 0
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += len(rec.Members)
		}
		if n == 0 {
			b.Fatal("no members read")
		}
	}
}

func BenchmarkParse(b *testing.B) {
	line := []byte(ledgerLine(42))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	var p Parser
	for b.Loop() {
		if _, err := p.Parse(line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseLargeObject measures the hashed duplicate check.
func BenchmarkParseLargeObject(b *testing.B) {
	line := []byte(object(seq("member", 10_000), nil))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	var p Parser
	for b.Loop() {
		if _, err := p.Parse(line); err != nil {
			b.Fatal(err)
		}
	}
}

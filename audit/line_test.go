package audit

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/ndjson"
)

// decodeBoth decodes line the slow way, with Parse and Decode, and with
// DecodeLine.
func decodeBoth(line []byte) (slow Record, slowErr error, fast Record, fastOK bool) {
	var p ndjson.Parser
	var d Decoder
	pos := Position{Input: 2, Line: 7, Seq: 3}
	if members, err := p.Parse(line); err != nil {
		slowErr = err
	} else {
		slow, slowErr = d.Decode(members, pos)
	}
	fast, fastOK = DecodeLine(line, pos)
	return slow, slowErr, fast, fastOK
}

// TestDecodeLine checks lines DecodeLine reads itself and lines it must
// leave to Parse and Decode; either way, the record is Decode's.
func TestDecodeLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		fast bool // DecodeLine reads it
	}{
		{"attempt", `{"type":"attempt","operationId":"op-1","attemptId":"a1","attempt":2,"idempotencyKey":"k","scope":"s","payloadHash":"sha256:ab","result":"timeout","observedAt":"2026-11-29T10:00:00.5Z","tool":"t"}`, true},
		{"effect", `{"type":"effect","operationId":"op-1","effectRef":"r1","observedAt":"2026-11-29T10:00:00+01:00"}`, true},
		{"absent effect", `{"type":"effect","operationId":"op-1","result":"absent"}`, true},
		{"space everywhere", " \t{ \"type\" : \"effect\" ,\r\n\"operationId\":\"op\" , \"effectRef\" : \"r\" } \t", true},
		{"nulls", `{"type":"attempt","operationId":"op","attemptId":null,"attempt":null,"observedAt":null,"result":null}`, true},
		{"empty strings", `{"type":"attempt","operationId":"op","attemptId":"","observedAt":"","scope":""}`, true},
		{"unknown members of every kind", `{"x":1,"y":true,"z":false,"w":null,"v":"s","type":"attempt","operationId":"op","u":-1.5e3}`, true},
		{"non-ASCII values", `{"type":"attempt","operationId":"op-é","scope":"日本"}`, true},
		{"names that start like known ones", `{"types":1,"op":2,"attempts":3,"effectRefs":4,"type":"attempt","operationId":"op","t":5}`, true},
		{"nine-digit attempt", `{"type":"attempt","operationId":"op","attempt":999999999}`, true},
		{"18-digit attempt", `{"type":"attempt","operationId":"op","attempt":999999999999999999}`, strconv.IntSize == 64},

		{"escape in a value", `{"type":"attempt","operationId":"op\u002d1"}`, false},
		{"escape in a name", `{"typ\u0065":"attempt","operationId":"op"}`, false},
		{"nested value", `{"type":"attempt","operationId":"op","meta":{"a":1}}`, false},
		{"array value", `{"type":"attempt","operationId":"op","meta":[1]}`, false},
		{"duplicate known name", `{"type":"attempt","operationId":"op","type":"effect"}`, false},
		{"duplicate unknown name", `{"type":"attempt","operationId":"op","x":1,"x":2}`, false},
		{"too many unknown names", `{"type":"attempt","operationId":"op","a1":1,"a2":1,"a3":1,"a4":1,"a5":1,"a6":1,"a7":1,"a8":1,"a9":1}`, false},
		{"missing type", `{"operationId":"op"}`, false},
		{"bad type", `{"type":"effects","operationId":"op"}`, false},
		{"missing operation", `{"type":"attempt"}`, false},
		{"empty operation", `{"type":"attempt","operationId":""}`, false},
		{"effect without ref", `{"type":"effect","operationId":"op"}`, false},
		{"effect with a bad result", `{"type":"effect","operationId":"op","effectRef":"r","result":"timeout"}`, false},
		{"number for a string", `{"type":"attempt","operationId":1}`, false},
		{"true for a string", `{"type":"attempt","operationId":"op","scope":true}`, false},
		{"string attempt", `{"type":"attempt","operationId":"op","attempt":"2"}`, false},
		{"zero attempt", `{"type":"attempt","operationId":"op","attempt":0}`, false},
		{"fractional attempt", `{"type":"attempt","operationId":"op","attempt":1.5}`, false},
		{"negative attempt", `{"type":"attempt","operationId":"op","attempt":-1}`, false},
		{"attempt past an int", `{"type":"attempt","operationId":"op","attempt":9999999999999999999}`, false},
		{"bad time", `{"type":"attempt","operationId":"op","observedAt":"2026-11-29"}`, false},
		{"trailing comma", `{"type":"attempt","operationId":"op",}`, false},
		{"trailing bytes", `{"type":"attempt","operationId":"op"}x`, false},
		{"two objects", `{"type":"attempt","operationId":"op"}{}`, false},
		{"unterminated", `{"type":"attempt","operationId":"op"`, false},
		{"control character", "{\"type\":\"attempt\",\"operationId\":\"o\x01p\"}", false},
		{"invalid UTF-8", "{\"type\":\"attempt\",\"operationId\":\"o\xffp\"}", false},
		{"bad literal", `{"type":"attempt","operationId":"op","x":nul}`, false},
		{"known name cut short", `{"type":"attempt","operationId":"op","scop`, false},
		{"array", `[1]`, false},
		{"empty object", `{}`, false},
		{"blank", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slow, slowErr, fast, ok := decodeBoth([]byte(tt.line))
			if ok != tt.fast {
				t.Fatalf("DecodeLine ok = %v, want %v (slow error: %v)", ok, tt.fast, slowErr)
			}
			if !ok {
				return
			}
			if slowErr != nil {
				t.Fatalf("DecodeLine read a line Parse and Decode reject: %v", slowErr)
			}
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Errorf("DecodeLine's record differs from Decode's (-Decode +DecodeLine):\n%s", diff)
			}
		})
	}
}

// TestKnownField checks that DecodeLine knows every field Decode takes by
// its bytes, and only those bytes.
func TestKnownField(t *testing.T) {
	for i, name := range fieldNames {
		want := field(i)
		line := []byte(`{"` + name + `":1}`)
		if f, end := knownField(line, 1); f != want || end != len(name)+3 {
			t.Errorf("knownField(%s) = %d, %d; want %d, %d", line, f, end, want, len(name)+3)
		}
		if f := fieldNamed([]byte(name)); f != want {
			t.Errorf("fieldNamed(%q) = %d, want %d", name, f, want)
		}
		for _, other := range []string{name + "x", name[:len(name)-1], "x" + name, strings.ToUpper(name[:1]) + name[1:]} {
			if f, _ := knownField([]byte(`{"`+other+`":1}`), 1); f != fOther {
				t.Errorf("knownField takes %q for %q", other, fieldNames[f])
			}
		}
	}
}

// TestDecodeLineGenerated checks that DecodeLine reads every line of a
// generated ledger (its fixture lines included) itself: were it to decline
// them, the audit would still be right but as slow as before it.
func TestDecodeLineGenerated(t *testing.T) {
	for _, name := range []string{"../fixtures/four-operations.ndjson", "testdata/generated.ndjson"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			slow, slowErr, fast, ok := decodeBoth(line)
			if slowErr != nil {
				t.Fatalf("%s:%d: %v", name, i+1, slowErr)
			}
			if !ok {
				t.Fatalf("%s:%d: DecodeLine declined %s", name, i+1, line)
			}
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Fatalf("%s:%d: (-Decode +DecodeLine):\n%s", name, i+1, diff)
			}
		}
	}
}

// FuzzDecodeLine holds DecodeLine to Parse and Decode: whatever it reads,
// they read too, into the same record.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"attempt","operationId":"op-1","attemptId":"a1","attempt":2,"idempotencyKey":"k","scope":"s","payloadHash":"h","result":"timeout","observedAt":"2026-11-29T10:00:00.5Z","tool":"t"}`,
		`{"type":"effect","operationId":"op-1","effectRef":"r1","result":"present","observedAt":"2026-11-29T10:00:00+01:00"}`,
		`{"type":"effect","operationId":"op","result":"absent","x":[1],"y":null,"z":-0.5e-3}`,
		`{"type":"attempt","operationId":"op","attempt":12,"attempt":1}`,
		`{"type":"attempt","operationId":"\u00e9"}`,
		`{"type":"effect","operationId":"op","effectRef":"r\ud83d\ude00"}`,
		`{"type":"effect","operationId":"op","effectRef":"r\ud800"}`,
		` {"type" : "attempt" , "operationId" : "op" } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		slow, slowErr, fast, ok := decodeBoth(line)
		if !ok {
			return
		}
		if slowErr != nil {
			t.Fatalf("DecodeLine read %q, which Parse and Decode reject: %v", line, slowErr)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%q (-Decode +DecodeLine):\n%s", line, diff)
		}
	})
}

// BenchmarkDecodeLine compares DecodeLine with Parse and Decode on lines
// of a generated ledger.
func BenchmarkDecodeLine(b *testing.B) {
	data, err := os.ReadFile("testdata/generated.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.Run("DecodeLine", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			for _, line := range lines {
				if _, ok := DecodeLine(line, Position{}); !ok {
					b.Fatalf("declined %s", line)
				}
			}
		}
	})
	b.Run("ParseDecode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var p ndjson.Parser
		var d Decoder
		for b.Loop() {
			for _, line := range lines {
				members, err := p.Parse(line)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := d.Decode(members, Position{}); err != nil {
					b.Fatal(err)
				}
			}
			d.Reset()
		}
	})
}

// TestFields checks the field list against SPEC's Records table, in its
// order: fieldmap and otlp take it from here.
func TestFields(t *testing.T) {
	want := [NumFields]string{"type", "operationId", "attemptId", "idempotencyKey", "scope", "payloadHash", "result", "effectRef", "observedAt", "attempt"}
	if diff := cmp.Diff(want, Fields()); diff != "" {
		t.Fatalf("Fields (-want +got):\n%s", diff)
	}
}

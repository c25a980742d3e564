package audit

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/ndjson"
)

func decodeLine(t *testing.T, line string) (Record, error) {
	t.Helper()
	var p ndjson.Parser
	members, err := p.Parse([]byte(line))
	if err != nil {
		t.Fatalf("Parse(%s): %v", line, err)
	}
	var d Decoder
	return d.Decode(members, Position{Line: 7})
}

func TestDecode(t *testing.T) {
	when := at(t, "2026-11-29T10:00:00.5+01:00")
	tests := []struct {
		name string
		line string
		want Record
	}{
		{
			name: "attempt with every field",
			line: `{"type":"attempt","operationId":"op-1","attemptId":"a1","idempotencyKey":"k","scope":"s","payloadHash":"sha256:ab","result":"timeout","observedAt":"2026-11-29T10:00:00.5+01:00","attempt":2,"extra":{"x":[1,2]}}`,
			want: Record{Type: Attempt, OperationID: "op-1", AttemptID: "a1", IdempotencyKey: "k", Scope: "s",
				PayloadHash: "sha256:ab", Result: "timeout", ObservedAt: when, HasObservedAt: true, AttemptNumber: 2, Pos: Position{Line: 7}},
		},
		{
			name: "effect defaults to present",
			line: `{"type":"effect","operationId":"op-1","effectRef":"ticket-908"}`,
			want: Record{Type: Effect, OperationID: "op-1", Result: "present", EffectRef: "ticket-908", Pos: Position{Line: 7}},
		},
		{
			name: "absent effect needs no effectRef",
			line: `{"type":"effect","operationId":"op-1","result":"absent","effectRef":null}`,
			want: Record{Type: Effect, OperationID: "op-1", Result: "absent", Pos: Position{Line: 7}},
		},
		{
			name: "null and empty strings are absent",
			line: `{"type":"attempt","operationId":"op-1","attemptId":null,"idempotencyKey":"","scope":"","payloadHash":null,"result":null,"observedAt":null,"attempt":null}`,
			want: Record{Type: Attempt, OperationID: "op-1", Pos: Position{Line: 7}},
		},
		{
			name: "escapes decode before use",
			line: `{"type":"attempt","operationId":"op\u002d1","idempotencyKey":"caf\u00e9 \ud83d\ude00","scope":"a\/b"}`,
			want: Record{Type: Attempt, OperationID: "op-1", IdempotencyKey: "café 😀", Scope: "a/b", Pos: Position{Line: 7}},
		},
		{
			name: "escaped member names are the same names",
			line: `{"\u0074ype":"attempt","operationI\u0064":"op-1"}`,
			want: Record{Type: Attempt, OperationID: "op-1", Pos: Position{Line: 7}},
		},
		{
			name: "fields of the other record type are ignored when well typed",
			line: `{"type":"effect","operationId":"op-1","effectRef":"r","attempt":3}`,
			want: Record{Type: Effect, OperationID: "op-1", Result: "present", EffectRef: "r", AttemptNumber: 3, Pos: Position{Line: 7}},
		},
		{
			name: "an attempt number past int is an integer still, kept as the largest int",
			line: `{"type":"attempt","operationId":"op-1","attempt":99999999999999999999999}`,
			want: Record{Type: Attempt, OperationID: "op-1", AttemptNumber: math.MaxInt, Pos: Position{Line: 7}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeLine(t, tt.line)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeInvalid(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		field string
		msg   string
	}{
		{"no type", `{"operationId":"op-1"}`, "type", `field "type": missing; want "attempt" or "effect"`},
		{"null type", `{"type":null,"operationId":"op-1"}`, "type", `field "type": missing; want "attempt" or "effect"`},
		{"other type", `{"type":"Attempt","operationId":"op-1"}`, "type", `field "type": "Attempt"; want "attempt" or "effect"`},
		{"type not a string", `{"type":1,"operationId":"op-1"}`, "type", `field "type": want a string, got number 1`},
		{"no operationId", `{"type":"attempt"}`, "operationId", `field "operationId": missing or empty`},
		{"empty operationId", `{"type":"attempt","operationId":""}`, "operationId", `field "operationId": missing or empty`},
		{"operationId a number", `{"type":"attempt","operationId":42}`, "operationId", `field "operationId": want a string, got number 42`},
		{"attemptId an object", `{"type":"attempt","operationId":"o","attemptId":{"id":1}}`, "attemptId", `field "attemptId": want a string, got object {"id":1}`},
		{"key an array", `{"type":"attempt","operationId":"o","idempotencyKey":["k"]}`, "idempotencyKey", `field "idempotencyKey": want a string, got array ["k"]`},
		{"scope a bool", `{"type":"attempt","operationId":"o","scope":true}`, "scope", `field "scope": want a string, got true`},
		{"hash a number", `{"type":"attempt","operationId":"o","payloadHash":1}`, "payloadHash", `field "payloadHash": want a string, got number 1`},
		{"result a number", `{"type":"attempt","operationId":"o","result":503}`, "result", `field "result": want a string, got number 503`},
		{"effectRef a number", `{"type":"effect","operationId":"o","effectRef":908}`, "effectRef", `field "effectRef": want a string, got number 908`},
		{"effect without effectRef", `{"type":"effect","operationId":"o"}`, "effectRef", `field "effectRef": missing or empty on a present effect`},
		{"effect with empty effectRef", `{"type":"effect","operationId":"o","effectRef":""}`, "effectRef", `field "effectRef": missing or empty on a present effect`},
		{"effect result capitalised", `{"type":"effect","operationId":"o","result":"Absent"}`, "result", `field "result": "Absent" on an effect; want "present" or "absent"`},
		{"effect result pending", `{"type":"effect","operationId":"o","result":"pending","effectRef":"r"}`, "result", `field "result": "pending" on an effect; want "present" or "absent"`},
		{"observedAt without offset", `{"type":"attempt","operationId":"o","observedAt":"2026-11-29T10:00:00"}`, "observedAt", ""},
		{"observedAt with a space", `{"type":"attempt","operationId":"o","observedAt":"2026-11-29 10:00:00Z"}`, "observedAt", ""},
		{"observedAt a number", `{"type":"attempt","operationId":"o","observedAt":1764410400}`, "observedAt", ""},
		{"attempt zero", `{"type":"attempt","operationId":"o","attempt":0}`, "attempt", `field "attempt": want an integer ≥ 1, got number 0`},
		{"attempt negative", `{"type":"attempt","operationId":"o","attempt":-1}`, "attempt", ""},
		{"attempt fractional", `{"type":"attempt","operationId":"o","attempt":1.5}`, "attempt", ""},
		{"attempt exponent", `{"type":"attempt","operationId":"o","attempt":1e2}`, "attempt", ""},
		{"attempt a string", `{"type":"attempt","operationId":"o","attempt":"2"}`, "attempt", ""},
		{"attempt beyond int and negative", `{"type":"attempt","operationId":"o","attempt":-99999999999999999999999}`, "attempt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeLine(t, tt.line)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Decode(%s) error = %v, want a *FieldError", tt.line, err)
			}
			if fe.Field != tt.field {
				t.Errorf("field = %q, want %q (%v)", fe.Field, tt.field, err)
			}
			if tt.msg != "" {
				if diff := cmp.Diff(tt.msg, err.Error()); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
			}
		})
	}
}

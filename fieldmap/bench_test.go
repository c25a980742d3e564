package fieldmap

import (
	"testing"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

func BenchmarkMembers(b *testing.B) {
	line := []byte(`{"kind":"attempt","op_id":"op-ticket-42","request":{"id":"att-42-1","headers":{"Idempotency-Key":"ticket-42:create-ticket:v1"},"body_hash":"sha256:d145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd94"},"outcome":"timeout","provider":{"name":"zendesk","object_id":null},"ts":"2026-11-29T09:00:00.120Z","attempt":1}`)
	m, err := Parse([]string{"type=kind", "operationId=op_id", "attemptId=request.id", "idempotencyKey=request.headers.Idempotency-Key",
		"payloadHash=request.body_hash", "result=outcome", "scope=provider.name", "effectRef=provider.object_id", "observedAt=ts"})
	if err != nil {
		b.Fatal(err)
	}
	var p ndjson.Parser
	var d audit.Decoder
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		members, err := p.Parse(line)
		if err != nil {
			b.Fatal(err)
		}
		mapped, err := m.Members(members)
		if err != nil {
			b.Fatal(err)
		}
		d.Reset()
		if _, err := d.Decode(mapped, audit.Position{Line: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// Package otlp turns OpenTelemetry trace exports into ledger records: OTLP/JSON
// as the collector's file exporter writes it with format: json (one
// TracesData or ExportTraceServiceRequest object per line), spans in,
// attempt and effect records out.
//
// A span becomes a record when it carries the attribute that names the
// record type (effect.record by default); every other span is skipped and
// counted. The record's fields come from span attributes named by a Mapping,
// with defaults from the span itself (its id, end time and status). The
// record is then validated by audit.Decoder.Decode, exactly like a ledger
// line, so the rules for types, null, "" and observedAt stay in one place.
//
// The package reads JSON only: the protobuf encoding and the file exporter's
// length-prefixed output (format: proto, or any compression) are refused by
// Sniff with a message that says how to configure the exporter.
package otlp

import (
	"strings"

	"github.com/effectaudit/effectaudit/fieldmap"
)

// Mapping names the span attribute each ledger field is read from. An empty
// name reads nothing: the field takes its default or stays absent. A span
// without the Type attribute is not an effect record and is skipped, so a
// Mapping with an empty Type selects no span at all.
//
// Attributes are looked up on the span, then on its instrumentation scope,
// then on its resource: the first that has the key wins, so a service can
// set effect.scope once on its resource and a span can still override it.
//
// Defaults where the attribute is absent:
//   - AttemptID: the span id (lower-case hex) on attempt records; effect
//     records get none, since the span that observed an effect is not the
//     attempt that caused it.
//   - ObservedAt: the span's end time, RFC 3339 in UTC with nine fraction
//     digits; none if the span has no end time.
//   - Result of an attempt: from the span status. OK is "success"; ERROR is
//     "timeout" when the status message or the error.type attribute contains
//     "timeout" or "deadline" (in any case), else "error"; UNSET gives no
//     result. An effect's result has no default (absent means present).
type Mapping struct {
	Type           string // "attempt" or "effect"; selects the span
	OperationID    string
	AttemptID      string
	IdempotencyKey string
	Scope          string
	PayloadHash    string
	Result         string
	EffectRef      string
	ObservedAt     string
	Attempt        string // the attempt number, an intValue
}

// DefaultMapping reads the effect.* attributes:
//
//	type            effect.record           "attempt" or "effect"; selects the span
//	operationId     effect.operation_id
//	attemptId       effect.attempt_id       default: the span id (attempts)
//	idempotencyKey  effect.idempotency_key
//	scope           effect.scope
//	payloadHash     effect.payload_hash
//	result          effect.result           default: from the span status (attempts)
//	effectRef       effect.ref
//	observedAt      effect.observed_at      default: the span end time
//	attempt         effect.attempt
//
// OpenTelemetry has no semantic convention for idempotency keys or effect
// identities yet; these names are the tool's own.
func DefaultMapping() Mapping {
	return Mapping{
		Type:           "effect.record",
		OperationID:    "effect.operation_id",
		AttemptID:      "effect.attempt_id",
		IdempotencyKey: "effect.idempotency_key",
		Scope:          "effect.scope",
		PayloadHash:    "effect.payload_hash",
		Result:         "effect.result",
		EffectRef:      "effect.ref",
		ObservedAt:     "effect.observed_at",
		Attempt:        "effect.attempt",
	}
}

// attr returns the attribute name of the ledger field, or nil.
func (m *Mapping) attr(field string) *string {
	switch field {
	case "type":
		return &m.Type
	case "operationId":
		return &m.OperationID
	case "attemptId":
		return &m.AttemptID
	case "idempotencyKey":
		return &m.IdempotencyKey
	case "scope":
		return &m.Scope
	case "payloadHash":
		return &m.PayloadHash
	case "result":
		return &m.Result
	case "effectRef":
		return &m.EffectRef
	case "observedAt":
		return &m.ObservedAt
	case "attempt":
		return &m.Attempt
	}
	return nil
}

// Apply overrides attribute names with the mappings of fm, the same --map
// FIELD=PATH flags and mapping file that rename fields of ledger-shaped
// lines. For OTLP a path is an attribute key, not a walk into nested
// objects: attribute keys are flat names that hold dots by convention, so
// the path's segments are joined with "." again. --map
// operationId=gen_ai.conversation.id reads the attribute
// "gen_ai.conversation.id"; `gen_ai\.conversation\.id` means the same.
// Attributes of kvlistValue type are not descended into. Fields fm does not
// map keep their attribute. A nil fm changes nothing.
func (m *Mapping) Apply(fm *fieldmap.Map) {
	for _, field := range ledgerFields {
		segs, ok := fm.Path(field)
		if !ok {
			continue
		}
		if dst := m.attr(field); dst != nil {
			*dst = strings.Join(segs, ".")
		}
	}
}

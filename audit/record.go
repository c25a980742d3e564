package audit

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/effectaudit/effectaudit/ndjson"
)

// RecordType says whether a record is a transport attempt or a provider-side
// effect observation.
type RecordType uint8

const (
	Attempt RecordType = iota + 1
	Effect
)

func (t RecordType) String() string {
	switch t {
	case Attempt:
		return "attempt"
	case Effect:
		return "effect"
	}
	return "unknown"
}

// Position locates a record: the index of its input among the inputs given,
// its 1-based line, and its index among the records of that line (an OTLP
// line holds many spans; a ledger line one record, Seq 0). Positions order
// operations by first appearance; an audit takes at most MaxInputs inputs.
type Position struct {
	Input int
	Line  int
	Seq   int
}

// MaxInputs is how many inputs one audit can tell apart: an operation keeps
// the position of its first record in 64 bits (see packedPos), 16 of them
// for the input.
const MaxInputs = 1 << 16

// Before reports whether p comes earlier in the input than q.
func (p Position) Before(q Position) bool {
	if p.Input != q.Input {
		return p.Input < q.Input
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Seq < q.Seq
}

// Record is one validated ledger record. Optional strings that were absent,
// null or "" are "".
type Record struct {
	Type           RecordType
	OperationID    string
	AttemptID      string
	IdempotencyKey string
	Scope          string
	PayloadHash    string
	Result         string // for effects: "present" or "absent" (the default is filled in)
	EffectRef      string
	ObservedAt     Instant
	HasObservedAt  bool
	AttemptNumber  int // the diagnostic "attempt" field, 0 when absent, math.MaxInt past it
	Pos            Position
}

// FieldError says why a syntactically valid JSON object is not a valid record.
type FieldError struct {
	Field string // the member at fault; "" when the record as a whole is
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Msg)
}

// Decoder turns the members of a parsed line into a Record. Its zero value is
// ready to use.
//
// To decode without allocating, the strings of a decoded Record alias the
// line's bytes and the Decoder's scratch buffer: they are valid until the
// line's buffer is reused or the Decoder is Reset. The scratch buffer only
// grows (with escaped strings) until Reset. Auditor.Add copies what it keeps;
// anyone else keeping a Record must Clone it.
type Decoder struct {
	scratch []byte
}

// Decode validates members per SPEC's Records section and returns the record.
// Unknown members are ignored; null counts as absent. DecodeLine reads the
// same fields (see fieldNames) in one pass.
func (d *Decoder) Decode(members []ndjson.Member, pos Position) (Record, error) {
	r := Record{Pos: pos}
	var typ string
	for i := range members {
		m := &members[i]
		switch f := fieldNamed(m.Name); f {
		case fOther:
			continue
		case fObservedAt:
			s, err := d.str(m)
			if err != nil {
				return r, err
			}
			if err := r.setObservedAt(s); err != nil {
				return r, err
			}
		case fAttempt:
			if m.Kind == ndjson.Null {
				continue
			}
			n, err := strconv.Atoi(string(m.Value))
			if errors.Is(err, strconv.ErrRange) && m.Value[0] != '-' {
				// An integer all the same; the number is only diagnostic.
				n, err = math.MaxInt, nil
			}
			if m.Kind != ndjson.Number || err != nil || n < 1 || bytes.ContainsAny(m.Value, ".eE+-") {
				return r, &FieldError{"attempt", "want an integer ≥ 1, got " + describe(m)}
			}
			r.AttemptNumber = n
		default:
			s, err := d.str(m)
			if err != nil {
				return r, err
			}
			*r.textField(f, &typ) = s
		}
	}
	return r, r.finish(typ)
}

// setObservedAt sets the time from s, the observedAt string; "" is none.
func (r *Record) setObservedAt(s string) error {
	if s == "" {
		return nil
	}
	t, err := ParseInstant(s)
	if err != nil {
		return &FieldError{"observedAt", fmt.Sprintf("%s: %v", quoteValue(s), err)}
	}
	r.ObservedAt, r.HasObservedAt = t, true
	return nil
}

// finish sets r's Type from typ, the "type" member's string, and checks the
// members that depend on it and on each other.
func (r *Record) finish(typ string) error {
	switch typ {
	case "attempt":
		r.Type = Attempt
	case "effect":
		r.Type = Effect
	case "":
		return &FieldError{"type", `missing; want "attempt" or "effect"`}
	default:
		return &FieldError{"type", quoteValue(typ) + `; want "attempt" or "effect"`}
	}
	if r.OperationID == "" {
		return &FieldError{"operationId", "missing or empty"}
	}
	if r.Type == Effect {
		switch r.Result {
		case "":
			r.Result = "present"
		case "present", "absent":
		default:
			return &FieldError{"result", quoteValue(r.Result) + ` on an effect; want "present" or "absent"`}
		}
		if r.Result == "present" && r.EffectRef == "" {
			return &FieldError{"effectRef", "missing or empty on a present effect"}
		}
	}
	return nil
}

// Reset lets the Decoder reuse its scratch buffer: strings of records
// decoded before become invalid.
func (d *Decoder) Reset() { d.scratch = d.scratch[:0] }

// str decodes a string member; null is "".
func (d *Decoder) str(m *ndjson.Member) (string, error) {
	switch m.Kind {
	case ndjson.Null:
		return "", nil
	case ndjson.String:
	default:
		return "", &FieldError{string(m.Name), "want a string, got " + describe(m)}
	}
	if !m.Escaped {
		return unsafe.String(&m.Value[1], len(m.Value)-2), nil
	}
	start := len(d.scratch)
	var err error
	d.scratch, err = ndjson.AppendUnquote(d.scratch, m.Value)
	if err != nil {
		return "", &FieldError{string(m.Name), err.Error()}
	}
	// An earlier field's string keeps the old array alive if append moved it.
	return unsafe.String(unsafe.SliceData(d.scratch[start:]), len(d.scratch)-start), nil
}

// Clone returns a copy of r whose strings own their bytes.
func (r Record) Clone() Record {
	for _, s := range []*string{&r.OperationID, &r.AttemptID, &r.IdempotencyKey, &r.Scope, &r.PayloadHash, &r.Result, &r.EffectRef} {
		*s = strings.Clone(*s)
	}
	return r
}

// maxQuotedValue is the most runes of a value an error message quotes. The
// messages of invalid lines are kept, printed and shared between lines
// that have the same one: quoted whole, a value of megabytes would make as
// large a message.
const maxQuotedValue = 64

// quoteValue quotes s, valid UTF-8, for an error message, cut after
// maxQuotedValue runes and then followed by "…".
func quoteValue(s string) string {
	if s, cut := cutAfter(s, maxQuotedValue); cut {
		return strconv.Quote(s) + "…"
	}
	return strconv.Quote(s)
}

func describe(m *ndjson.Member) string {
	const max = 24
	v := m.Value
	switch m.Kind {
	case ndjson.Null, ndjson.True, ndjson.False:
		return string(v)
	}
	if len(v) > max {
		v = v[:max]
		for len(v) > 0 && !utf8.Valid(v) {
			v = v[:len(v)-1] // do not cut a character in two
		}
		return fmt.Sprintf("%s %s…", m.Kind, v)
	}
	return fmt.Sprintf("%s %s", m.Kind, v)
}

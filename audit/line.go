package audit

import (
	"strconv"
	"unsafe"

	"github.com/effectaudit/effectaudit/ndjson"
)

// DecodeLine is ndjson.Parser.Parse and Decode in one pass, for the line
// nearly every ledger holds: one flat object whose names are free of
// escapes, whose string values are too, and which is a valid record. It
// matches known names by their bytes and checks for duplicate names with a
// bit each, where Parse lists every member and compares each name with the
// ones before; on a realistic ledger that takes a quarter less time.
//
// It reports false, having decided nothing, at the first thing out of the
// ordinary, valid or not (an escape, a nested value, a syntax error, an
// invalid record): the caller then parses the line and decodes the members,
// so that errors are found and worded in one place. When it reports true,
// the record is exactly what Decode gives; FuzzDecodeLine holds it to that.
// The record's strings alias line.
func DecodeLine(line []byte, pos Position) (r Record, ok bool) {
	r.Pos = pos
	n := len(line)
	i := ndjson.SkipSpace(line, 0)
	if i >= n || line[i] != '{' {
		return r, false
	}
	var (
		seen   uint16 // a bit per known field read
		typ    string
		others [maxOtherNames][]byte // the names of unknown members, to check for duplicates
		nOther int
	)
	for {
		// A member: its name...
		i = ndjson.SkipSpace(line, i+1)
		if i >= n || line[i] != '"' {
			return r, false
		}
		f, end := knownField(line, i)
		if f == fOther {
			var escaped bool
			var err error
			end, escaped, err = ndjson.ScanString(line, i)
			if err != nil || escaped || nOther == len(others) {
				return r, false
			}
			name := line[i+1 : end-1]
			for _, o := range others[:nOther] {
				if string(o) == string(name) {
					return r, false
				}
			}
			others[nOther] = name
			nOther++
		} else {
			if seen&(1<<f) != 0 {
				return r, false
			}
			seen |= 1 << f
		}
		i = ndjson.SkipSpace(line, end)
		if i >= n || line[i] != ':' {
			return r, false
		}
		// ...and its value.
		i = ndjson.SkipSpace(line, i+1)
		if i >= n {
			return r, false
		}
		switch c := line[i]; {
		case c == '"':
			var escaped bool
			var err error
			end, escaped, err = ndjson.ScanString(line, i)
			if err != nil || escaped {
				return r, false
			}
			if f != fOther && !r.setString(f, &typ, line[i+1:end-1]) {
				return r, false
			}
			i = end
		case c == 'n':
			// null counts as absent, for every field.
			if i, ok = ndjson.ScanLiteral(line, i, "null"); !ok {
				return r, false
			}
		case c == '-' || '0' <= c && c <= '9':
			var err error
			end, err = ndjson.ScanNumber(line, i)
			if err != nil || f != fOther && (f != fAttempt || !r.setAttempt(line[i:end])) {
				return r, false
			}
			i = end
		case c == 't' || c == 'f':
			word := "true"
			if c == 'f' {
				word = "false"
			}
			if i, ok = ndjson.ScanLiteral(line, i, word); !ok || f != fOther {
				return r, false
			}
		default: // a nested value, or not a value
			return r, false
		}
		i = ndjson.SkipSpace(line, i)
		if i >= n {
			return r, false
		}
		switch line[i] {
		case ',':
			continue
		case '}':
			if ndjson.SkipSpace(line, i+1) != n {
				return r, false
			}
			return r, r.finish(typ) == nil
		}
		return r, false
	}
}

// maxAttemptDigits is how many digits a number may have and still surely
// fit an int: 9 where an int has 32 bits, 18 where it has 64.
const maxAttemptDigits = 9 + 9*(strconv.IntSize/64)

// maxOtherNames is how many members with names the record does not use a
// line may have and still be read by DecodeLine.
const maxOtherNames = 8

// The fields DecodeLine knows by name.
type field uint8

const (
	fType field = iota
	fOperationID
	fAttemptID
	fIdempotencyKey
	fScope
	fPayloadHash
	fResult
	fEffectRef
	fObservedAt
	fAttempt
	fOther
)

// knownField returns the field whose name, unescaped, is the string literal
// at line[i], and the index just past its closing quote; fOther and 0 for
// any other name.
func knownField(line []byte, i int) (field, int) {
	rest := line[i+1:]
	if len(rest) < len(`type"`) {
		return fOther, 0
	}
	// Each case compares a name and its closing quote in a few loads.
	var f field
	switch rest[0] {
	case 't':
		f = namedField(rest, `type"`, fType)
	case 'o':
		if f = namedField(rest, `operationId"`, fOperationID); f == fOther {
			f = namedField(rest, `observedAt"`, fObservedAt)
		}
	case 'a':
		if f = namedField(rest, `attemptId"`, fAttemptID); f == fOther {
			f = namedField(rest, `attempt"`, fAttempt)
		}
	case 'i':
		f = namedField(rest, `idempotencyKey"`, fIdempotencyKey)
	case 's':
		f = namedField(rest, `scope"`, fScope)
	case 'p':
		f = namedField(rest, `payloadHash"`, fPayloadHash)
	case 'r':
		f = namedField(rest, `result"`, fResult)
	case 'e':
		f = namedField(rest, `effectRef"`, fEffectRef)
	default:
		return fOther, 0
	}
	if f == fOther {
		return fOther, 0
	}
	return f, i + 1 + len(fieldNames[f]) + 1
}

// fieldNames are the names of the fields a record takes from a line, which
// Decode looks up here. A field added here goes to knownField too
// (TestKnownField checks it does), and to setString or setAttempt.
var fieldNames = [...]string{
	fType: "type", fOperationID: "operationId", fAttemptID: "attemptId", fIdempotencyKey: "idempotencyKey",
	fScope: "scope", fPayloadHash: "payloadHash", fResult: "result", fEffectRef: "effectRef",
	fObservedAt: "observedAt", fAttempt: "attempt",
}

// NumFields is how many fields a ledger record has: SPEC's Records table.
const NumFields = len(fieldNames)

// Fields returns the names of a ledger record's fields, in SPEC's order:
// the one list of them, which the packages that map other shapes onto
// records (fieldmap, otlp) take too.
func Fields() [NumFields]string { return fieldNames }

// fieldNamed returns the field named name, or fOther.
func fieldNamed(name []byte) field {
	for f, n := range fieldNames {
		if string(name) == n {
			return field(f)
		}
	}
	return fOther
}

// textField returns where the string of field f, one taken as it is, goes:
// a field of r, or typ for the type.
func (r *Record) textField(f field, typ *string) *string {
	switch f {
	case fType:
		return typ
	case fOperationID:
		return &r.OperationID
	case fAttemptID:
		return &r.AttemptID
	case fIdempotencyKey:
		return &r.IdempotencyKey
	case fScope:
		return &r.Scope
	case fPayloadHash:
		return &r.PayloadHash
	case fResult:
		return &r.Result
	case fEffectRef:
		return &r.EffectRef
	}
	panic("audit: field " + fieldNames[f] + " is not taken as it is")
}

// namedField returns f if b starts with quoted, a name and its closing
// quote, and fOther if not.
func namedField(b []byte, quoted string, f field) field {
	if len(b) >= len(quoted) && string(b[:len(quoted)]) == quoted {
		return f
	}
	return fOther
}

// setString sets field f from the string raw, free of escapes, the way
// Decode does; typ receives the type. It reports false where Decode fails.
func (r *Record) setString(f field, typ *string, raw []byte) bool {
	s := unsafe.String(unsafe.SliceData(raw), len(raw))
	switch f {
	case fObservedAt:
		return r.setObservedAt(s) == nil
	case fAttempt: // a number
		return false
	default:
		*r.textField(f, typ) = s
	}
	return true
}

// setAttempt sets the attempt number from num, a valid JSON number. It
// reports false for anything but an integer from 1 with few enough digits
// to fit an int, leaving the rest to Decode.
func (r *Record) setAttempt(num []byte) bool {
	if len(num) > maxAttemptDigits || num[0] == '0' {
		return false
	}
	v := 0
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
		v = v*10 + int(c-'0')
	}
	r.AttemptNumber = v
	return true
}

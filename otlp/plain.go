package otlp

import (
	"bytes"
	"encoding/json"
	"unsafe"

	"github.com/effectaudit/effectaudit/ndjson"
)

// Most export lines are plain: members named exactly as OTLP spells them,
// each once, with values of the types the converter reads. plainDecoder
// decodes those without reflection, and gives up on anything else, which
// json.Unmarshal then decodes: a member named in another case, one given
// twice, a name with an escape or not in ASCII, a null, a value of another
// type, too deep a nesting, anything not valid JSON. So on the lines it
// takes it yields what json.Unmarshal yields, which TestPlainAgrees and
// FuzzPlainAgrees check.
//
// The strings it decodes and the raw values it keeps alias the line, which
// must not change while they are in use; Convert copies what outlives it.

// maxPlainDepth bounds how deep a value the decoder skips, or keeps raw,
// may nest; a deeper one goes to json.Unmarshal, which has its own limit.
const maxPlainDepth = 256

// maxSlabBytes is the most a slab keeps from one line to the next: a line
// of millions of spans must not hold their memory for the rest of the run.
const maxSlabBytes = 1 << 20

// plainDecoder reads one line at a time. Its lists are cut from slabs, one
// for each element type, which it reuses from line to line: no list holds
// another of its own type, so each list's elements are contiguous in its
// slab. The lists of one line are valid only until the next decode.
type plainDecoder struct {
	data []byte
	i    int
	ok   bool // false once anything was not plain

	resources []resourceSpans
	scopes    []scopeSpans
	spans     []span
	kvs       []keyValue
}

// decode fills req from line as json.Unmarshal would, and reports whether
// it could; when it could not, req holds anything. Convert checks that the
// line is valid UTF-8 first, which json.Unmarshal does not require; decode
// gives up on a string that is not, as the strict scanner refuses it.
func (d *plainDecoder) decode(line []byte, req *request) bool {
	d.data, d.i, d.ok = line, 0, true
	reuse(&d.resources)
	reuse(&d.scopes)
	reuse(&d.spans)
	reuse(&d.kvs)
	d.ws()
	var seen uint8
	d.object(func(name []byte) {
		if !d.member(name, &seen, "resourceSpans", "resourceMetrics", "resourceLogs") {
			return
		}
		switch string(name) {
		case "resourceSpans":
			req.ResourceSpans = decodeList(d, &d.resources, (*plainDecoder).resourceSpans)
		case "resourceMetrics":
			req.ResourceMetrics = d.raw()
		default:
			req.ResourceLogs = d.raw()
		}
	})
	d.ws()
	ok := d.ok && d.i == len(d.data)
	d.data = nil
	return ok
}

// reuse empties a slab for the next line, or drops it if it grew past
// maxSlabBytes.
func reuse[T any](slab *[]T) {
	var zero T
	if cap(*slab)*int(unsafe.Sizeof(zero)) > maxSlabBytes {
		*slab = nil
	}
	*slab = (*slab)[:0]
}

func (d *plainDecoder) resourceSpans(rs *resourceSpans) {
	var seen uint8
	d.object(func(name []byte) {
		if !d.member(name, &seen, "resource", "scopeSpans", "instrumentationLibrarySpans") {
			return
		}
		switch string(name) {
		case "resource":
			d.attributes(&rs.Resource)
		case "scopeSpans":
			rs.ScopeSpans = decodeList(d, &d.scopes, (*plainDecoder).scopeSpans)
		default:
			rs.LegacyScopeSpans = decodeList(d, &d.scopes, (*plainDecoder).scopeSpans)
		}
	})
}

func (d *plainDecoder) scopeSpans(ss *scopeSpans) {
	var seen uint8
	d.object(func(name []byte) {
		if !d.member(name, &seen, "scope", "instrumentationLibrary", "spans") {
			return
		}
		switch string(name) {
		case "scope":
			d.attributes(&ss.Scope)
		case "instrumentationLibrary":
			d.attributes(&ss.LegacyScope)
		default:
			ss.Spans = decodeList(d, &d.spans, (*plainDecoder).span)
		}
	})
}

func (d *plainDecoder) attributes(a *attributes) {
	var seen uint8
	d.object(func(name []byte) {
		if d.member(name, &seen, "attributes") {
			a.Attributes = decodeList(d, &d.kvs, (*plainDecoder).keyValue)
		}
	})
}

func (d *plainDecoder) span(sp *span) {
	var seen uint8
	d.object(func(name []byte) {
		if !d.member(name, &seen, "spanId", "endTimeUnixNano", "attributes", "status") {
			return
		}
		switch string(name) {
		case "spanId":
			sp.SpanID = d.string()
		case "endTimeUnixNano":
			sp.EndTimeUnixNano = d.raw()
		case "attributes":
			sp.Attributes = decodeList(d, &d.kvs, (*plainDecoder).keyValue)
		case "status":
			var seenStatus uint8
			d.object(func(name []byte) {
				if !d.member(name, &seenStatus, "code", "message") {
					return
				}
				if string(name) == "code" {
					sp.Status.Code = d.raw()
				} else {
					sp.Status.Message = d.string()
				}
			})
		}
	})
}

func (d *plainDecoder) keyValue(kv *keyValue) {
	var seen uint8
	d.object(func(name []byte) {
		if !d.member(name, &seen, "key", "value") {
			return
		}
		if string(name) == "key" {
			kv.Key = d.string()
			return
		}
		v := &kv.Value
		var seenVariant uint8
		d.object(func(name []byte) {
			if !d.member(name, &seenVariant, anyValueNames[:]...) {
				return
			}
			for i, n := range anyValueNames {
				if string(name) == n {
					*v.field(i) = d.raw()
					return
				}
			}
		})
	})
}

var anyValueNames = [...]string{"stringValue", "intValue", "boolValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"}

// field returns the variant named anyValueNames[i].
func (v *anyValue) field(i int) *[]byte {
	return [...]*[]byte{
		(*[]byte)(&v.StringValue), (*[]byte)(&v.IntValue), (*[]byte)(&v.BoolValue), (*[]byte)(&v.DoubleValue),
		(*[]byte)(&v.ArrayValue), (*[]byte)(&v.KvlistValue), (*[]byte)(&v.BytesValue),
	}[i]
}

// member reports whether the member named name, whose value comes next, is
// one of the names the object's Go type has (at most 8), to be decoded by
// the caller. It reports false, with the value skipped, for a member the
// type does not have. It gives up, reporting false with d.ok false, on a
// name that matches one of names only in another case (json.Unmarshal
// would decode it into that field), on a name met twice in the object
// (json.Unmarshal would decode it again, into what the first left), and on
// a null value, rare enough not to be worth its cases. seen marks the names
// met so far in the object.
func (d *plainDecoder) member(name []byte, seen *uint8, names ...string) bool {
	if !d.ok {
		return false
	}
	for i, n := range names {
		if string(name) == n {
			if *seen&(1<<i) != 0 || d.peek() == 'n' {
				d.ok = false
				return false
			}
			*seen |= 1 << i
			return true
		}
	}
	for _, n := range names {
		if bytes.EqualFold(name, []byte(n)) {
			d.ok = false
			return false
		}
	}
	d.skip(0)
	return false
}

// decodeList decodes an array of objects, each with elem, into slab; elem
// gives up on a null element, or one of another type. An empty array is an
// empty slice, as json.Unmarshal has it, not a nil one.
func decodeList[T any](d *plainDecoder, slab *[]T, elem func(*plainDecoder, *T)) []T {
	if !d.ok || !d.take('[') {
		d.ok = false
		return nil
	}
	d.ws()
	if d.take(']') {
		return []T{}
	}
	start := len(*slab)
	var zero T
	for d.ok {
		*slab = append(*slab, zero)
		elem(d, &(*slab)[len(*slab)-1])
		d.ws()
		if d.take(']') {
			return (*slab)[start:len(*slab):len(*slab)]
		}
		if !d.take(',') {
			d.ok = false
			return nil
		}
		d.ws()
	}
	return nil
}

// object reads an object, calling member with each member's name, with
// the value next; member must read the value (or let d.member skip it). A
// name with an escape, or one that is not ASCII (which json.Unmarshal may
// fold into one of a field's), gives up.
func (d *plainDecoder) object(member func(name []byte)) {
	if !d.ok || !d.take('{') {
		d.ok = false
		return
	}
	d.ws()
	if d.take('}') {
		return
	}
	for d.ok {
		start, end, escaped := d.str()
		if !d.ok || escaped {
			d.ok = false
			return
		}
		name := d.data[start+1 : end-1]
		for _, c := range name {
			if c >= 0x80 {
				d.ok = false
				return
			}
		}
		d.ws()
		if !d.take(':') {
			d.ok = false
			return
		}
		d.ws()
		member(name)
		d.ws()
		if d.take('}') {
			return
		}
		if !d.take(',') {
			d.ok = false
			return
		}
		d.ws()
	}
}

// string reads a string. One without escapes aliases the line; one with
// escapes is unquoted by json.Unmarshal, which is what it would do with
// the string in the whole line.
func (d *plainDecoder) string() string {
	start, end, escaped := d.str()
	if !d.ok {
		return ""
	}
	if escaped {
		var s string
		if json.Unmarshal(d.data[start:end], &s) != nil {
			d.ok = false
		}
		return s
	}
	s := d.data[start+1 : end-1]
	return unsafe.String(unsafe.SliceData(s), len(s))
}

// raw reads any value and returns its bytes, as a json.RawMessage field
// holds them; they alias the line.
func (d *plainDecoder) raw() []byte {
	start := d.i
	d.skip(0)
	if !d.ok {
		return nil
	}
	return d.data[start:d.i:d.i]
}

// skip reads one value of any kind, checking it is valid JSON.
func (d *plainDecoder) skip(depth int) {
	if !d.ok || depth > maxPlainDepth {
		d.ok = false
		return
	}
	switch c := d.peek(); {
	case c == '"':
		d.str()
	case c == '{':
		d.object(func([]byte) { d.skip(depth + 1) })
	case c == '[':
		d.i++
		d.ws()
		if d.take(']') {
			return
		}
		for d.ok {
			d.skip(depth + 1)
			d.ws()
			if d.take(']') {
				return
			}
			if !d.take(',') {
				d.ok = false
				return
			}
			d.ws()
		}
	case c == 't':
		d.literal("true")
	case c == 'f':
		d.literal("false")
	case c == 'n':
		d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		d.number()
	default:
		d.ok = false
	}
}

func (d *plainDecoder) literal(s string) {
	if end, ok := ndjson.ScanLiteral(d.data, d.i, s); ok {
		d.i = end
	} else {
		d.ok = false
	}
}

// number reads a number as JSON spells one.
func (d *plainDecoder) number() {
	end, err := ndjson.ScanNumber(d.data, d.i)
	d.i, d.ok = end, err == nil
}

// str reads a string literal, returning where its quotes are
// (data[start] and data[end-1]) and whether it holds an escape.
func (d *plainDecoder) str() (start, end int, escaped bool) {
	if !d.ok || d.peek() != '"' {
		d.ok = false
		return 0, 0, false
	}
	start = d.i
	end, escaped, err := ndjson.ScanString(d.data, start)
	d.i, d.ok = end, err == nil
	return start, end, escaped
}

func (d *plainDecoder) ws() { d.i = ndjson.SkipSpace(d.data, d.i) }

func (d *plainDecoder) peek() byte {
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	return 0
}

// take reads c if it comes next.
func (d *plainDecoder) take(c byte) bool {
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

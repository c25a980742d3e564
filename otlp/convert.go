package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

// The OTLP/JSON shapes the converter reads; every other field is ignored.
// Lines are decoded into them as encoding/json decodes them (keys match
// case-insensitively, for one), by plainDecoder when the line is plain and
// by json.Unmarshal otherwise: see plain.go.
type (
	request struct {
		ResourceSpans []resourceSpans `json:"resourceSpans"`
		// The exports of the other signals, kept raw only to tell them from
		// a line that is no export: a file exporter that serves the
		// metrics or logs pipeline too writes them into the same file.
		ResourceMetrics json.RawMessage `json:"resourceMetrics"`
		ResourceLogs    json.RawMessage `json:"resourceLogs"`
	}
	resourceSpans struct {
		Resource   attributes   `json:"resource"`
		ScopeSpans []scopeSpans `json:"scopeSpans"`
		// The name before OTLP 0.15 (2022), which older collectors and
		// SDKs still write: read when scopeSpans is empty, as trace.proto
		// told receivers to (a sender may have written both, the same
		// spans twice).
		LegacyScopeSpans []scopeSpans `json:"instrumentationLibrarySpans"`
	}
	scopeSpans struct {
		Scope       attributes `json:"scope"`
		LegacyScope attributes `json:"instrumentationLibrary"` // the scope, in a legacy element
		Spans       []span     `json:"spans"`
	}
	attributes struct {
		Attributes []keyValue `json:"attributes"`
	}
	span struct {
		SpanID          string          `json:"spanId"`
		EndTimeUnixNano json.RawMessage `json:"endTimeUnixNano"`
		Attributes      []keyValue      `json:"attributes"`
		Status          struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		} `json:"status"`
	}
	keyValue struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	// anyValue keeps every variant raw: attributes the mapping does not
	// read may hold anything, and those it reads are checked one by one.
	anyValue struct {
		StringValue json.RawMessage `json:"stringValue"`
		IntValue    json.RawMessage `json:"intValue"`
		BoolValue   json.RawMessage `json:"boolValue"`
		DoubleValue json.RawMessage `json:"doubleValue"`
		ArrayValue  json.RawMessage `json:"arrayValue"`
		KvlistValue json.RawMessage `json:"kvlistValue"`
		BytesValue  json.RawMessage `json:"bytesValue"`
	}
)

// set reports whether a variant of an AnyValue is given (not absent, not null).
func set(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// variant returns the name of the one variant v holds, "" for an empty
// AnyValue (which OTLP uses for an empty or null value), or an error if it
// holds more than one.
func (v *anyValue) variant() (string, error) {
	name := ""
	for _, x := range [...]struct {
		name string
		raw  json.RawMessage
	}{
		{"stringValue", v.StringValue}, {"intValue", v.IntValue}, {"boolValue", v.BoolValue},
		{"doubleValue", v.DoubleValue}, {"arrayValue", v.ArrayValue}, {"kvlistValue", v.KvlistValue},
		{"bytesValue", v.BytesValue},
	} {
		if !set(x.raw) {
			continue
		}
		if name != "" {
			return "", fmt.Errorf("the value holds both %s and %s", name, x.name)
		}
		name = x.name
	}
	return name, nil
}

// jsonError words a decoding error in terms of the OTLP document rather
// than of the Go types it is decoded into.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := "a different type"
		switch te.Type.Kind() {
		case reflect.Slice:
			want = "an array"
		case reflect.Struct, reflect.Map:
			want = "an object"
		case reflect.String:
			want = "a string"
		}
		return fmt.Errorf("OTLP/JSON: %s: got %s, want %s", te.Field, te.Value, want)
	}
	return fmt.Errorf("OTLP/JSON: %w", err)
}

// signalMembers are the members that make an object an OTLP/JSON export:
// of traces, or of metrics or logs, which a collector's file exporter
// serving those pipelines too writes into the same file (the export holds
// no span, but it is no ledger record either).
var signalMembers = [...]string{"resourceSpans", "resourceMetrics", "resourceLogs"}

// Looks reports whether a parsed line (its top-level members) is an OTLP
// export: it has one of signalMembers and is no ledger record, which may
// carry any unknown member, those too, but always has a type and an
// operationId.
func Looks(members []ndjson.Member) bool {
	export := false
	for _, m := range members {
		switch string(m.Name) {
		case signalMembers[0], signalMembers[1], signalMembers[2]:
			export = true
		case "type", "operationId":
			return false
		}
	}
	return export
}

// LooksLong is Looks for the start of a line too long to parse whole: an
// OTLP/JSON export has one of signalMembers as its only member, and its
// encoders write it first, with an array as its value; a ledger record
// seldom runs to kilobytes, let alone starts with such a member (one that
// does, as an unknown field, with any other value, stays a record).
func LooksLong(prefix []byte) bool {
	p := bytes.TrimLeft(prefix, " \t\r")
	if len(p) == 0 || p[0] != '{' {
		return false
	}
	p = bytes.TrimLeft(p[1:], " \t\r")
	for _, name := range signalMembers {
		rest, ok := bytes.CutPrefix(p, []byte(`"`+name+`"`))
		if !ok {
			continue
		}
		rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, " \t\r"), []byte(":"))
		return ok && bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r"), []byte("["))
	}
	return false
}

// Converter turns OTLP/JSON lines into ledger records. Set Mapping (usually
// DefaultMapping, perhaps with Apply) before the first Convert; the zero
// Mapping selects no span. A Converter keeps scratch space between calls and
// is not safe for concurrent use.
type Converter struct {
	Mapping Mapping

	// Counters over the lines whose spans were read (all but those that
	// fail as a whole): every span seen, and those skipped for want of the
	// Type attribute. The others converted, or failed (see SpanErrors).
	Spans, Skipped int

	plain   plainDecoder
	req     request
	stdOnly bool // for tests: decode every line with json.Unmarshal
	dec     audit.Decoder
	recs    []audit.Record
	buf     []byte
	pending []pending
	members []ndjson.Member

	// The names lookups ask for, and the lists of the span being converted.
	names                           names
	spanAttrs, scopeAttrs, resAttrs attrList
	noIndex                         bool // for tests: scan every list, as if all were short
}

// pending is one ledger member being built: its value is buf[start:end].
type pending struct {
	field      string
	attr       string // the attribute it was read from, if any
	from       string // otherwise the part of the span it was read from
	start, end int
	kind       ndjson.Kind
	escaped    bool
}

// SpanError says why a selected span does not make a valid record.
type SpanError struct {
	Resource, Scope, Span int    // indexes in resourceSpans, scopeSpans and spans
	Legacy                bool   // Scope indexes instrumentationLibrarySpans
	SpanID                string // as in the input; "" if the span has none
	// Source is what the faulty field was read from: `attribute "..."`,
	// "spanId", "endTimeUnixNano" or "status"; "" when the fault is the
	// span's own.
	Source string
	Err    error // an *audit.FieldError naming the ledger field, or another error
}

func (e *SpanError) Error() string {
	scopes := "scopeSpans"
	if e.Legacy {
		scopes = "instrumentationLibrarySpans"
	}
	where := fmt.Sprintf("resourceSpans[%d].%s[%d].spans[%d]", e.Resource, scopes, e.Scope, e.Span)
	if e.SpanID != "" {
		// Clipped: a line's error names several spans, whose ids may be
		// anything as long as the line.
		where = fmt.Sprintf("span %q (%s)", clipString(e.SpanID), where)
	}
	var fe *audit.FieldError
	switch {
	case errors.As(e.Err, &fe) && fe.Field != "" && e.Source != "":
		return fmt.Sprintf("%s: field %q (from %s): %s", where, fe.Field, e.Source, fe.Msg)
	case e.Source != "":
		return fmt.Sprintf("%s: %s: %v", where, e.Source, e.Err)
	}
	return fmt.Sprintf("%s: %v", where, e.Err)
}

func (e *SpanError) Unwrap() error { return e.Err }

// SpanErrors is the error of a line some of whose selected spans fail: the
// first few of them, and how many there are, so that a line of thousands
// of bad spans does not make a message of megabytes.
type SpanErrors struct {
	Errs  []*SpanError // the first maxSpanErrors, in the order of the line
	Count int          // every span that failed
}

// maxSpanErrors is how many failing spans a line's error names, as reasons
// elsewhere name at most three values of a list and count the rest.
const maxSpanErrors = 3

func (e *SpanErrors) add(se *SpanError) {
	e.Count++
	if len(e.Errs) < maxSpanErrors {
		e.Errs = append(e.Errs, se)
	}
}

func (e *SpanErrors) Error() string {
	if e.Count == 1 {
		return e.Errs[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d invalid spans: ", e.Count)
	for i, se := range e.Errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(se.Error())
	}
	if more := e.Count - len(e.Errs); more > 0 {
		fmt.Fprintf(&b, "; and %d more", more)
	}
	return b.String()
}

func (e *SpanErrors) Unwrap() []error {
	errs := make([]error, len(e.Errs))
	for i, se := range e.Errs {
		errs[i] = se
	}
	return errs
}

// Convert turns one line, a TracesData or ExportTraceServiceRequest object,
// into records: one per span that carries the Type attribute, in the order
// of the line, each validated by audit.Decoder.Decode and positioned at pos.
//
// A selected span that fails does not stop the others: a line is a batch
// of spans of unrelated operations, and dropping them all for one bad span
// could hide, under --skip-invalid, a duplicate effect of another
// operation. Convert emits the records of the spans that convert and then
// returns a *SpanErrors naming those that failed: the line is still an
// invalid line. A line that is not valid UTF-8, is not OTLP/JSON of the
// expected shape, or is no export at all (see signalMembers) is an error
// that emits nothing. An export of metrics or logs holds no span: it
// converts to no record, without error. Spans without the Type attribute
// are skipped and counted, whatever else they hold.
//
// emit is called only after the whole line has converted. Like a record
// from audit.Decoder, the record it receives, strings included, is valid
// only until the next Convert (the strings alias the Converter's buffers):
// Auditor.Add copies what it keeps, and anyone else must Clone it.
func (c *Converter) Convert(line []byte, pos audit.Position, emit func(*audit.Record)) error {
	if !utf8.Valid(line) {
		return errors.New("OTLP/JSON: invalid UTF-8")
	}
	// The request is the Converter's, as a local one would escape to the
	// heap on every line; it is cleared after, not to hold on to the line.
	req := &c.req
	defer func() { *req = request{} }()
	if c.stdOnly || !c.plain.decode(line, req) {
		*req = request{}
		if err := json.Unmarshal(line, req); err != nil {
			return jsonError(err)
		}
	}
	rss := req.ResourceSpans
	other, err := otherSignals(req)
	switch {
	case err != nil:
		return err
	case rss == nil && !other && !hasSpansMember(line):
		return errors.New("not an OTLP export: no resourceSpans, resourceMetrics or resourceLogs member")
	}

	// Records of this line alias buf and the decoder's scratch space, which
	// only grow until the next line.
	c.recs = c.recs[:0]
	c.buf = c.buf[:0]
	c.dec.Reset()
	c.names.update(&c.Mapping)
	index := !c.noIndex
	spans, skipped := 0, 0
	var bad *SpanErrors // made at the first: most lines have none
	for ri := range rss {
		rs := &rss[ri]
		c.resAttrs.reset(rs.Resource.Attributes, &c.names, index)
		scopes, legacy := rs.ScopeSpans, false
		if len(scopes) == 0 && len(rs.LegacyScopeSpans) > 0 {
			scopes, legacy = rs.LegacyScopeSpans, true
		}
		for si := range scopes {
			ss := &scopes[si]
			scope := &ss.Scope
			if legacy {
				scope = &ss.LegacyScope
			}
			c.scopeAttrs.reset(scope.Attributes, &c.names, index)
			for pi := range ss.Spans {
				spans++
				rec, ok, err := c.convertSpan(&ss.Spans[pi], pos)
				switch {
				case err != nil:
					err.Resource, err.Scope, err.Span, err.Legacy = ri, si, pi, legacy
					err.SpanID = strings.Clone(ss.Spans[pi].SpanID) // it may alias the line
					if bad == nil {
						bad = &SpanErrors{}
					}
					bad.add(err)
				case !ok:
					skipped++
				default:
					c.recs = append(c.recs, rec)
				}
			}
		}
	}
	c.dropLists()
	c.Spans += spans
	c.Skipped += skipped
	for i := range c.recs {
		emit(&c.recs[i])
	}
	if bad != nil {
		return bad
	}
	return nil
}

// otherSignals checks the exports of other signals a line holds beside or
// instead of spans, each an array or null, and reports whether it holds
// any.
func otherSignals(req *request) (bool, error) {
	held := false
	for _, other := range [...]struct {
		name string
		raw  json.RawMessage
	}{{"resourceMetrics", req.ResourceMetrics}, {"resourceLogs", req.ResourceLogs}} {
		if len(other.raw) == 0 {
			continue
		}
		if other.raw[0] != '[' && string(other.raw) != "null" {
			return false, fmt.Errorf("OTLP/JSON: %s: got %s, want an array", other.name, clip(other.raw))
		}
		held = true
	}
	return held, nil
}

// hasSpansMember reports whether a line whose resourceSpans decoded as
// nil has the member (null): a trace export of no span, not a line of no
// export at all. Only those rare lines pay for parsing the line again.
func hasSpansMember(line []byte) bool {
	var top map[string]json.RawMessage
	return json.Unmarshal(line, &top) == nil && top["resourceSpans"] != nil
}

// dropLists lets go of the line's attribute lists, which a large line's
// would otherwise keep in memory until the next.
func (c *Converter) dropLists() {
	c.spanAttrs.kvs, c.scopeAttrs.kvs, c.resAttrs.kvs = nil, nil, nil
}

// convertSpan builds and decodes the record of one span, whose scope's and
// resource's attributes are in c.scopeAttrs and c.resAttrs; ok is false if
// the span is not selected. The error's position fields are left to the
// caller.
func (c *Converter) convertSpan(sp *span, pos audit.Position) (audit.Record, bool, *SpanError) {
	lists := levels{&c.spanAttrs, &c.scopeAttrs, &c.resAttrs}
	n := &c.names

	// One scan of the span's list tells whether it is selected; only then
	// is it worth indexing for the other lookups.
	c.spanAttrs.reset(sp.Attributes, n, false)
	typ, err := lists.lookup(n.field[0], n.attr[0]) // ledgerFields[0] is "type"
	if err != nil {
		return audit.Record{}, false, &SpanError{Source: attrSource(n.attr[0]), Err: &audit.FieldError{Field: "type", Msg: err.Error()}}
	}
	if typ == nil {
		return audit.Record{}, false, nil
	}
	if !c.noIndex {
		c.spanAttrs.index(n)
	}
	spanID, err := normalizeID(sp.SpanID)
	if err != nil {
		return audit.Record{}, false, &SpanError{Source: "spanId", Err: err}
	}

	c.pending = c.pending[:0]
	var recType string // the type as given, if a string: it decides the defaults
	for fi, field := range ledgerFields {
		attr := n.attr[fi]
		v, err := lists.lookup(n.field[fi], attr)
		if err != nil {
			return audit.Record{}, false, &SpanError{Source: attrSource(attr), Err: &audit.FieldError{Field: field, Msg: err.Error()}}
		}
		if v != nil && defaulted(field) && string(v.StringValue) == `""` {
			// SPEC counts "" as absent, so the span's own default applies,
			// as for an empty AnyValue; Decode would only drop the "".
			// (lookup has checked that v holds one variant.)
			v = nil
		}
		if v != nil {
			s, isString, err := c.add(field, attr, v)
			if err != nil {
				return audit.Record{}, false, &SpanError{Source: attrSource(attr), Err: &audit.FieldError{Field: field, Msg: err.Error()}}
			}
			if field == "type" && isString {
				recType = s
			}
			continue
		}
		// The attribute is absent: defaults from the span itself.
		switch {
		case field == "attemptId" && recType == "attempt" && spanID != "":
			c.addString(pending{field: field, from: "spanId"}, spanID)
		case field == "observedAt":
			t, ok, err := unixNano(sp.EndTimeUnixNano)
			if err != nil {
				return audit.Record{}, false, &SpanError{Source: "endTimeUnixNano", Err: &audit.FieldError{Field: field, Msg: err.Error()}}
			}
			if ok {
				start := len(c.buf)
				c.buf = append(t.AppendFormat(append(c.buf, '"'), "2006-01-02T15:04:05.000000000Z"), '"')
				c.pending = append(c.pending, pending{field: field, from: "endTimeUnixNano", start: start, end: len(c.buf), kind: ndjson.String})
			}
		case field == "result" && recType == "attempt":
			result, err := statusResult(sp, &lists, n.errorType)
			if err != nil {
				return audit.Record{}, false, &SpanError{Source: "status", Err: &audit.FieldError{Field: field, Msg: err.Error()}}
			}
			if result != "" {
				c.addString(pending{field: field, from: "status"}, result)
			}
		}
	}

	c.members = c.members[:0]
	for _, p := range c.pending {
		c.members = append(c.members, ndjson.Member{
			Name: fieldName(p.field), Value: c.buf[p.start:p.end], Kind: p.kind, Escaped: p.escaped,
		})
	}
	rec, err := c.dec.Decode(c.members, pos)
	if err != nil {
		se := &SpanError{Err: err}
		var fe *audit.FieldError
		if errors.As(err, &fe) {
			se.Source = c.sourceOf(fe.Field)
		}
		return audit.Record{}, false, se
	}
	return rec, true, nil
}

// sourceOf names where a ledger field came from, for an error: the source of
// its member, or the attribute it would have been read from.
func (c *Converter) sourceOf(field string) string {
	for _, p := range c.pending {
		if p.field == field {
			if p.attr != "" {
				return attrSource(p.attr)
			}
			return p.from
		}
	}
	if a := c.Mapping.attr(field); a != nil && *a != "" {
		return attrSource(*a)
	}
	return ""
}

// defaulted reports whether a ledger field has a default from the span
// itself, which applies when its attribute is absent.
func defaulted(field string) bool {
	return field == "attemptId" || field == "observedAt" || field == "result"
}

func attrSource(name string) string { return fmt.Sprintf("attribute %q", name) }

// add appends the ledger member for an attribute value. String fields take
// a stringValue, or an intValue as its decimal text (ids are sometimes
// integers); attempt takes an intValue as a number, and a stringValue as a
// string for Decode to refuse. Any other variant is an error. It returns the
// string value when the attribute is a stringValue.
func (c *Converter) add(field, attr string, v *anyValue) (string, bool, error) {
	kind, _ := v.variant()
	switch kind {
	case "stringValue":
		s, ok := unquote(v.StringValue)
		if !ok {
			return "", false, fmt.Errorf("stringValue %s is not a string", clip(v.StringValue))
		}
		c.addString(pending{field: field, attr: attr}, s)
		return s, true, nil
	case "intValue":
		n, err := parseInt(v.IntValue)
		if err != nil {
			return "", false, err
		}
		if field == "attempt" {
			start := len(c.buf)
			c.buf = strconv.AppendInt(c.buf, n, 10)
			c.pending = append(c.pending, pending{field: field, attr: attr, start: start, end: len(c.buf), kind: ndjson.Number})
			return "", false, nil
		}
		c.addString(pending{field: field, attr: attr}, strconv.FormatInt(n, 10))
		return "", false, nil
	}
	if field == "attempt" {
		return "", false, fmt.Errorf("%s %s; want an intValue", kind, clip(rawOf(v, kind)))
	}
	return "", false, fmt.Errorf("%s %s; want a stringValue (or an intValue)", kind, clip(rawOf(v, kind)))
}

func rawOf(v *anyValue, kind string) json.RawMessage {
	switch kind {
	case "boolValue":
		return v.BoolValue
	case "doubleValue":
		return v.DoubleValue
	case "arrayValue":
		return v.ArrayValue
	case "kvlistValue":
		return v.KvlistValue
	case "bytesValue":
		return v.BytesValue
	}
	return nil
}

// clip shortens raw JSON for a message. The only control characters valid
// JSON holds raw are white space between tokens; they become spaces, so
// that a message cannot move the cursor.
func clip(raw []byte) string {
	const max = 32
	more := ""
	if len(raw) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		raw, more = raw[:cut], "…"
	}
	b := []byte(string(raw))
	for i, c := range b {
		if c < 0x20 {
			b[i] = ' '
		}
	}
	return string(b) + more
}

// addString appends p, a string member whose value is s, JSON-quoted.
func (c *Converter) addString(p pending, s string) {
	p.start = len(c.buf)
	c.buf, p.escaped = appendQuoted(c.buf, s)
	p.end, p.kind = len(c.buf), ndjson.String
	c.pending = append(c.pending, p)
}

// appendQuoted appends s, valid UTF-8, as a JSON string literal, and reports
// whether the literal holds an escape.
func appendQuoted(dst []byte, s string) ([]byte, bool) {
	const hex = "0123456789abcdef"
	escaped := false
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
			escaped = true
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			escaped = true
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"'), escaped
}

// unquote decodes raw, a JSON value, as a string, as json.Unmarshal would,
// and reports whether it is one. A string literal without escapes, in a
// line that is valid UTF-8, holds just the bytes between its quotes: the
// string returned then aliases raw, so it is for use within Convert.
func unquote(raw json.RawMessage) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		s := raw[1 : len(raw)-1]
		return unsafe.String(unsafe.SliceData(s), len(s)), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// parseInt reads an intValue, given as a JSON string or number: a 64-bit
// integer in decimal.
func parseInt(raw json.RawMessage) (int64, error) {
	text, ok := string(raw), true
	if raw[0] == '"' {
		if text, ok = unquote(raw); !ok {
			return 0, fmt.Errorf("intValue %s is not a string or number", clip(raw))
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("intValue %s is not a 64-bit integer", clip(raw))
	}
	return n, nil
}

// unixNano reads a time in nanoseconds since the epoch (a fixed64, as a
// JSON string or number). Absent, null and 0 mean no time.
func unixNano(raw json.RawMessage) (time.Time, bool, error) {
	if !set(raw) {
		return time.Time{}, false, nil
	}
	text, ok := string(raw), true
	if raw[0] == '"' {
		if text, ok = unquote(raw); !ok {
			return time.Time{}, false, fmt.Errorf("%s is not a string or number", clip(raw))
		}
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("%s is not a time in nanoseconds", clip(raw))
	}
	if n > math.MaxInt64 {
		return time.Time{}, false, fmt.Errorf("%s is past the year 2262", clip(raw))
	}
	if n == 0 {
		return time.Time{}, false, nil
	}
	return time.Unix(0, int64(n)).UTC(), true, nil
}

// Status codes of the OTLP Status message.
const (
	statusUnset = 0
	statusOK    = 1
	statusError = 2
)

// statusCode reads a status code, given as its number or its enum name.
func statusCode(raw json.RawMessage) (int, error) {
	if !set(raw) {
		return statusUnset, nil
	}
	switch string(raw) {
	case "0", `"STATUS_CODE_UNSET"`:
		return statusUnset, nil
	case "1", `"STATUS_CODE_OK"`:
		return statusOK, nil
	case "2", `"STATUS_CODE_ERROR"`:
		return statusError, nil
	}
	return 0, fmt.Errorf("code %s; want 0, 1, 2 or STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR", clip(raw))
}

// statusResult derives an attempt's result from the span status.
// errorType is the slot of the error.type attribute.
func statusResult(sp *span, lists *levels, errorType int) (string, error) {
	code, err := statusCode(sp.Status.Code)
	if err != nil {
		return "", err
	}
	switch code {
	case statusOK:
		return "success", nil
	case statusError:
		if timeoutLike(sp.Status.Message) {
			return "timeout", nil
		}
		// error.type is advisory here: a value of another type or a
		// duplicated key just does not say "timeout".
		if v, err := lists.lookup(errorType, "error.type"); err == nil && v != nil && set(v.StringValue) {
			if s, ok := unquote(v.StringValue); ok && timeoutLike(s) {
				return "timeout", nil
			}
		}
		return "error", nil
	}
	return "", nil
}

func timeoutLike(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "timeout") || strings.Contains(s, "deadline")
}

// normalizeID checks a span id: empty, or 16 hex digits in either case. It
// returns the id in lower case, so exports that differ only in case name the
// same attempt: id itself when it is, which may alias the line. An id of
// zeros is "": trace.proto calls it invalid, no id, and as an attempt id it
// would make one attempt of every span that has it.
func normalizeID(id string) (string, error) {
	if id == "" || id == "0000000000000000" {
		return "", nil
	}
	if len(id) != 16 {
		return "", fmt.Errorf("%q is not 16 hex digits", clipString(id))
	}
	if isLowerHex(id) {
		return id, nil // as most are: no copy
	}
	b := []byte(id)
	for i, ch := range b {
		switch {
		case '0' <= ch && ch <= '9', 'a' <= ch && ch <= 'f':
		case 'A' <= ch && ch <= 'F':
			b[i] = ch + ('a' - 'A')
		default:
			return "", fmt.Errorf("%q is not 16 hex digits", id)
		}
	}
	return string(b), nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func clipString(s string) string { return clip([]byte(s)) }

// ledgerFields are the ledger fields in SPEC's order, with their member
// names; convertSpan reads the first, "type", before the others.
var ledgerFields = audit.Fields()

var ledgerNames = func() (b [len(ledgerFields)][]byte) {
	for i, f := range ledgerFields {
		b[i] = []byte(f)
	}
	return b
}()

// fieldName returns the member name of a ledger field.
func fieldName(field string) []byte {
	for i, f := range ledgerFields {
		if f == field {
			return ledgerNames[i]
		}
	}
	return []byte(field)
}

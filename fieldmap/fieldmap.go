// Package fieldmap maps NDJSON lines of other shapes onto ledger fields, so
// that logs which carry the evidence under other names ("op_id",
// "provider.object_id") can be audited without rewriting them first.
//
// A Map turns a parsed line's top-level members into the members that
// audit.Decoder.Decode expects. It never validates a value: types, null, ""
// and observedAt stay Decode's business, so one set of rules applies to
// every input shape.
//
// # Paths
//
// A path names a value inside the line: its segments, separated by dots,
// are member names descending into nested objects ("provider.object_id" is
// the member object_id of the object provider). A member name that itself
// holds a dot or a backslash is written with a backslash before it: `a\.b`
// is the one member "a.b", `a\\b` the member "a\b". No other escape exists,
// and no segment is empty, so a path cannot name the member "". Names are
// compared after JSON unescaping, exactly and case-sensitively: the path
// `object_id` finds the member written "object\u005fid". Paths do not index
// arrays.
//
// A path that leads nowhere — a missing member, or a step into a value that
// is not an object — is an absent field, like a member missing from a
// ledger record.
package fieldmap

import (
	"fmt"
	"strings"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

// fieldNames are the ledger fields a mapping may target, in SPEC's order.
var fieldNames = audit.Fields()

const numFields = audit.NumFields

// fieldBytes are the member names Members gives mapped fields.
var fieldBytes = func() (b [numFields][]byte) {
	for i, f := range fieldNames {
		b[i] = []byte(f)
	}
	return b
}()

// fieldIndex returns the index of the ledger field name, or -1.
func fieldIndex(name string) int {
	for i, f := range fieldNames {
		if f == name {
			return i
		}
	}
	return -1
}

// fieldIndexBytes is fieldIndex for a member name, without allocating.
func fieldIndexBytes(name []byte) int {
	for i, f := range fieldNames {
		if string(name) == f {
			return i
		}
	}
	return -1
}

// path is one field's mapping: the text as given and its decoded segments.
type path struct {
	text string
	segs []string
}

// Map maps ledger fields to paths in the source lines. A nil or empty Map
// maps nothing: every field keeps its own top-level name. A Map is not safe
// for concurrent use by Members (it keeps scratch space): give each
// goroutine its own Clone.
type Map struct {
	paths [numFields]path

	// Scratch for Members.
	out []ndjson.Member
	p   ndjson.Parser
}

// Error is a mistake in a mapping, from a --map flag or a mapping file.
type Error struct {
	File   string // the name given to Load; "" for a --map flag
	Line   int    // 1-based, in File; 0 for a flag
	Column int    // 1-based, in File; 0 when not known
	Spec   string // the FIELD=PATH given to Parse; "" for a file
	Msg    string // what is wrong, without the position
}

// Error renders the error as FILE:LINE: message, or --map "SPEC": message.
func (e *Error) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("--map %q: %s", e.Spec, e.Msg)
}

// unknownField is the message for a name that is not a ledger field.
func unknownField(name string) string {
	return fmt.Sprintf("unknown ledger field %q; valid fields: %s", name, strings.Join(fieldNames[:], ", "))
}

// Parse builds a Map from FIELD=PATH specifications, as given by repeated
// --map flags. FIELD must be one of Fields, exactly; PATH is a path as the
// package documentation describes, not empty. Mapping one field twice is an
// error, even to the same path: one of the two flags is a mistake. The error,
// if any, is an *Error.
func Parse(specs []string) (*Map, error) {
	m := &Map{}
	given := [numFields]string{}
	for _, spec := range specs {
		field, p, ok := strings.Cut(spec, "=")
		if !ok {
			return nil, &Error{Spec: spec, Msg: "want FIELD=PATH"}
		}
		i := fieldIndex(field)
		if i < 0 {
			return nil, &Error{Spec: spec, Msg: unknownField(field)}
		}
		if given[i] != "" {
			return nil, &Error{Spec: spec, Msg: fmt.Sprintf("%s is mapped twice (also by %q)", field, given[i])}
		}
		segs, err := parsePath(p)
		if err != nil {
			return nil, &Error{Spec: spec, Msg: err.Error()}
		}
		given[i] = spec
		m.paths[i] = path{text: p, segs: segs}
	}
	return m, nil
}

// parsePath splits a path into its decoded segments.
func parsePath(s string) ([]string, error) {
	if s == "" {
		return nil, fmt.Errorf("empty path")
	}
	var segs []string
	var cur strings.Builder
	empty := true // cur holds no character yet
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("path %q ends with a lone backslash; write \\\\ for a backslash", s)
			}
			i++
			if s[i] != '.' && s[i] != '\\' {
				return nil, fmt.Errorf("path %q: unknown escape \\%c; only \\. and \\\\ are escapes", s, s[i])
			}
			cur.WriteByte(s[i])
			empty = false
		case '.':
			if empty {
				return nil, fmt.Errorf("path %q has an empty segment", s)
			}
			segs = append(segs, cur.String())
			cur.Reset()
			empty = true
		default:
			cur.WriteByte(c)
			empty = false
		}
	}
	if empty {
		return nil, fmt.Errorf("path %q has an empty segment", s)
	}
	return append(segs, cur.String()), nil
}

// Merge returns a new Map holding m's mappings overridden, field by field,
// by other's: m from a file and other from flags, the flags win. Either may
// be nil.
func (m *Map) Merge(other *Map) *Map {
	out := &Map{}
	if m != nil {
		out.paths = m.paths
	}
	if other != nil {
		for i, p := range other.paths {
			if p.segs != nil {
				out.paths[i] = p
			}
		}
	}
	return out
}

// Clone returns a Map with the same mappings and scratch space of its own.
func (m *Map) Clone() *Map { return m.Merge(nil) }

// Len is the number of mapped fields.
func (m *Map) Len() int {
	if m == nil {
		return 0
	}
	n := 0
	for _, p := range m.paths {
		if p.segs != nil {
			n++
		}
	}
	return n
}

// Path returns the decoded segments of the path field is mapped to, and
// whether it is mapped. Consumers whose sources have flat names with dots in
// them (OpenTelemetry attribute keys) join the segments with "." again, so
// `gen_ai.tool.name` and `gen_ai\.tool\.name` name the same key there. The
// slice must not be modified.
func (m *Map) Path(field string) ([]string, bool) {
	i := fieldIndex(field)
	if m == nil || i < 0 || m.paths[i].segs == nil {
		return nil, false
	}
	return m.paths[i].segs, true
}

// Source returns the path field is mapped to as the mapping wrote it, and
// whether it is mapped: what an error about the field names, since the
// line has no member of the field's own name.
func (m *Map) Source(field string) (string, bool) {
	i := fieldIndex(field)
	if m == nil || i < 0 || m.paths[i].segs == nil {
		return "", false
	}
	return m.paths[i].text, true
}

// String lists the mappings as FIELD=PATH, comma-separated, in Fields order.
func (m *Map) String() string {
	if m == nil {
		return ""
	}
	var parts []string
	for i, p := range m.paths {
		if p.segs != nil {
			parts = append(parts, fieldNames[i]+"="+p.text)
		}
	}
	return strings.Join(parts, ",")
}

// Members turns one parsed line's top-level members into the ledger members
// Decode expects. A field that is not mapped keeps its own top-level member
// (unknown members are dropped: Decode would ignore them); a mapped field
// takes the value its path finds, under the field's name, or is absent if
// the path finds nothing. A top-level member named after a mapped field is
// not used for that field: "operationId" in the line does not compete with
// operationId=op_id.
//
// With a nil or empty Map the members are returned as they are. Otherwise
// the result lists the unmapped fields in line order, then the mapped ones in
// Fields order, and aliases m's scratch space, members' values and the
// package's names: it is valid until the next call and must not be
// modified.
//
// members must come from ndjson.Parser.Parse (nested objects are parsed
// again to follow paths); an error is returned only if a nested object does
// not parse, which cannot happen to a line the Parser accepted.
func (m *Map) Members(members []ndjson.Member) ([]ndjson.Member, error) {
	if m.Len() == 0 {
		return members, nil
	}
	out := m.out[:0]
	for _, mem := range members {
		if i := fieldIndexBytes(mem.Name); i >= 0 && m.paths[i].segs == nil {
			out = append(out, mem)
		}
	}
	for i := range m.paths {
		segs := m.paths[i].segs
		if segs == nil {
			continue
		}
		v, ok, err := m.lookup(members, segs)
		if err != nil {
			m.out = out
			return nil, fmt.Errorf("field %s (path %q): %w", fieldNames[i], m.paths[i].text, err)
		}
		if ok {
			v.Name = fieldBytes[i]
			out = append(out, v)
		}
	}
	m.out = out
	return out, nil
}

// lookup follows segs from the top-level members. The member it returns has
// the found value (aliasing the line) and the name of the last segment.
func (m *Map) lookup(members []ndjson.Member, segs []string) (ndjson.Member, bool, error) {
	var found ndjson.Member
	for k, seg := range segs {
		if k > 0 {
			if found.Kind != ndjson.Object {
				return ndjson.Member{}, false, nil
			}
			var err error
			if members, err = m.p.Parse(found.Value); err != nil {
				return ndjson.Member{}, false, fmt.Errorf("at %q: %w", seg, err)
			}
		}
		ok := false
		for _, mem := range members {
			if string(mem.Name) == seg {
				found, ok = mem, true
				break
			}
		}
		if !ok {
			return ndjson.Member{}, false, nil
		}
	}
	// The name aliases the nested parse's scratch space; the caller
	// replaces it.
	found.Name = nil
	return found, true, nil
}

package policy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/effectaudit/effectaudit/yamldoc"
	"github.com/goccy/go-yaml/ast"
)

// maxNesting bounds the nesting yamldoc.Body lets through; a policy needs
// three levels.
const maxNesting = 32

// Parse reads a policy file. name is the file name that errors carry; data is
// the whole file. A leading UTF-8 byte-order mark is ignored. The error, if
// any, is an *Error.
func Parse(name string, data []byte) (*Policy, error) {
	d := &decoder{name: name}
	p, e := d.parse(data)
	if e != nil {
		// Returned only when non-nil: a nil *Error in an error interface
		// would not compare equal to nil.
		return nil, e
	}
	return p, nil
}

// pos is a place in the policy file.
type pos = yamldoc.Pos

// entry is one result name and where the file lists it.
type entry struct {
	value string
	at    pos
}

// resultList is retry.retryable or retry.final as the file gives it.
type resultList struct {
	path    string
	given   bool
	entries []entry
}

type decoder struct {
	name string
}

func (d *decoder) errorf(at pos, format string, args ...any) *Error {
	return &Error{File: d.name, Line: at.Line, Column: at.Col, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) parse(data []byte) (*Policy, *Error) {
	body, ye := yamldoc.Body(data, maxNesting, "policy file")
	if ye != nil {
		return nil, d.errorf(ye.Pos, "%s", ye.Msg)
	}
	if body == nil {
		return nil, d.errorf(pos{Line: 1}, "empty policy file (write {} for the built-in default)")
	}

	p := Default()
	retryable := resultList{path: "retry.retryable"}
	final := resultList{path: "retry.final"}
	top, e := d.mapping(body, "", pos{}, "")
	if e != nil {
		return nil, e
	}
	for _, kv := range top {
		var key string
		if key, e = d.key(kv, "", "retry", "keyRetention"); e != nil {
			return nil, e
		}
		switch key {
		case "retry":
			e = d.retry(kv, &retryable, &final)
		case "keyRetention":
			e = d.keyRetention(kv, p)
		}
		if e != nil {
			return nil, e
		}
	}
	if e := d.conflict(&retryable, &final, p); e != nil {
		return nil, e
	}
	if retryable.given {
		p.Retryable = values(retryable.entries)
	}
	if final.given {
		p.Final = values(final.entries)
	}
	return p, nil
}

// prefix puts a key path in front of a message; the top level has none.
func prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

// unsupported rejects the YAML features a policy file does not use, wherever
// they appear, before anything looks at the node's value.
func (d *decoder) unsupported(n ast.Node, path string) *Error {
	if what := yamldoc.Unsupported(n); what != "" {
		return d.errorf(yamldoc.NodePos(n), "%s%s are not supported in a policy file", prefix(path), what)
	}
	return nil
}

// scalarText is the text of a plain or quoted scalar: the decoded string, or
// for a number or boolean the text as written, since results and scopes are
// names, not quantities.
func scalarText(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.StringNode:
		return n.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		if tk := n.GetToken(); tk != nil {
			return tk.Value, true
		}
	}
	return "", false
}

// mapping returns the entries of n, the value of path. keyAt is where path's
// key is, for a missing value; ifNull says what to write instead.
func (d *decoder) mapping(n ast.Node, path string, keyAt pos, ifNull string) ([]*ast.MappingValueNode, *Error) {
	if e := d.unsupported(n, path); e != nil {
		return nil, e
	}
	if entries, ok := yamldoc.Entries(n); ok {
		return entries, nil
	}
	switch n.(type) {
	case *ast.NullNode:
		if path != "" {
			return nil, d.errorf(keyAt, "%sno value (%s)", prefix(path), ifNull)
		}
	}
	if path == "" {
		return nil, d.errorf(yamldoc.NodePos(n), "expected a mapping with keys retry and keyRetention, got %s", yamldoc.Describe(n))
	}
	return nil, d.errorf(yamldoc.NodePos(n), "%sexpected a mapping, got %s", prefix(path), yamldoc.Describe(n))
}

// key returns kv's key if it is one of allowed.
func (d *decoder) key(kv *ast.MappingValueNode, path string, allowed ...string) (string, *Error) {
	if e := d.unsupported(kv.Key, path); e != nil {
		return "", e
	}
	name, ok := scalarText(kv.Key)
	if !ok {
		return "", d.errorf(yamldoc.NodePos(kv.Key), "%sexpected a key, got %s", prefix(path), yamldoc.Describe(kv.Key))
	}
	for _, a := range allowed {
		if name == a {
			return name, nil
		}
	}
	return "", d.errorf(yamldoc.NodePos(kv.Key), "%sunknown key %q (expected %s)", prefix(path), name, strings.Join(allowed, " or "))
}

func (d *decoder) retry(kv *ast.MappingValueNode, retryable, final *resultList) *Error {
	entries, e := d.mapping(kv.Value, "retry", yamldoc.NodePos(kv.Key), "remove the key to use the default")
	if e != nil {
		return e
	}
	for _, kv := range entries {
		key, e := d.key(kv, "retry", "retryable", "final")
		if e != nil {
			return e
		}
		l := retryable
		if key == "final" {
			l = final
		}
		if e := d.results(kv, l); e != nil {
			return e
		}
	}
	return nil
}

func (d *decoder) results(kv *ast.MappingValueNode, l *resultList) *Error {
	v := kv.Value
	if e := d.unsupported(v, l.path); e != nil {
		return e
	}
	seq, ok := v.(*ast.SequenceNode)
	if !ok {
		if _, null := v.(*ast.NullNode); null {
			return d.errorf(yamldoc.NodePos(kv.Key), "%s: no value (write [] for an empty list, or remove the key to use the default)", l.path)
		}
		return d.errorf(yamldoc.NodePos(v), "%s: expected a list of results, got %s", l.path, yamldoc.Describe(v))
	}
	l.given = true
	l.entries = make([]entry, 0, len(seq.Values))
	for _, item := range seq.Values {
		if e := d.unsupported(item, l.path); e != nil {
			return e
		}
		at := yamldoc.NodePos(item)
		s, ok := scalarText(item)
		if !ok {
			return d.errorf(at, "%s: expected a result name, got %s", l.path, yamldoc.Describe(item))
		}
		if s == "" {
			return d.errorf(at, "%s: empty result name", l.path)
		}
		for _, prev := range l.entries {
			if prev.value == s {
				return d.errorf(at, "%s: %q listed twice (first on line %d)", l.path, s, prev.at.Line)
			}
		}
		l.entries = append(l.entries, entry{value: s, at: at})
	}
	return nil
}

func (d *decoder) keyRetention(kv *ast.MappingValueNode, p *Policy) *Error {
	entries, e := d.mapping(kv.Value, "keyRetention", yamldoc.NodePos(kv.Key), "remove the key to use the default")
	if e != nil {
		return e
	}
	for _, kv := range entries {
		key, e := d.key(kv, "keyRetention", "default", "scopes")
		if e != nil {
			return e
		}
		switch key {
		case "default":
			p.DefaultRetention, e = d.duration(kv, "keyRetention.default")
		case "scopes":
			p.ScopeRetention, e = d.scopes(kv)
		}
		if e != nil {
			return e
		}
	}
	return nil
}

func (d *decoder) scopes(kv *ast.MappingValueNode) (map[string]time.Duration, *Error) {
	const path = "keyRetention.scopes"
	entries, e := d.mapping(kv.Value, path, yamldoc.NodePos(kv.Key), "write {} for no scopes, or remove the key to use the default")
	if e != nil {
		return nil, e
	}
	m := make(map[string]time.Duration, len(entries))
	first := make(map[string]int, len(entries))
	for _, kv := range entries {
		if e := d.unsupported(kv.Key, path); e != nil {
			return nil, e
		}
		at := yamldoc.NodePos(kv.Key)
		name, ok := scalarText(kv.Key)
		if !ok {
			return nil, d.errorf(at, "%s: expected a scope name, got %s", path, yamldoc.Describe(kv.Key))
		}
		if name == "" {
			return nil, d.errorf(at, "%s: empty scope name (the empty scope is the default scope: set keyRetention.default)", path)
		}
		// The YAML parser already rejects a repeated key; checking again
		// here keeps a later entry from silently replacing an earlier one
		// should the parser ever compare keys differently from scalarText.
		if line, dup := first[name]; dup {
			return nil, d.errorf(at, "%s: scope %q listed twice (first on line %d)", path, name, line)
		}
		first[name] = at.Line
		dur, e := d.duration(kv, path+"."+scopeLabel(name))
		if e != nil {
			return nil, e
		}
		m[name] = dur
	}
	return m, nil
}

// scopeLabel writes a scope name into a key path, quoted unless it is a
// plain word, so that dots and control characters stay unambiguous.
func scopeLabel(name string) string {
	for _, r := range name {
		if !(r == '-' || r == '_' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return strconv.Quote(name)
		}
	}
	return name
}

func (d *decoder) duration(kv *ast.MappingValueNode, path string) (time.Duration, *Error) {
	v := kv.Value
	if e := d.unsupported(v, path); e != nil {
		return 0, e
	}
	if _, null := v.(*ast.NullNode); null {
		return 0, d.errorf(yamldoc.NodePos(kv.Key), "%s: no value (write a duration such as 24h or 7d)", path)
	}
	at := yamldoc.NodePos(v)
	s, ok := scalarText(v)
	if !ok {
		return 0, d.errorf(at, "%s: expected a duration such as 24h or 7d, got %s", path, yamldoc.Describe(v))
	}
	dur, err := parseDuration(s)
	if err != nil {
		return 0, d.errorf(at, "%s: %v", path, err)
	}
	return dur, nil
}

// maxDays keeps a day count inside time.Duration's range (about 292 years).
const maxDays = (1<<63 - 1) / int64(24*time.Hour)

// parseDuration parses a retention window: a Go duration (90m, 24h, 1h30m),
// or a whole number of days with the suffix d, optionally followed by a Go
// duration (7d, 1d12h). Retention windows are usually stated in days, and Go
// durations have no day unit. The window must be positive.
func parseDuration(s string) (time.Duration, error) {
	invalid := fmt.Errorf("invalid duration %q (want e.g. 90m, 24h, 7d)", s)
	if strings.HasPrefix(s, "-") {
		if _, err := parseDuration(s[1:]); err == nil {
			return 0, fmt.Errorf("duration %q is negative; it must be positive", s)
		}
		return 0, invalid
	}
	var total time.Duration
	// No Go duration unit contains a d, so the first d ends the day count.
	days, rest, hasDays := strings.Cut(s, "d")
	if hasDays {
		if days == "" || strings.Trim(days, "0123456789") != "" {
			return 0, invalid
		}
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n > maxDays {
			return 0, invalid
		}
		total = time.Duration(n) * 24 * time.Hour
		// "7d+1h" and "7d-1h" would read as arithmetic; only a plain
		// duration may follow the days.
		if rest != "" && (rest[0] < '0' || rest[0] > '9') && rest[0] != '.' {
			return 0, invalid
		}
	} else {
		rest = s
	}
	if !hasDays || rest != "" {
		r, err := time.ParseDuration(rest)
		if err != nil || r < 0 || total > 1<<63-1-r {
			return 0, invalid
		}
		total += r
	}
	if total == 0 {
		return 0, fmt.Errorf("duration %q is zero; it must be positive", s)
	}
	return total, nil
}

// conflict rejects a result that is both retryable and final. A list the file
// does not give is the default's, and a conflict with it is an error as
// well, reported at the file's entry.
func (d *decoder) conflict(retryable, final *resultList, p *Policy) *Error {
	if !retryable.given && !final.given {
		return nil
	}
	var found *Error
	report := func(e *Error) {
		if found == nil || (pos{Line: e.Line, Col: e.Column}).Before(pos{Line: found.Line, Col: found.Column}) {
			found = e
		}
	}
	check := func(l *resultList, other *resultList, defaults []string) {
		for _, a := range l.entries {
			if other.given {
				for _, b := range other.entries {
					// Both lists are in the file: the later entry is the
					// one that conflicts; each pair is seen twice, once
					// from each side, and reported once.
					if a.value == b.value && b.at.Before(a.at) {
						report(d.errorf(a.at, "%s: %q is also listed in %s (line %d)", l.path, a.value, other.path, b.at.Line))
					}
				}
				continue
			}
			for _, v := range defaults {
				if a.value == v {
					report(d.errorf(a.at, "%s: %q is in the default %s; set %s as well to move it", l.path, a.value, other.path, other.path))
				}
			}
		}
	}
	check(retryable, final, p.Final)
	check(final, retryable, p.Retryable)
	return found
}

func values(entries []entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.value
	}
	return out
}

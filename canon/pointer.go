package canon

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CheckPointer reports whether ptr is a JSON Pointer a drop may name, with
// the error Canonicalize would give, so that a command can refuse it before
// reading its input.
func CheckPointer(ptr string) error {
	_, err := parsePointer(ptr)
	return err
}

// parsePointer splits an RFC 6901 JSON Pointer into unescaped reference
// tokens. "" names the whole document, which cannot be dropped, so it is
// rejected with the malformed ones.
func parsePointer(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, fmt.Errorf("%w %q: the empty pointer names the whole document, which cannot be dropped", ErrPointer, ptr)
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("%w %q: must start with '/'", ErrPointer, ptr)
	}
	if !utf8.ValidString(ptr) {
		return nil, fmt.Errorf("%w %q: invalid UTF-8", ErrPointer, ptr)
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 < len(t) && t[j+1] == '0' {
				b.WriteByte('~')
			} else if j+1 < len(t) && t[j+1] == '1' {
				b.WriteByte('/')
			} else {
				return nil, fmt.Errorf("%w %q: '~' must be followed by '0' or '1' (token %d)", ErrPointer, ptr, i+1)
			}
			j++
		}
		toks[i] = b.String()
	}
	return toks, nil
}

// markDropped marks the node that toks names in v, if there is one. A token
// that names nothing (a missing member, an index out of range or not in
// RFC 6901 array-index form, "-", or any token applied to a scalar) makes
// the whole pointer name nothing, which is not an error.
func markDropped(v *value, toks []string) {
	for _, t := range toks {
		switch v.kind {
		case kindObject:
			var next *value
			for i := range v.members {
				if v.members[i].name == t {
					next = &v.members[i].val
					break
				}
			}
			if next == nil {
				return
			}
			v = next
		case kindArray:
			i, ok := arrayIndex(t)
			if !ok || i >= len(v.elems) {
				return
			}
			v = &v.elems[i]
		default:
			return
		}
	}
	v.dropped = true
}

// arrayIndex parses an RFC 6901 array-index: "0" or a digit string without
// a leading zero.
func arrayIndex(t string) (int, bool) {
	if t == "" || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(t)
	return n, err == nil
}

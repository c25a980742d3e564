package audit

import (
	"strings"
	"unsafe"
)

// The per-operation state is the audit's memory: millions of operations
// live at once, most with one key, one hash and one effect. The types here
// keep the first value inline and spill the rest to a slice only when there
// is a rest, and keep string bytes in an arena so a stored string costs its
// bytes, with no allocation of its own.

// arena stores strings in large blocks. Strings handed out point into a
// block and stay valid for the arena's life; blocks are never moved.
type arena struct {
	cur []byte
}

const (
	arenaBlock = 256 << 10
	arenaLarge = arenaBlock / 8 // longer strings get an allocation of their own
)

// clone returns a copy of s that lives in the arena.
func (a *arena) clone(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > arenaLarge {
		return strings.Clone(s)
	}
	if cap(a.cur)-len(a.cur) < len(s) {
		a.cur = make([]byte, 0, arenaBlock)
	}
	start := len(a.cur)
	a.cur = append(a.cur, s...)
	b := a.cur[start:len(a.cur):len(a.cur)]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// indexAfter is how many values a set scans linearly before it builds a
// map: most sets hold one value, a few a handful, and a hot operation with
// thousands of attempts must not go quadratic.
const indexAfter = 16

// stringSet holds distinct strings in insertion order.
type stringSet struct {
	first string
	more  *moreStrings // the values after the first, when there are any
}

type moreStrings struct {
	items []string
	index map[string]int32 // position in items, built past indexAfter items
}

// add inserts v (copying it into ar) if it is new, and returns the stored
// copy and whether it was new.
func (s *stringSet) add(ar *arena, v string) (string, bool) {
	if s.first == "" {
		s.first = ar.clone(v)
		return s.first, true
	}
	if s.first == v {
		return s.first, false
	}
	if s.more == nil {
		s.more = &moreStrings{}
	}
	m := s.more
	if m.index != nil {
		if i, ok := m.index[v]; ok {
			return m.items[i], false
		}
	} else {
		for _, it := range m.items {
			if it == v {
				return it, false
			}
		}
	}
	c := ar.clone(v)
	m.items = append(m.items, c)
	switch {
	case m.index != nil:
		m.index[c] = int32(len(m.items) - 1)
	case len(m.items) > indexAfter:
		m.index = make(map[string]int32, 2*len(m.items))
		for i, it := range m.items {
			m.index[it] = int32(i)
		}
	}
	return c, true
}

func (s *stringSet) len() int {
	switch {
	case s.first == "":
		return 0
	case s.more == nil:
		return 1
	}
	return 1 + len(s.more.items)
}

// at returns the i-th value in insertion order.
func (s *stringSet) at(i int) string {
	if i == 0 {
		return s.first
	}
	return s.more.items[i-1]
}

// list returns the values in insertion order, never nil.
func (s *stringSet) list() []string { return s.appendTo(make([]string, 0, s.len())) }

// appendTo appends the values in insertion order to dst.
func (s *stringSet) appendTo(dst []string) []string {
	if s.first != "" {
		dst = append(dst, s.first)
	}
	if s.more != nil {
		dst = append(dst, s.more.items...)
	}
	return dst
}

// fingerprintSet holds distinct 64-bit fingerprints. Attempt ids are only
// ever counted, never printed, so the audit keeps an xxhash of each instead
// of its bytes; two ids of one operation would have to collide in 64 bits to
// be miscounted.
type fingerprintSet struct {
	n     uint32
	first uint64
	more  *moreFingerprints
}

type moreFingerprints struct {
	items []uint64
	index map[uint64]struct{} // built past indexAfter items
}

func (s *fingerprintSet) add(h uint64) bool {
	switch {
	case s.n == 0:
		s.first, s.n = h, 1
		return true
	case s.first == h:
		return false
	}
	if s.more == nil {
		s.more = &moreFingerprints{}
	}
	m := s.more
	if m.index != nil {
		if _, ok := m.index[h]; ok {
			return false
		}
		m.index[h] = struct{}{}
	} else {
		for _, it := range m.items {
			if it == h {
				return false
			}
		}
		if len(m.items) >= indexAfter {
			m.index = make(map[uint64]struct{}, 2*indexAfter)
			for _, it := range m.items {
				m.index[it] = struct{}{}
			}
			m.index[h] = struct{}{}
		}
	}
	m.items = append(m.items, h)
	s.n++
	return true
}

// distinct appends values to a list only once each; past indexAfter values
// it looks them up in a map rather than scan the list.
type distinct struct{ index map[string]struct{} }

func (d *distinct) append(list []string, v string) []string {
	if d.index != nil {
		if _, ok := d.index[v]; ok {
			return list
		}
		d.index[v] = struct{}{}
		return append(list, v)
	}
	for _, it := range list {
		if it == v {
			return list
		}
	}
	if len(list) == indexAfter {
		d.index = make(map[string]struct{}, 2*indexAfter)
		for _, it := range list {
			d.index[it] = struct{}{}
		}
		d.index[v] = struct{}{}
	}
	return append(list, v)
}

package audit

import "unsafe"

// The per-operation state is the audit's memory: millions of operations
// live at once, most with one key, one hash and one effect. The types here
// keep it free of Go pointers, so the garbage collector never scans it: a
// string is an sref into an arena of byte blocks, and a set keeps its first
// value inline and the rest, when there is a rest, in a side table of the
// store, named by index.

// sref locates a string in an arena: the block (20 bits), the length (24
// bits) and the offset in the block (20 bits). The zero sref is "".
type sref uint64

const (
	arenaBlock = 1 << 20           // bytes per block; offsets have 20 bits
	arenaLarge = arenaBlock / 8    // a longer string gets a block of its own
	srefLong   = 1<<24 - 1         // length marking a string as long as its block
	srefBlocks = 1 << 20           // blocks an arena can hold
	srefBlock  = 44                // shift of the block index
	srefLength = 20                // shift of the length
	srefOffset = 1<<srefLength - 1 // mask of the offset
)

// arena stores strings in large blocks that hold no pointers. Blocks are
// never moved, so strings read from them stay valid for the arena's life.
type arena struct {
	blocks [][]byte
}

// put copies s into the arena.
func (a *arena) put(s string) sref {
	if len(s) == 0 {
		return 0
	}
	if len(s) > arenaLarge {
		// A block of its own, exactly full, so the next string starts a
		// new block (what was left of the current one is given up).
		b := make([]byte, len(s), len(s))
		copy(b, s)
		a.blocks = append(a.blocks, b)
		return a.ref(len(a.blocks)-1, 0, len(s))
	}
	n := len(a.blocks)
	if n == 0 || cap(a.blocks[n-1])-len(a.blocks[n-1]) < len(s) {
		a.blocks = append(a.blocks, make([]byte, 0, arenaBlock))
		n++
	}
	cur := a.blocks[n-1]
	off := len(cur)
	a.blocks[n-1] = append(cur, s...)
	return a.ref(n-1, off, len(s))
}

func (a *arena) ref(block, off, n int) sref {
	if block >= srefBlocks {
		panic("audit: arena full") // 2^20 blocks of 1 MiB: a terabyte of strings
	}
	if n >= srefLong {
		n = srefLong
	}
	return sref(block)<<srefBlock | sref(n)<<srefLength | sref(off)
}

// str returns the string r locates; it aliases the arena.
func (a *arena) str(r sref) string {
	n := int(r >> srefLength & srefLong)
	if n == 0 {
		return ""
	}
	b := a.blocks[r>>srefBlock]
	if n == srefLong {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return unsafe.String(&b[r&srefOffset], n)
}

// indexAfter is how many values a set scans linearly before it builds a
// map: most sets hold one value, a few a handful, and a hot operation with
// thousands of attempts must not go quadratic.
const indexAfter = 16

// stringSet holds distinct strings in insertion order.
type stringSet struct {
	first sref
	more  int32 // 1 + index in store.strs of the values after the first; 0 if none
}

type moreStrings struct {
	items []sref
	index map[string]int32 // position in items, built past indexAfter items
}

// fingerprintSet holds distinct 64-bit fingerprints. Attempt ids are only
// ever counted, never printed, so the audit keeps an xxhash of each instead
// of its bytes; two ids of one operation would have to collide in 64 bits to
// be miscounted.
type fingerprintSet struct {
	first uint64
	n     uint32
	more  int32 // 1 + index in store.fingerprints; 0 if none
}

type moreFingerprints struct {
	items []uint64
	index map[uint64]struct{} // built past indexAfter items
}

// store holds an Auditor's strings and the overflow of its sets.
type store struct {
	arena
	strs         []moreStrings
	fingerprints []moreFingerprints
}

// add inserts v into s, copying it into the arena if it is new, and returns
// the stored copy and whether it was new.
func (st *store) add(s *stringSet, v string) (sref, bool) {
	if s.first == 0 {
		s.first = st.put(v)
		return s.first, true
	}
	if st.str(s.first) == v {
		return s.first, false
	}
	return st.addMore(s, v, 0)
}

// addRef inserts a string already in the arena: sets that share a value
// share its bytes.
func (st *store) addRef(s *stringSet, r sref) {
	switch {
	case s.first == 0:
		s.first = r
	case s.first != r && st.str(s.first) != st.str(r):
		st.addMore(s, st.str(r), r)
	}
}

// addMore adds v to the values after the first, storing r if it is not
// zero and a copy of v otherwise.
func (st *store) addMore(s *stringSet, v string, r sref) (sref, bool) {
	if s.more == 0 {
		st.strs = append(st.strs, moreStrings{})
		s.more = int32(len(st.strs))
	}
	m := &st.strs[s.more-1]
	if m.index != nil {
		if i, ok := m.index[v]; ok {
			return m.items[i], false
		}
	} else {
		for _, it := range m.items {
			if st.str(it) == v {
				return it, false
			}
		}
	}
	if r == 0 {
		r = st.put(v)
	}
	m.items = append(m.items, r)
	switch {
	case m.index != nil:
		m.index[st.str(r)] = int32(len(m.items) - 1)
	case len(m.items) > indexAfter:
		m.index = make(map[string]int32, 2*len(m.items))
		for i, it := range m.items {
			m.index[st.str(it)] = int32(i)
		}
	}
	return r, true
}

func (st *store) len(s stringSet) int {
	switch {
	case s.first == 0:
		return 0
	case s.more == 0:
		return 1
	}
	return 1 + len(st.strs[s.more-1].items)
}

// at returns the i-th value of s in insertion order.
func (st *store) at(s stringSet, i int) string {
	if i == 0 {
		return st.str(s.first)
	}
	return st.str(st.strs[s.more-1].items[i-1])
}

// list returns the values of s in insertion order, never nil.
func (st *store) list(s stringSet) []string { return st.appendTo(make([]string, 0, st.len(s)), s) }

// appendTo appends the values of s in insertion order to dst.
func (st *store) appendTo(dst []string, s stringSet) []string {
	if s.first == 0 {
		return dst
	}
	dst = append(dst, st.str(s.first))
	if s.more != 0 {
		for _, it := range st.strs[s.more-1].items {
			dst = append(dst, st.str(it))
		}
	}
	return dst
}

// addFingerprint inserts h into s and reports whether it was new.
func (st *store) addFingerprint(s *fingerprintSet, h uint64) bool {
	switch {
	case s.n == 0:
		s.first, s.n = h, 1
		return true
	case s.first == h:
		return false
	}
	if s.more == 0 {
		st.fingerprints = append(st.fingerprints, moreFingerprints{})
		s.more = int32(len(st.fingerprints))
	}
	m := &st.fingerprints[s.more-1]
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

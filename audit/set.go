package audit

import (
	"unsafe"

	"github.com/effectaudit/effectaudit/hugemem"
)

// The per-operation state is the audit's memory: millions of operations
// live at once, most with one key, one hash and one effect. The types here
// keep it free of Go pointers, so the garbage collector never scans it: a
// string is an sref into an arena of byte blocks, and a set keeps its first
// value inline and the rest, when there is a rest, in a side table of the
// store, named by index.

// sref locates a string in an arena: the block (18 bits), the length (24
// bits) and the offset in the block (22 bits). The zero sref is "".
type sref uint64

const (
	arenaFirst = 64 << 10          // bytes of the first block; each next doubles...
	arenaBlock = 1 << 22           // ...up to this; offsets have 22 bits
	arenaLarge = arenaBlock / 8    // a longer string gets a block of its own
	srefLong   = 1<<24 - 1         // length marking a string as long as its block
	srefBlocks = 1 << 18           // blocks an arena can hold
	srefBlock  = 46                // shift of the block index
	srefLength = 22                // shift of the length
	srefOffset = 1<<srefLength - 1 // mask of the offset
)

// arena stores strings in large blocks that hold no pointers. Blocks are
// never moved, so strings read from them stay valid for the arena's life.
type arena struct {
	blocks [][]byte
	cur    int // the block short strings go to, once there are blocks
}

// put copies s into the arena.
func (a *arena) put(s string) sref {
	if len(s) == 0 {
		return 0
	}
	if len(s) > arenaLarge {
		// A block of its own, exactly full; short strings go on filling
		// the current block.
		b := hugemem.Bytes(len(s))
		copy(b, s)
		a.blocks = append(a.blocks, b)
		return a.ref(len(a.blocks)-1, 0, len(s))
	}
	if len(a.blocks) == 0 || cap(a.blocks[a.cur])-len(a.blocks[a.cur]) < len(s) {
		size := arenaFirst
		if len(a.blocks) > 0 {
			size = min(2*cap(a.blocks[a.cur]), arenaBlock)
		}
		if size < len(s) {
			size = arenaBlock
		}
		a.blocks = append(a.blocks, hugemem.Bytes(size)[:0])
		a.cur = len(a.blocks) - 1
	}
	cur := a.blocks[a.cur]
	off := len(cur)
	a.blocks[a.cur] = append(cur, s...)
	return a.ref(a.cur, off, len(s))
}

func (a *arena) ref(block, off, n int) sref {
	if block >= srefBlocks {
		panic("audit: arena full") // 2^18 blocks of 4 MiB: a terabyte of strings
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

// A set keeps its first value inline. The values after it are a chain of
// nodes in the store, in insertion order: twelve bytes a value, and nothing
// at all for the many sets of one value. A set that grows past indexAfter
// values also gets a map, kept aside, for the rare hot operation.

// halves is a 64-bit value as two 32-bit halves, so that a stringSet packs
// into 12 bytes.
type halves [2]uint32

func split(v uint64) halves    { return halves{uint32(v), uint32(v >> 32)} }
func (h halves) value() uint64 { return uint64(h[0]) | uint64(h[1])<<32 }

// stringSet holds distinct strings in insertion order.
type stringSet struct {
	first halves // an sref; zero when the set is empty
	more  int32  // 1 + index of the first node after it; 0 if none
}

func (s *stringSet) head() sref { return sref(s.first.value()) }

// node is a value of a set after its first.
type node struct {
	value halves
	next  int32 // 1 + index of the next node; 0 at the end
}

// bigSet indexes the values of a set past indexAfter of them.
type bigSet struct {
	strings map[string]sref
	tail    int32 // the last node
	n       int   // values after the first
}

// store holds an Auditor's strings and the overflow of its sets.
type store struct {
	arena
	nodes blocks[node]      // node i+1 is nodes.at(i): 0 is no node
	big   map[int32]*bigSet // by the set's first node
	attemptStore
}

func (st *store) node(i int32) *node { return st.nodes.at(int(i - 1)) }

// link appends a node holding v after node tail (0: none) and returns it.
func (st *store) link(tail int32, v uint64) int32 {
	i := int32(st.nodes.add()) + 1
	*st.node(i) = node{value: split(v)}
	if tail != 0 {
		st.node(tail).next = i
	}
	return i
}

// indexSet makes the set whose first node is head a bigSet.
func (st *store) indexSet(head, tail int32, n int) {
	b := &bigSet{tail: tail, n: n, strings: make(map[string]sref, 2*n)}
	for i := head; i != 0; i = st.node(i).next {
		v := sref(st.node(i).value.value())
		b.strings[st.str(v)] = v
	}
	if st.big == nil {
		st.big = map[int32]*bigSet{}
	}
	st.big[head] = b
}

// add inserts v into s, copying it into the arena if it is new, and returns
// the stored copy and whether it was new.
func (st *store) add(s *stringSet, v string) (sref, bool) {
	return st.insert(s, v, 0)
}

// addRef inserts a string already in the arena: sets that share a value
// share its bytes.
func (st *store) addRef(s *stringSet, r sref) {
	if s.head() != r {
		st.insert(s, st.str(r), r)
	}
}

// insert adds v to s, storing r if it is not zero and a copy of v
// otherwise.
func (st *store) insert(s *stringSet, v string, r sref) (sref, bool) {
	store := func() sref {
		if r == 0 {
			r = st.put(v)
		}
		return r
	}
	if s.first == (halves{}) {
		s.first = split(uint64(store()))
		return r, true
	}
	if st.str(s.head()) == v {
		return s.head(), false
	}
	if s.more == 0 {
		s.more = st.link(0, uint64(store()))
		return r, true
	}
	if b := st.big[s.more]; b != nil {
		if it, ok := b.strings[v]; ok {
			return it, false
		}
		b.tail = st.link(b.tail, uint64(store()))
		b.n++
		b.strings[st.str(r)] = r
		return r, true
	}
	n, tail := 0, int32(0)
	for i := s.more; i != 0; i = st.node(i).next {
		if it := sref(st.node(i).value.value()); st.str(it) == v {
			return it, false
		}
		n, tail = n+1, i
	}
	tail = st.link(tail, uint64(store()))
	if n+1 > indexAfter {
		st.indexSet(s.more, tail, n+1)
	}
	return r, true
}

func (st *store) len(s stringSet) int { return st.count(s.first, s.more) }

// count returns how many values a set holds, given its first value and
// its first node after that.
func (st *store) count(first halves, more int32) int {
	switch {
	case first == halves{}:
		return 0
	case more == 0:
		return 1
	}
	if b := st.big[more]; b != nil {
		return 1 + b.n
	}
	n := 1
	for i := more; i != 0; i = st.node(i).next {
		n++
	}
	return n
}

// each calls fn for every value of s in insertion order.
func (st *store) each(s stringSet, fn func(r sref)) {
	if s.first == (halves{}) {
		return
	}
	fn(s.head())
	for i := s.more; i != 0; i = st.node(i).next {
		fn(sref(st.node(i).value.value()))
	}
}

// appendTo appends the values of s in insertion order to dst.
func (st *store) appendTo(dst []string, s stringSet) []string {
	st.each(s, func(r sref) { dst = append(dst, st.str(r)) })
	return dst
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

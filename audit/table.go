package audit

import "github.com/effectaudit/effectaudit/hugemem"

// table is a hash index from keys to int32 values with open addressing and
// linear probing. It keeps no keys: a slot holds 32 bits of the key's hash
// and the value, and the caller confirms a candidate by comparing the key it
// stores with the value. Eight bytes a slot and no pointers, where a Go map
// of string keys takes three times that and is scanned by the garbage
// collector.
type table struct {
	slots  []uint64 // hash<<32 | value+1; 0 is an empty slot
	used   int
	mapped bool // slots are outside the Go heap: see hugemem.Map
	// held, if set, is where the table records its slots while they are
	// mapped, for its owner's cleanup to give them back (see New).
	held *[]uint64
}

// maxLoad is the fill, in eighths, at which a table grows.
const maxLoad = 7

// newTable returns a table that holds n values before it grows. Its size
// is not a power of two: a slot's home is the hash scaled to the size, so a
// large table can grow by a quarter at a time, and then never holds more
// than a quarter more slots than its fill needs.
func newTable(n int) table {
	var t table
	t.setSlots(max(8, n*8/maxLoad+1))
	return t
}

// setSlots gives t n empty slots, recording them in t.held if mapped.
func (t *table) setSlots(n int) {
	t.slots, t.mapped = hugemem.MapBlock[uint64](n)
	t.hold()
}

// hold records t's slots in t.held while they are mapped.
func (t *table) hold() {
	if t.held == nil {
		return
	}
	*t.held = nil
	if t.mapped {
		*t.held = t.slots
	}
}

// home is the first slot to probe for hash h.
func (t *table) home(h uint32) int { return int(uint64(h) * uint64(len(t.slots)) >> 32) }

// following is the slot probed after i.
func (t *table) following(i int) int {
	if i++; i == len(t.slots) {
		return 0
	}
	return i
}

// find returns the value whose key hashes to h and satisfies same.
func (t *table) find(h uint32, same func(v int32) bool) (int32, bool) {
	v, _, ok := t.lookup(h, same)
	return v, ok
}

// lookup is find that also returns the slot where the search ended: the
// value's, or, when it finds nothing, the empty slot where insertAt puts a
// value for the key. An operation's first record then walks its probe
// sequence once, not twice.
func (t *table) lookup(h uint32, same func(v int32) bool) (v int32, slot int, ok bool) {
	if len(t.slots) == 0 {
		return 0, -1, false
	}
	for i := t.home(h); ; i = t.following(i) {
		s := t.slots[i]
		if s == 0 {
			return 0, i, false
		}
		if uint32(s>>32) == h {
			if v := int32(uint32(s)) - 1; same(v) {
				return v, i, true
			}
		}
	}
}

// insertAt adds value v for a key that hashes to h and is not in the
// table, at empty, the slot lookup returned for the key if the table has
// not changed since, or -1 to search for one.
func (t *table) insertAt(empty int, h uint32, v int32) {
	s := uint64(h)<<32 | uint64(uint32(v)+1)
	if (t.used+1)*8 > len(t.slots)*maxLoad {
		t.grow()
		empty = -1 // the slots have moved
	}
	if empty < 0 {
		t.place(s)
	} else {
		t.slots[empty] = s
	}
	t.used++
}

func (t *table) place(s uint64) {
	i := t.home(uint32(s >> 32))
	for t.slots[i] != 0 {
		i = t.following(i)
	}
	t.slots[i] = s
}

// doubleBelow is the size, in slots, below which a table doubles as it
// grows: growing a quarter at a time rehashes every value about four times
// over, worth it for the memory it saves only once a table is large.
const doubleBelow = 1 << 20 // 8 MiB

func (t *table) grow() {
	old, oldMapped := t.slots, t.mapped
	size := len(old) + len(old)/4
	if len(old) < doubleBelow {
		size = 2 * len(old)
	}
	t.setSlots(max(8, size))
	for _, s := range old {
		if s != 0 {
			t.place(s)
		}
	}
	// The old slots are garbage now; their memory goes back at once, so a
	// large table's growth does not hold both sizes until the next
	// collection.
	hugemem.UnmapBlock(old, oldMapped)
}

// drop empties the table, its memory going back at once. A table's slots
// never leave it, so once it is dropped nothing can read them.
func (t *table) drop() {
	hugemem.UnmapBlock(t.slots, t.mapped)
	*t = table{held: t.held}
	t.hold()
}

package audit

// table is a hash index from keys to int32 values with open addressing and
// linear probing. It keeps no keys: a slot holds 32 bits of the key's hash
// and the value, and the caller confirms a candidate by comparing the key it
// stores with the value. Eight bytes a slot and no pointers, where a Go map
// of string keys takes three times that and is scanned by the garbage
// collector.
type table struct {
	slots []uint64 // hash<<32 | value+1; 0 is an empty slot
	used  int
}

// maxLoad is the fill, in eighths, at which a table grows.
const maxLoad = 6

// newTable returns a table that holds n values before it grows.
func newTable(n int) table {
	size := 8
	for size*maxLoad/8 < n {
		size *= 2
	}
	return table{slots: make([]uint64, size)}
}

// find returns the value whose key hashes to h and satisfies same.
func (t *table) find(h uint32, same func(v int32) bool) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if uint32(s>>32) == h {
			if v := int32(uint32(s)) - 1; same(v) {
				return v, true
			}
		}
	}
}

// insert adds value v for a key that hashes to h and is not in the table.
func (t *table) insert(h uint32, v int32) {
	if (t.used+1)*8 > len(t.slots)*maxLoad {
		t.grow()
	}
	t.place(uint64(h)<<32 | uint64(uint32(v)+1))
	t.used++
}

func (t *table) place(s uint64) {
	mask := uint32(len(t.slots) - 1)
	i := uint32(s>>32) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

func (t *table) grow() {
	old := t.slots
	t.slots = make([]uint64, max(8, 2*len(old)))
	for _, s := range old {
		if s != 0 {
			t.place(s)
		}
	}
}

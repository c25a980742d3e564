package cmd

// closestKept is how many of the closest operation ids explain suggests
// for an id it did not find.
const closestKept = 3

// longID is the length past which an id is never close to another: the
// distance between two ids is then the longer one's length, with no
// table of up to len(a)×len(b) cells to fill.
const longID = 256

// nearest keeps the closestKept ids nearest to want by edit distance, in
// order of distance, then of arrival (so of a tie, the id seen first).
//
// A ledger can hold millions of ids: each is measured once, and only as
// far as it may still beat the furthest of those kept. A full table of up
// to 256×256 cells for each id, and again for the furthest kept, took 29 s
// on 100k ids of 256 bytes, where the audit took 0.36 s.
type nearest struct {
	want string
	best []scored

	// For each 64 bytes of want (while it is no longer than longID), and
	// each byte value, a bit for each of those bytes that is that value.
	peq [][256]uint64
	// How many of each byte want holds more than the id being measured:
	// want's own counts between ids.
	excess [256]int
}

type scored struct {
	id string
	d  int
}

func newNearest(want string) *nearest {
	n := &nearest{want: want, best: make([]scored, 0, closestKept)}
	if len(want) <= longID {
		n.peq = make([][256]uint64, (len(want)+63)/64)
		for i := 0; i < len(want); i++ {
			n.peq[i/64][want[i]] |= 1 << (i % 64)
		}
	}
	for i := 0; i < len(want); i++ {
		n.excess[want[i]]++
	}
	return n
}

// add measures id against want, and keeps it if it is among the closest.
func (n *nearest) add(id string) {
	if len(n.best) < closestKept {
		d, _ := n.within(id, max(len(id), len(n.want))) // no distance exceeds that
		n.insert(scored{id, d})
		return
	}
	// Of a tie the id kept is the one seen first: only a smaller distance
	// than the furthest kept gets in.
	if d, ok := n.within(id, n.best[closestKept-1].d-1); ok {
		n.best = n.best[:closestKept-1]
		n.insert(scored{id, d})
	}
}

// insert puts s after the kept ids not further than it.
func (n *nearest) insert(s scored) {
	i := len(n.best)
	for i > 0 && n.best[i-1].d > s.d {
		i--
	}
	n.best = append(n.best, scored{})
	copy(n.best[i+1:], n.best[i:])
	n.best[i] = s
}

// ids returns the kept ids, closest first.
func (n *nearest) ids() []string {
	ids := make([]string, len(n.best))
	for i, s := range n.best {
		ids[i] = s.id
	}
	return ids
}

// within returns the Levenshtein distance between id and want, in bytes,
// and true if it is at most limit; if it is more, it returns false as
// soon as that is certain.
func (n *nearest) within(id string, limit int) (int, bool) {
	a, b := id, n.want
	if len(a) > longID || len(b) > longID {
		d := max(len(a), len(b))
		return d, d <= limit
	}
	if max(len(a)-len(b), len(b)-len(a)) > limit {
		return 0, false
	}
	// Each edit adds, removes or changes one byte, so it settles at most
	// one of the bytes want holds that id does not, and one of those id
	// holds that want does not: the distance is at least the larger count.
	// That settles ids that share few bytes with want in len(id) steps.
	extraWant, extraID := len(b), 0
	for i := 0; i < len(a); i++ {
		if n.excess[a[i]] > 0 {
			extraWant--
		} else {
			extraID++
		}
		n.excess[a[i]]--
	}
	for i := 0; i < len(a); i++ {
		n.excess[a[i]]++
	}
	if max(extraWant, extraID) > limit {
		return 0, false
	}
	if len(b) == 0 {
		return len(a), true // len(a) <= limit, from the lengths above
	}
	// The table, a column for each byte of id and a row for each of want,
	// as Myers's bit vectors (Hyyrö's blocks of 64 rows): each column holds
	// for each row whether its cell is one more (pv) or one less (mv) than
	// the one above. A column takes a few word operations per 64 rows.
	// The table filled cell by cell, even cut to a band around its
	// diagonal and stopped once a whole row exceeds limit, saved next to
	// nothing when all distances come within a few of the furthest kept,
	// as for random ids of one length (BenchmarkExplainClosest/typo: 3.4 s
	// for 10k ids, as before, where these vectors take 0.04 s).
	var pv, mv, shift [longID / 64]uint64
	peq := n.peq
	for k := range peq {
		pv[k] = ^uint64(0) // the first column: 0, 1, 2, ...
		shift[k] = 63      // where a block's last row is, whose change is carried to the next
	}
	shift[len(peq)-1] = uint64(len(b)-1) % 64 // want's last row
	d := len(b)                               // the cell of want's last row, in the column
	for j := 0; j < len(a); j++ {
		c := a[j]
		// How the cell above the block changed from the column before,
		// as two bits, +1, 0 or -1: the top row counts up, 0, 1, 2, ...
		hp, hm := uint64(1), uint64(0)
		for k := range peq {
			p, m := pv[k], mv[k]
			eq := peq[k][c]
			xv := eq | m
			eq |= hm
			xh := (((eq & p) + p) ^ p) | eq
			ph := m | ^(xh | p)
			mh := p & xh
			outP, outM := ph>>shift[k]&1, mh>>shift[k]&1
			ph = ph<<1 | hp
			mh = mh<<1 | hm
			pv[k] = mh | ^(xv | ph)
			mv[k] = ph & xv
			hp, hm = outP, outM
		}
		d += int(hp) - int(hm)
		// Each column left lowers that cell by at most one.
		if d-(len(a)-1-j) > limit {
			return 0, false
		}
	}
	return d, d <= limit
}

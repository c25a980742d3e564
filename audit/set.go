package audit

// smallSetLimit is how many values a set holds before it builds an index.
// Most operations carry one key, one hash and one effect, so a short slice
// scanned linearly beats a map in both time and memory.
const smallSetLimit = 8

// stringSet keeps distinct strings in insertion order.
type stringSet struct {
	items []string
	index map[string]int32 // built past smallSetLimit
}

// add inserts s if it is new and returns its position and whether it was new.
func (s *stringSet) add(v string) (int, bool) {
	if i := s.find(v); i >= 0 {
		return i, false
	}
	s.items = append(s.items, v)
	n := len(s.items) - 1
	if s.index != nil {
		s.index[v] = int32(n)
	} else if len(s.items) > smallSetLimit {
		s.index = make(map[string]int32, 2*len(s.items))
		for i, it := range s.items {
			s.index[it] = int32(i)
		}
	}
	return n, true
}

func (s *stringSet) find(v string) int {
	if s.index != nil {
		if i, ok := s.index[v]; ok {
			return int(i)
		}
		return -1
	}
	for i, it := range s.items {
		if it == v {
			return i
		}
	}
	return -1
}

func (s *stringSet) len() int { return len(s.items) }

// list returns the values in insertion order, never nil.
func (s *stringSet) list() []string {
	out := make([]string, len(s.items))
	copy(out, s.items)
	return out
}

package otlp

import "fmt"

// Attribute lookup. A selected span asks for a dozen attribute names (one
// per ledger field, and error.type), each on the span, then its scope, then
// its resource; every span, selected or not, asks for the Type attribute.
// Scanning the lists on every ask costs spans × list length, quadratic in a
// line whose resource has many attributes and which holds many spans. So a
// list longer than indexMin is indexed in one pass: for each name asked
// for, the position of its only entry, or a mark that it has none or
// several. The resource's and the scope's lists are indexed once for all
// their spans, a span's own list only once the span is selected (a skipped
// span asks for one name, which one scan answers). Short lists, the common
// case, are scanned as before: that is cheaper than indexing them.

// indexMin is the length above which a list is indexed. Any constant keeps
// the cost linear; this one is a round guess, not tuned, that leaves the
// usual lists (a handful of attributes) to the scan.
const indexMin = 16

// maxNames bounds the distinct names asked for: the mapping's and error.type.
const maxNames = len(ledgerFields) + 1

// names gives each distinct name the lookups ask for a slot, -1 for the
// empty name, which reads nothing.
type names struct {
	mapping   Mapping                   // what the slots were built for
	built     bool                      // whether they were built at all
	attr      [len(ledgerFields)]string // the attribute of each ledger field
	field     [len(ledgerFields)]int    // and its slot
	errorType int                       // the slot of error.type
	slot      map[string]int            // slot by name, for indexing
}

// update makes the slots those of m, if they are not already.
func (n *names) update(m *Mapping) {
	if n.built && n.mapping == *m {
		return
	}
	n.mapping, n.built = *m, true
	n.slot = make(map[string]int, maxNames)
	slotOf := func(name string) int {
		if name == "" {
			return -1
		}
		s, ok := n.slot[name]
		if !ok {
			s = len(n.slot)
			n.slot[name] = s
		}
		return s
	}
	for i, f := range ledgerFields {
		n.attr[i] = *m.attr(f)
		n.field[i] = slotOf(n.attr[i])
	}
	n.errorType = slotOf("error.type")
}

// Entries of attrList.at that are no index.
const (
	absent = -1 // the list has no entry of the name
	twice  = -2 // the list has more than one
)

// attrList is one attribute list, indexed when it is long.
type attrList struct {
	kvs     []keyValue
	indexed bool
	at      [maxNames]int // if indexed: by slot, the index in kvs of the name's entry, absent or twice
}

// reset makes l the list kvs, indexed with n's slots if index is set.
func (l *attrList) reset(kvs []keyValue, n *names, index bool) {
	l.kvs, l.indexed = kvs, false
	if index {
		l.index(n)
	}
}

// index indexes l, if it is long.
func (l *attrList) index(n *names) {
	if l.indexed || len(l.kvs) <= indexMin {
		return
	}
	for i := range l.at {
		l.at[i] = absent
	}
	for i := range l.kvs {
		s, ok := n.slot[l.kvs[i].Key]
		if !ok {
			continue
		}
		if l.at[s] == absent {
			l.at[s] = i
		} else {
			l.at[s] = twice
		}
	}
	l.indexed = true
}

// find returns the value of name, whose slot is slot (not -1), in l: nil if
// l has no entry of it, and dup set if it has more than one.
func (l *attrList) find(slot int, name string) (v *anyValue, dup bool) {
	if l.indexed {
		switch i := l.at[slot]; i {
		case absent:
			return nil, false
		case twice:
			return nil, true
		default:
			return &l.kvs[i].Value, false
		}
	}
	for i := range l.kvs {
		if l.kvs[i].Key != name {
			continue
		}
		if v != nil {
			return nil, true
		}
		v = &l.kvs[i].Value
	}
	return v, false
}

// levels are the lists a span's attributes are looked up in, in order: the
// span's own, its scope's and its resource's.
type levels [3]*attrList

var levelNames = [...]string{"span", "scope", "resource"}

// lookup finds the attribute name, whose slot is slot, on the span, then
// its scope, then its resource. It returns nil if no list has it, or if the
// first that has it holds an empty AnyValue. A key twice in that list is an
// error: which one the exporter meant is unknowable. (A key twice in a
// later list is not looked at.)
func (ls *levels) lookup(slot int, name string) (*anyValue, error) {
	if slot < 0 {
		return nil, nil
	}
	for li, l := range ls {
		found, dup := l.find(slot, name)
		if dup {
			return nil, fmt.Errorf("attribute %q appears twice in the %s attributes", name, levelNames[li])
		}
		if found == nil {
			continue
		}
		kind, err := found.variant()
		if err != nil {
			return nil, err
		}
		if kind == "" {
			return nil, nil
		}
		return found, nil
	}
	return nil, nil
}

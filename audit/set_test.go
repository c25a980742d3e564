package audit

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// model is what a set must behave like: distinct values in insertion order.
type model struct {
	seen   map[string]bool
	values []string
}

func (m *model) add(v string) bool {
	if m.seen[v] {
		return false
	}
	if m.seen == nil {
		m.seen = map[string]bool{}
	}
	m.seen[v] = true
	m.values = append(m.values, v)
	return true
}

// TestStringSetsAgainstModel interleaves insertions into many sets, some
// small and some past indexAfter, so their chains of nodes interleave in
// the store too, and checks each against a plain model.
func TestStringSetsAgainstModel(t *testing.T) {
	large := []string{} // strings with blocks of their own
	for i := range 3 {
		large = append(large, strings.Repeat("x", arenaLarge+1+i))
	}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var st store
		sets := make([]stringSet, 8)
		models := make([]model, len(sets))
		for range 3000 {
			i := rng.IntN(len(sets))
			// Set i draws from 4<<i values: set 0 stays small, the last
			// grows far past indexAfter.
			v := fmt.Sprintf("value-%d", rng.IntN(4<<i))
			if i == 3 {
				v = large[rng.IntN(len(large))]
			}
			r, isNew := st.add(&sets[i], v)
			if want := models[i].add(v); isNew != want {
				t.Fatalf("seed %d: add(%q) to set %d: new = %v, want %v", seed, v, i, isNew, want)
			}
			if got := st.str(r); got != v {
				t.Fatalf("seed %d: add(%q) returned a ref to %q", seed, v, got)
			}
		}
		for i := range sets {
			want := models[i].values
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, st.list(sets[i])); diff != "" {
				t.Errorf("seed %d: set %d (-want +got):\n%s", seed, i, diff)
			}
			if got := st.len(sets[i]); got != len(want) {
				t.Errorf("seed %d: set %d: len = %d, want %d", seed, i, got, len(want))
			}
		}
	}
}

// TestAddRefSharesBytes checks that a value added by reference is stored
// once and still compares by content.
func TestAddRefSharesBytes(t *testing.T) {
	var st store
	var a, b stringSet
	r, _ := st.add(&a, "sha256:x")
	st.addRef(&b, r)
	st.addRef(&b, st.put("sha256:x")) // equal content, another copy
	other := st.put("sha256:y")
	st.addRef(&b, other)
	if diff := cmp.Diff([]string{"sha256:x", "sha256:y"}, st.list(b)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if b.head() != r {
		t.Errorf("the set copied a value it was handed by reference")
	}
}

// TestAttemptSetsAgainstModel adds fingerprints to sets of every size,
// past indexAfter included, and checks that each set holds its distinct
// fingerprints in order, and that what is written to an attempt found
// again is what was written to it when it was added.
func TestAttemptSetsAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var st store
	sets := make([]attemptSet, 6)
	models := make([]model, len(sets))
	for range 5000 {
		i := rng.IntN(len(sets))
		h := 1 + rng.Uint64N(3<<(2*i)) // 0 is kept as 1
		at, added := st.findAttempt(&sets[i], h)
		if want := models[i].add(fmt.Sprint(h)); added != want {
			t.Fatalf("findAttempt(%d) in set %d added %v, want %v", h, i, added, want)
		}
		if got := at.id.value(); got != h {
			t.Fatalf("findAttempt(%d) in set %d found attempt %d", h, i, got)
		}
		if added {
			at.result = uint32(h) // a mark to find again
		} else if at.result != uint32(h) {
			t.Fatalf("attempt %d of set %d lost its mark: %d", h, i, at.result)
		}
	}
	for i := range sets {
		if got, want := st.countAttempts(sets[i]), len(models[i].values); got != want {
			t.Errorf("set %d holds %d attempts, want %d", i, got, want)
		}
		var got []string
		st.eachAttempt(&sets[i], func(at *attempt) { got = append(got, fmt.Sprint(at.id.value())) })
		if diff := cmp.Diff(models[i].values, got); diff != "" {
			t.Errorf("set %d's attempts (-want +got):\n%s", i, diff)
		}
	}
	var empty attemptSet
	if at, added := st.findAttempt(&empty, 0); !added || at.id.value() != 1 {
		t.Errorf("fingerprint 0 was kept as %d (added %v), want 1", at.id.value(), added)
	}
}

// TestArenaKeepsStrings stores strings of every size class, across block
// boundaries, and reads them all back.
func TestArenaKeepsStrings(t *testing.T) {
	var a arena
	rng := rand.New(rand.NewPCG(3, 3))
	var want []string
	var refs []sref
	for i := range 4000 {
		n := rng.IntN(300)
		switch i % 500 {
		case 0:
			n = arenaLarge + rng.IntN(arenaBlock)
		case 1:
			n = arenaLarge
		}
		s := strings.Repeat(string(rune('a'+i%26)), n) + fmt.Sprint(i)
		want = append(want, s)
		refs = append(refs, a.put(s))
	}
	for i, r := range refs {
		if got := a.str(r); got != want[i] {
			t.Fatalf("string %d: got %d bytes %.20q..., want %d bytes %.20q...", i, len(got), got, len(want[i]), want[i])
		}
	}
	if a.put("") != 0 || a.str(0) != "" {
		t.Error("the empty string is not the zero sref")
	}
}

// TestTableFindsEveryKey fills a table far past its first size, with
// hashes that collide on purpose, and finds every key. A second table,
// filled through the empty slots lookup returns, must hold every value in
// the same slot as the first, whose inserts search for their own.
func TestTableFindsEveryKey(t *testing.T) {
	keys := make([]string, 20000)
	for i := range keys {
		keys[i] = fmt.Sprintf("op-%d", i)
	}
	seed := maphash.MakeSeed()
	hash := func(k string) uint32 { return uint32(maphash.String(seed, k)) & 0xFFFF0FFF } // force tag collisions
	tab, tabAt := newTable(10), newTable(10)
	for i, k := range keys {
		same := func(v int32) bool { return keys[v] == k }
		if _, ok := tab.find(hash(k), same); ok {
			t.Fatalf("%s found before it was inserted", k)
		}
		tab.insertAt(-1, hash(k), int32(i))
		_, empty, ok := tabAt.lookup(hash(k), same)
		if ok || tabAt.slots[empty] != 0 {
			t.Fatalf("lookup(%s) = slot %d holding %#x, found %v; want an empty slot", k, empty, tabAt.slots[empty], ok)
		}
		tabAt.insertAt(empty, hash(k), int32(i))
	}
	for i, k := range keys {
		v, ok := tab.find(hash(k), func(v int32) bool { return keys[v] == k })
		if !ok || v != int32(i) {
			t.Fatalf("find(%s) = %d, %v; want %d", k, v, ok, i)
		}
	}
	if !slices.Equal(tab.slots, tabAt.slots) || tab.used != tabAt.used {
		t.Error("inserting at the slots lookup returned placed values elsewhere than searching for them")
	}
	if _, ok := tab.find(hash("absent"), func(v int32) bool { return keys[v] == "absent" }); ok {
		t.Error("found a key never inserted")
	}
}

// TestStateHoldsNoPointers guards the two properties the audit's memory
// rests on: the blocks of operations, bindings and set nodes hold no Go
// pointers (so the garbage collector never scans them), and an operation
// stays within its budget of bytes.
func TestStateHoldsNoPointers(t *testing.T) {
	for _, v := range []any{operation{}, binding{}, node{}, attemptNode{}} {
		if path, ok := pointerIn(reflect.TypeOf(v), ""); ok {
			t.Errorf("%T holds a pointer at %s", v, path)
		}
	}
	const budget = 160
	if size := unsafe.Sizeof(operation{}); size > budget {
		t.Errorf("an operation takes %d bytes, over its budget of %d", size, budget)
	}
}

// pointerIn finds a field of t that holds a Go pointer.
func pointerIn(t reflect.Type, path string) (string, bool) {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Chan,
		reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return path, true
	case reflect.Array:
		return pointerIn(t.Elem(), path+"[]")
	case reflect.Struct:
		for i := range t.NumField() {
			if p, ok := pointerIn(t.Field(i).Type, path+"."+t.Field(i).Name); ok {
				return p, true
			}
		}
	}
	return "", false
}

// TestBlocksKeepValues fills blocks across the doublings and several full
// blocks after them, and checks every value stays where it was put and the
// blocks have the sizes they should.
func TestBlocksKeepValues(t *testing.T) {
	var b blocks[[2]uint32]
	const n = doubled + 3*fullBlock + 17
	for i := range n {
		if got := b.add(); got != i {
			t.Fatalf("add() = %d, want %d", got, i)
		}
		*b.at(i) = [2]uint32{uint32(i), ^uint32(i)}
	}
	for i := range n {
		if got := *b.at(i); got != [2]uint32{uint32(i), ^uint32(i)} {
			t.Fatalf("value %d reads %v", i, got)
		}
	}
	var sizes, want []int
	for _, block := range b.list {
		sizes = append(sizes, len(block))
	}
	for k := range lastDouble + 1 {
		want = append(want, firstBlock<<k)
	}
	want = append(want, fullBlock, fullBlock, fullBlock, fullBlock)
	if diff := cmp.Diff(want, sizes); diff != "" {
		t.Errorf("block sizes (-want +got):\n%s", diff)
	}
}

// TestArenaLongStringsWasteNothing alternates short strings with strings
// long enough for a block of their own: the short ones must go on filling
// one block rather than start a new one after each long string.
func TestArenaLongStringsWasteNothing(t *testing.T) {
	var a arena
	long := strings.Repeat("x", arenaLarge+1)
	stored := 0
	for i := range 50 {
		short := fmt.Sprintf("op-%d", i)
		a.put(short)
		a.put(long)
		stored += len(short) + len(long)
	}
	held := 0
	for _, b := range a.blocks {
		held += cap(b)
	}
	if limit := stored + arenaFirst; held > limit {
		t.Errorf("the arena holds %d bytes for %d stored, more than %d", held, stored, limit)
	}
}

// TestChunksKeepValues fills chunks across several chunk boundaries, with
// values that hold pointers, through garbage collections, and checks every
// value stays where it was put.
func TestChunksKeepValues(t *testing.T) {
	var c chunks[*[2]int]
	const n = 3*chunkSize + 5
	for i := range n {
		if got := c.add(); got != i {
			t.Fatalf("add() = %d, want %d", got, i)
		}
		*c.at(i) = &[2]int{i, -i}
		if i%chunkSize == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	if c.len() != n {
		t.Fatalf("len() = %d, want %d", c.len(), n)
	}
	for i := range n {
		if v := *c.at(i); v[0] != i || v[1] != -i {
			t.Fatalf("value %d reads %v", i, *v)
		}
	}
}

// TestEffectsCounted checks the running count of distinct effectRefs that
// findSharedEffects sizes its work by: repeats, refs shared by operations,
// sets past indexAfter and empty refs included.
func TestEffectsCounted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a := New(nil)
	for i := range 5000 {
		op := fmt.Sprintf("op-%d", r.IntN(300))
		ref := fmt.Sprintf("ref-%d", r.IntN(40))
		switch {
		case i%7 == 0:
			op = "op-many" // one operation with far more than indexAfter effects
			ref = fmt.Sprintf("many-%d", r.IntN(200))
		case i%11 == 0:
			ref = "" // the Decoder refuses it, but Add takes it
		}
		a.Add(&Record{Type: Effect, OperationID: op, EffectRef: ref, Result: "present", Pos: Position{Line: i + 1}})
	}
	want := 0
	for i := range a.ops.len() {
		want += a.st.len(a.opAt(i).effects)
	}
	if a.effectCount != want {
		t.Errorf("counted %d effects, the sets hold %d", a.effectCount, want)
	}
	if big := a.st.len(a.op("op-many", Position{}).effects); big <= indexAfter {
		t.Fatalf("op-many has %d effects: its set never grew an index", big)
	}
}

// list returns the values of s in insertion order, never nil.
func (st *store) list(s stringSet) []string { return st.appendTo(make([]string, 0, st.len(s)), s) }

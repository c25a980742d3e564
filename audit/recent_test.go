package audit

import "testing"

// TestRecentOpsCollide checks that the cache of operations found last
// gives an operation only for its own id: ids whose hashes are equal, or
// share the cache's slot, each keep their own operation, however the
// lookups interleave.
func TestRecentOpsCollide(t *testing.T) {
	const h = 0x9e3779b9
	sameSlot := uint32(h) ^ 1 // other low bits, the same top bits
	if recentSlot(sameSlot) != recentSlot(h) {
		t.Fatal("the two hashes should share a slot")
	}
	lookups := []struct {
		id string
		h  uint32
	}{
		{"op-a", h}, {"op-b", h}, {"op-a", h}, {"op-c", sameSlot}, {"op-b", h}, {"op-c", sameSlot}, {"op-a", h},
	}
	a := New(nil)
	byID := map[string]*operation{}
	for i, l := range lookups {
		op := a.opHashed(l.id, l.h, Position{Line: i + 1})
		if got := a.st.str(op.id); got != l.id {
			t.Fatalf("lookup %d: %q found the operation of %q", i, l.id, got)
		}
		if first, ok := byID[l.id]; ok && first != op {
			t.Fatalf("lookup %d: %q found a second operation", i, l.id)
		}
		byID[l.id] = op
	}
	if n := a.ops.len(); n != 3 {
		t.Errorf("%d operations, want 3", n)
	}
}

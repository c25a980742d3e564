package audit

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestUnmergedIndexesGoBack checks that an Auditor that is never merged
// gives its mapped index slots back once it is garbage: they are outside
// the Go heap, and only Merge or the Auditor's cleanup unmaps them.
func TestUnmergedIndexesGoBack(t *testing.T) {
	from, to := func() (uintptr, uintptr) {
		a := New(nil)
		for i := range 300_000 { // past the 2 MiB of slots that Map maps
			a.Add(&Record{Type: Effect, OperationID: "op-" + strconv.Itoa(i), Result: "present", EffectRef: "r"})
		}
		if !a.opIndex.mapped {
			t.Skip("the operation index is not mapped on this system")
		}
		from := uintptr(unsafe.Pointer(unsafe.SliceData(a.opIndex.slots)))
		return from, from + 8*uintptr(len(a.opIndex.slots))
	}()
	if !anyMapped(t, from, to) {
		t.Fatalf("[%#x, %#x) is not mapped to begin with", from, to)
	}
	// The cleanup runs after a collection finds the Auditor unreachable,
	// on a goroutine of its own.
	for deadline := time.Now().Add(30 * time.Second); anyMapped(t, from, to); {
		if time.Now().After(deadline) {
			t.Fatalf("[%#x, %#x) is still mapped 30 s after its Auditor became garbage", from, to)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// anyMapped reports whether /proc/self/maps maps any of [from, to).
func anyMapped(t *testing.T, from, to uintptr) bool {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("cannot read mappings: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		r, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(r, "-")
		if !ok {
			continue
		}
		l, err1 := strconv.ParseUint(lo, 16, 64)
		h, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil && l < uint64(to) && uint64(from) < h {
			return true
		}
	}
	return false
}

package hugemem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestBytesAdvisedWhole checks, in /proc/self/smaps, that every byte of a
// large block lies in memory advised for huge pages (VmFlags "hg"), its
// first and last bytes included, wherever the heap put it.
func TestBytesAdvisedWhole(t *testing.T) {
	for _, n := range []int{hugePage, 3*hugePage + 12345, 5 * hugePage} {
		b := Bytes(n)
		start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		for _, addr := range []uintptr{start, start + uintptr(n)/2, start + uintptr(n) - 1} {
			flags, ok := vmFlags(t, addr)
			if !ok {
				t.Skip("no VmFlags in /proc/self/smaps")
			}
			if !strings.Contains(" "+flags+" ", " hg ") {
				t.Errorf("Bytes(%d): byte %d of the block is in memory without huge page advice (VmFlags: %s)", n, addr-start, flags)
			}
		}
	}
}

// vmFlags returns the VmFlags of the mapping that holds addr.
func vmFlags(t *testing.T, addr uintptr) (string, bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("cannot read mappings: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		if from, to, ok := mappingRange(line); ok {
			inside = from <= uint64(addr) && uint64(addr) < to
			continue
		}
		if inside {
			if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok {
				return strings.TrimSpace(flags), true
			}
		}
	}
	return "", false
}

// mappingRange parses the address range that starts a mapping's entry,
// "7f00-7f80 rw-p ...".
func mappingRange(line string) (from, to uint64, ok bool) {
	r, _, found := strings.Cut(line, " ")
	lo, hi, dash := strings.Cut(r, "-")
	if !found || !dash {
		return 0, 0, false
	}
	from, err1 := strconv.ParseUint(lo, 16, 64)
	to, err2 := strconv.ParseUint(hi, 16, 64)
	return from, to, err1 == nil && err2 == nil
}

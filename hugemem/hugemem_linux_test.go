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
// block of adviseFrom bytes or more lies in memory advised for huge pages
// (VmFlags "hg"), its first and last bytes included, wherever the heap put
// it.
func TestBytesAdvisedWhole(t *testing.T) {
	needHugePages(t)
	for _, n := range []int{adviseFrom, 3*adviseFrom + 123, hugePage, 3*hugePage + 12345, 5 * hugePage} {
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

// hugePagesAvailable reports whether the kernel has transparent huge
// pages, without which madvise refuses the advice.
func hugePagesAvailable() bool {
	_, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil
}

func needHugePages(t *testing.T) {
	if !hugePagesAvailable() {
		t.Skip("this kernel has no transparent huge pages")
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

// TestMap checks that Map maps a large block of its own, zeroed, writable
// and advised for huge pages, that a small one comes from Bytes, and that
// Unmap takes the mapping away.
func TestMap(t *testing.T) {
	if b, mapped := Map(4096); mapped || len(b) != 4096 {
		t.Fatalf("Map(4096) = %d bytes, mapped %v; want 4096 from the heap", len(b), mapped)
	}
	n := 3*hugePage + 4096
	b, isMapped := Map(n)
	if !isMapped {
		t.Skip("no memory mapped on this system")
	}
	for i := range b {
		if b[i] != 0 {
			t.Fatalf("byte %d reads %d, want zero", i, b[i])
		}
		b[i] = 1
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if start%hugePage != 0 {
		t.Errorf("mapped at %#x, not on a huge page", start)
	}
	// Map maps whole huge pages: a huge page only partly inside an advised
	// mapping is never backed by one.
	end := start + uintptr(wholePages(n))
	if !mapped(t, start, end, false) {
		t.Fatalf("[%#x, %#x) is not mapped", start, end)
	}
	if hugePagesAvailable() {
		if flags, _ := vmFlags(t, start); !strings.Contains(" "+flags+" ", " hg ") {
			t.Errorf("mapped without huge page advice (VmFlags: %s)", flags)
		}
	}
	Unmap(b, isMapped)
	if mapped(t, start, end, true) {
		t.Errorf("[%#x, %#x) is still mapped after Unmap", start, end)
	}
}

// mapped reports whether /proc/self/maps maps all of [from, to), or with
// any set, any of it.
func mapped(t *testing.T, from, to uintptr, any bool) bool {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("cannot read mappings: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		lo, hi, ok := mappingRange(line)
		if !ok {
			continue
		}
		if any && lo < uint64(to) && uint64(from) < hi {
			return true
		}
		if !any && lo <= uint64(from) && uint64(to) <= hi {
			return true
		}
	}
	return false
}

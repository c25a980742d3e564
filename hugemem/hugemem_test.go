package hugemem

import (
	"runtime"
	"testing"
	"unsafe"
)

func TestBytes(t *testing.T) {
	for _, n := range []int{0, 1, 4096, hugePage - 1, hugePage, 3*hugePage + 12345} {
		b := Bytes(n)
		if len(b) != n {
			t.Fatalf("Bytes(%d) has %d bytes", n, len(b))
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("Bytes(%d)[%d] = %d, want zero", n, i, b[i])
			}
			b[i] = byte(i) // the whole block is writable
		}
	}
}

func TestBlock(t *testing.T) {
	type pair struct {
		a uint64
		b uint32
	}
	for _, n := range []int{0, 1, 1000, hugePage / 8} {
		blk := Block[pair](n)
		if len(blk) != n {
			t.Fatalf("Block(%d) has %d values", n, len(blk))
		}
		if n > 0 && uintptr(unsafe.Pointer(&blk[0]))%unsafe.Alignof(pair{}) != 0 {
			t.Fatalf("Block(%d) is not aligned for its type", n)
		}
		for i := range blk {
			blk[i] = pair{uint64(i), uint32(i)}
		}
		for i := range blk {
			if blk[i] != (pair{uint64(i), uint32(i)}) {
				t.Fatalf("Block(%d)[%d] = %v", n, i, blk[i])
			}
		}
	}
}

// TestGiveBack checks that released memory stays usable: it reads as zeros
// and takes writes again.
func TestGiveBack(t *testing.T) {
	b := Bytes(3 * hugePage)
	for i := range b {
		b[i] = 1
	}
	giveBack(b)
	// The pages given back read as zeros where the platform gives them
	// back (Linux), and as what they held elsewhere; never as anything else.
	zeros := 0
	for i := range b {
		if b[i] > 1 {
			t.Fatalf("byte %d reads %d after release", i, b[i])
		}
		if b[i] == 0 {
			zeros++
		}
		b[i] = 2
	}
	if runtime.GOOS == "linux" && zeros < hugePage {
		t.Errorf("%d bytes read as zeros after release; want the whole pages inside b, %d or more", zeros, hugePage)
	}
	for i := range b {
		if b[i] != 2 {
			t.Fatalf("byte %d reads %d after a write; want 2", i, b[i])
		}
	}
}

// TestTrim checks the arithmetic mmapAligned trims a mapping by, for
// mappings wherever the kernel may put them: the head and the tail it
// gives back and the block it keeps make up the whole mapping, and the
// block starts on a huge page.
func TestTrim(t *testing.T) {
	const page = 4096
	for _, n := range []int{hugePage, wholePages(3*hugePage + 1)} {
		for _, start := range []uintptr{
			16 * hugePage, 16*hugePage + page, 17*hugePage - page, 16*hugePage + hugePage/2,
		} {
			head, tail := trim(start)
			if head < 0 || head >= hugePage || tail <= 0 {
				t.Errorf("trim(%#x, %d) = %d, %d; want 0 <= head < %d and a tail", start, n, head, tail, hugePage)
			}
			if head+n+tail != n+hugePage {
				t.Errorf("trim(%#x, %d) = %d, %d: with the block, %d bytes of the %d mapped", start, n, head, tail, head+n+tail, n+hugePage)
			}
			if (start+uintptr(head))%hugePage != 0 {
				t.Errorf("trim(%#x, %d): the block starts at %#x, not on a huge page", start, n, start+uintptr(head))
			}
		}
	}
	for n, want := range map[int]int{hugePage: hugePage, hugePage + 1: 2 * hugePage, 3*hugePage - 1: 3 * hugePage} {
		if got := wholePages(n); got != want {
			t.Errorf("wholePages(%d) = %d, want %d", n, got, want)
		}
	}
}

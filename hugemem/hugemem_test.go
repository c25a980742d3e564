package hugemem

import (
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

// TestRelease checks that released memory stays usable: it reads as zeros
// and takes writes again.
func TestRelease(t *testing.T) {
	b := Bytes(3 * hugePage)
	for i := range b {
		b[i] = 1
	}
	Release(b)
	for i := range b {
		if b[i] > 1 {
			t.Fatalf("byte %d reads %d after release", i, b[i])
		}
		b[i] = 2
	}
}

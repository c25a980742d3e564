// Package hugemem allocates large blocks of pointer-free memory from the Go
// heap and asks the kernel to back them with huge pages.
//
// An audit's state is hundreds of megabytes read at random: with 4 KiB pages
// most lookups also miss the TLB, and on Linux, where transparent huge pages
// are usually enabled only for memory that asks for them, a lookup then
// costs a page walk besides its cache miss. Measured on a 1M-record ledger,
// huge pages cut the audit's time by about a fifth.
//
// Memory from Bytes and Block stays ordinary Go heap memory, kept alive by
// the garbage collector like any other: the advice is a hint the kernel may
// ignore. Memory from Map and MapBlock is mapped outside the heap when it is
// large, for an owner that gives it back itself.
package hugemem

import (
	"math"
	"os"
	"unsafe"
)

// hugePage is the size of a huge page on the platforms that have them.
const hugePage = 2 << 20

// adviseFrom is the smallest block Bytes advises for huge pages.
const adviseFrom = 64 << 10

// Bytes returns n zero bytes, advised for huge pages where the platform has
// them. The advice covers every huge page the block touches, its
// neighbours' share of the first and the last too: advising only the pages
// wholly inside left a quarter of a large audit's state in small pages,
// 4 MiB string blocks for one, and took 5 to 10% longer. The advice does not
// change what any memory holds, so a neighbour loses nothing by it.
//
// Blocks from adviseFrom up are advised, not only those of a huge page or
// more: the huge page a smaller block lies in is then advised before most
// of it is touched, and the blocks and buffers allocated after it fill it.
// On the virtual machine the README measures on, a fault on a small page
// costs about 14 µs, as long as decoding 10 KB of ledger takes, and a
// 1M-record audit took 14,500 of them.
func Bytes(n int) []byte {
	b := make([]byte, n)
	if n >= adviseFrom {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		adviseRange(start&^(hugePage-1), (start+uintptr(n)+hugePage-1)&^(hugePage-1))
	}
	return b
}

// Block returns n zero values of T in memory from Bytes. T must hold no
// pointers: the garbage collector does not look inside the block.
func Block[T any](n int) []T {
	var zero T
	size := unsafe.Sizeof(zero)
	if n == 0 || size == 0 {
		return make([]T, n)
	}
	b := Bytes(int(size) * n)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Map returns n zero bytes from outside the Go heap, mapped from the kernel
// and advised for huge pages, where the platform allows and n is a huge
// page or more; otherwise it returns Bytes(n). mapped says which. The
// garbage collector never frees mapped memory: it goes back with Unmap.
//
// Memory that is freed and allocated over and over, as a growing hash
// index is, is better mapped: freed heap memory is handed out again, to
// anything, and cleared first. Measured on 10M records, an audit whose
// indexes were mapped took a few percent less time and 8-17 MB less memory.
//
// The mapping starts on a huge page and covers whole huge pages: the
// kernel backs only a huge page wholly inside an advised mapping with
// one, and left to itself it aligns no mapping (older kernels) or only one
// whose length is a multiple of a huge page (newer ones). An index of
// 13,107,200 bytes, mapped as asked, took 134 faults on small pages at its
// ends instead of 7.
func Map(n int) (b []byte, mapped bool) {
	// The bound keeps the lengths below from overflowing on 32 bits.
	if hugePage <= n && n <= math.MaxInt-2*hugePage {
		if b, ok := mmapAligned(wholePages(n)); ok {
			start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			adviseRange(start, start+uintptr(len(b)))
			return b[:n:n], true
		}
	}
	return Bytes(n), false
}

// wholePages rounds n up to whole huge pages: the length Map maps for n.
func wholePages(n int) int { return (n + hugePage - 1) &^ (hugePage - 1) }

// mmapAligned maps n bytes, a multiple of hugePage, starting on a huge
// page: it maps a huge page more and gives back what lies outside. (Were
// the kernel out of memory regions to split a mapping into, a part would
// stay mapped, unused: munmap's errors are not worth a failure.)
func mmapAligned(n int) ([]byte, bool) {
	b, ok := mmap(n + hugePage)
	if !ok {
		return nil, false
	}
	head, tail := trim(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	if head > 0 {
		munmap(b[:head])
	}
	munmap(b[head+n : head+n+tail])
	return b[head : head+n : head+n], true
}

// trim returns how many bytes a mapping of n+hugePage bytes at start has
// before its first huge page boundary (0 if start is on one), and how
// many after the n bytes from there (never none), whatever n is.
func trim(start uintptr) (head, tail int) {
	head = int((hugePage - start%hugePage) % hugePage)
	return head, hugePage - head
}

// Unmap gives back memory from Map, with the mapped Map returned: the
// whole of b as Map returned it, not a part. The caller must be done with
// b: a mapped b is gone afterwards, and reading it faults.
func Unmap(b []byte, mapped bool) {
	if mapped {
		munmap(unsafe.Slice(unsafe.SliceData(b), wholePages(len(b))))
		return
	}
	giveBack(b)
}

// MapBlock is Map for n zero values of T, which must hold no pointers.
func MapBlock[T any](n int) (block []T, mapped bool) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if n == 0 || size == 0 {
		return make([]T, n), false
	}
	b, mapped := Map(size * n)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n), mapped
}

// UnmapBlock is Unmap for a block from MapBlock.
func UnmapBlock[T any](block []T, mapped bool) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(block) == 0 || size == 0 {
		return
	}
	Unmap(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(block))), size*len(block)), mapped)
}

// giveBack gives the memory of b back to the kernel at once, where the
// platform allows it, rather than when the garbage collector and the
// runtime's scavenger get to it. The caller must be done with b: the
// pages read as zeros afterwards.
func giveBack(b []byte) {
	if len(b) < hugePage {
		return // not worth a system call
	}
	// Only whole pages inside b: the kernel would round a partial one up,
	// into memory that is not b's.
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	from := (start + page - 1) &^ (page - 1)
	to := (start + uintptr(len(b))) &^ (page - 1)
	if to > from {
		release(b[from-start : to-start])
	}
}

package hugemem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// adviseRange asks for huge pages for the addresses [from, to); failing
// that, the pages stay small. The range may reach past the caller's block
// into memory of the same mapping: the advice is only a hint.
func adviseRange(from, to uintptr) {
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, from, to-from, unix.MADV_HUGEPAGE)
}

// release drops the pages of b.
func release(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }

// mmap maps n bytes of zeroed private memory. Unlike unix.Mmap, it keeps
// no record of the mapping, so that munmap can give back any part of it.
func mmap(n int) ([]byte, bool) {
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	return unsafe.Slice((*byte)(p), n), true
}

// munmap unmaps b, all or part of memory from mmap.
func munmap(b []byte) { _ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b))) }

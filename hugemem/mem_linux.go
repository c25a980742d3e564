package hugemem

import "golang.org/x/sys/unix"

// adviseRange asks for huge pages for the addresses [from, to); failing
// that, the pages stay small. The range may reach past the caller's block
// into memory of the same mapping: the advice is only a hint.
func adviseRange(from, to uintptr) {
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, from, to-from, unix.MADV_HUGEPAGE)
}

// release drops the pages of b.
func release(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }

// mmap maps n bytes of zeroed private memory.
func mmap(n int) ([]byte, bool) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	return b, err == nil
}

// munmap unmaps memory from mmap.
func munmap(b []byte) { _ = unix.Munmap(b) }

package hugemem

import "golang.org/x/sys/unix"

// advise asks for huge pages; failing that, the pages stay small.
func advise(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }

// release drops the pages of b.
func release(b []byte) { _ = unix.Madvise(b, unix.MADV_DONTNEED) }

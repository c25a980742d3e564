//go:build !linux

package hugemem

func adviseRange(from, to uintptr) {}

func release([]byte) {}

func mmap(int) ([]byte, bool) { return nil, false }

func munmap([]byte) {}

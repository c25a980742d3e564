//go:build !linux

package hugemem

func adviseRange(from, to uintptr) {}

func release([]byte) {}

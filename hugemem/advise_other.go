//go:build !linux

package hugemem

func advise([]byte) {}

func release([]byte) {}

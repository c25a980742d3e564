// Package gctune sizes the garbage collector's headroom in bytes rather
// than as a share of the heap.
//
// An audit's heap is nearly all state that stays live to the end, and holds
// few pointers, so a collection costs little but frees little: the headroom
// GOGC leaves above the live heap is mostly memory the process holds for
// nothing. A fixed share is too much for a large heap (GOGC=100 doubles it)
// and too little for a small one (GOGC=5 on a 20 MB heap collects every
// megabyte). Tune sets GOGC after each collection so that the headroom is
// about a fixed number of bytes, or the heap that may hold pointers if that
// is more, within bounds.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Options bound the headroom.
type Options struct {
	Headroom   uint64 // bytes to leave above the live heap
	MinPercent int    // GOGC never goes below this (a large heap)...
	MaxPercent int    // ...nor above this (a small one)
}

// Percent is the GOGC that leaves o.Headroom above a live heap of live
// bytes, or scan bytes if more, within o's bounds. scan is how much of the
// heap may hold pointers: a collection costs in proportion to it, so a
// headroom smaller than it would make collections as frequent as they are
// costly, and a run that keeps much of it quadratic (explain keeping a
// million records of one operation, say).
func (o Options) Percent(live, scan uint64) int {
	if live == 0 {
		return o.MaxPercent
	}
	return int(min(max(max(o.Headroom, scan)*100/live, uint64(o.MinPercent)), uint64(o.MaxPercent)))
}

// Start tunes GOGC after every collection until stop is called, which
// restores the GOGC there was before.
func Start(o Options) (stop func()) {
	before := debug.SetGCPercent(o.MaxPercent)
	var (
		mu      sync.Mutex
		stopped bool
	)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"}}
	var arm func()
	arm = func() {
		// The sentinel is garbage at once: its cleanup runs after the
		// next collection, and arms the one after.
		sentinel := new([64]byte) // not a tiny allocation, whose cleanup may never run
		runtime.AddCleanup(sentinel, func(struct{}) {
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				return
			}
			metrics.Read(sample)
			if live, scan := sample[0].Value, sample[1].Value; live.Kind() == metrics.KindUint64 && scan.Kind() == metrics.KindUint64 {
				debug.SetGCPercent(o.Percent(live.Uint64(), scan.Uint64()))
			}
			arm()
		}, struct{}{})
	}
	arm()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		debug.SetGCPercent(before)
	}
}

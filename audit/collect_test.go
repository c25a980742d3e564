package audit

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestAuditorFreedAtOnce checks that an Auditor is freed by the first
// collection after it is garbage, merged or not, with records or without.
// A finalizer on the Auditor once kept each for a collection more, queued
// for the finalizer goroutine: in a process that audited over and over on
// busy cores (a fuzz test of the pipeline did), the queue grew faster than
// that goroutine ran it, to 16 GB and an OOM kill.
func TestAuditorFreedAtOnce(t *testing.T) {
	var freed atomic.Int32
	const n = 4
	func() {
		rec := Record{Type: Effect, OperationID: "op-1", Result: "present", EffectRef: "r"}
		a, b := New(nil), New(nil)
		b.Add(&rec)
		c := b.Sibling()
		d := New(nil)
		d.Add(&rec)
		Merge(c, d)
		for _, x := range []*Auditor{a, b, c, d} {
			runtime.AddCleanup(x, func(*atomic.Int32) { freed.Add(1) }, &freed)
		}
	}()
	runtime.GC()
	// Cleanups run on a goroutine of their own, soon after the
	// collection: ten seconds is ample, and a kept Auditor runs none.
	for deadline := time.Now().Add(10 * time.Second); freed.Load() < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := freed.Load(); got != n {
		t.Errorf("%d of %d Auditors freed by the first collection after they were garbage", got, n)
	}
}

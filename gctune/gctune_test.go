package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	o := Options{Headroom: 64 << 20, MinPercent: 5, MaxPercent: 100}
	for _, tt := range []struct {
		live, scan uint64
		want       int
	}{
		{0, 0, 100},
		{16 << 20, 1 << 20, 100},   // 400% would be more than the cap
		{128 << 20, 1 << 20, 50},   // 64 MB is half of it
		{640 << 20, 1 << 20, 10},   // a tenth
		{4 << 30, 1 << 20, 5},      // 1.5%, raised to the floor
		{640 << 20, 64 << 20, 10},  // as much to scan as the headroom
		{640 << 20, 320 << 20, 50}, // more to scan: the headroom grows with it
		{4 << 30, 2 << 30, 50},
		{1 << 30, 2 << 30, 100}, // capped
	} {
		if got := o.Percent(tt.live, tt.scan); got != tt.want {
			t.Errorf("Percent(%d MB live, %d MB to scan) = %d, want %d", tt.live>>20, tt.scan>>20, got, tt.want)
		}
	}
}

// TestStartTunesAndStops checks that GOGC follows the heap once a
// collection has run, and is restored by stop.
func TestStartTunesAndStops(t *testing.T) {
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	gogc := func() int {
		v := debug.SetGCPercent(100)
		debug.SetGCPercent(v)
		return v
	}
	// A headroom of one byte: GOGC comes down from the cap Start sets to
	// what the heap that may hold pointers calls for, a share of the live
	// heap of at most 100%, and not below the floor.
	stop := Start(Options{Headroom: 1, MinPercent: 7, MaxPercent: 300})
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
		if got := gogc(); got != 300 || time.Now().After(deadline) {
			if got < 7 || got > 100 {
				t.Errorf("GOGC = %d after collections, want from 7 to 100", got)
			}
			break
		}
	}
	stop()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("GOGC = %d after stop, want 77 as before", got)
	}
}

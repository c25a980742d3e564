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
		live uint64
		want int
	}{
		{0, 100},
		{16 << 20, 100}, // 400% would be more than the cap
		{128 << 20, 50}, // 64 MB is half of it
		{640 << 20, 10}, // a tenth
		{4 << 30, 5},    // 1.5%, raised to the floor
	} {
		if got := o.Percent(tt.live); got != tt.want {
			t.Errorf("Percent(%d MB) = %d, want %d", tt.live>>20, got, tt.want)
		}
	}
}

// TestStartTunesAndStops checks that GOGC follows the live heap once a
// collection has run, and is restored by stop.
func TestStartTunesAndStops(t *testing.T) {
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	// A headroom of one byte: any live heap gets the floor.
	stop := Start(Options{Headroom: 1, MinPercent: 7, MaxPercent: 300})
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups run on their own goroutine
		if got := debug.SetGCPercent(7); got == 7 || time.Now().After(deadline) {
			if got != 7 {
				t.Errorf("GOGC = %d after collections, want 7", got)
			}
			break
		}
	}
	stop()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("GOGC = %d after stop, want 77 as before", got)
	}
}

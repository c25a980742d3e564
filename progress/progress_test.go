package progress

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeAudit stands in for the audit's own atomic counters.
type fakeAudit struct {
	bytes, records, ops atomic.Int64
}

func (a *fakeAudit) counters(total int64) Counters {
	return Counters{Bytes: a.bytes.Load, Total: total, Records: a.records.Load, Ops: a.ops.Load}
}

// firstWrite wraps a bytes.Buffer and reports the first write, so tests wait
// for the line instead of sleeping. Only the reporter goroutine writes, and
// tests read buf only after stop has waited for that goroutine.
type firstWrite struct {
	buf  bytes.Buffer
	once sync.Once
	seen chan struct{}
}

func newFirstWrite() *firstWrite { return &firstWrite{seen: make(chan struct{})} }

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.seen) })
	return w.buf.Write(p)
}

func (w *firstWrite) wait(t *testing.T) {
	t.Helper()
	select {
	case <-w.seen:
	case <-time.After(5 * time.Second):
		t.Fatal("no progress line within 5s")
	}
}

// screen replays what a terminal would show on the current line, so tests
// check what a person sees rather than the exact control characters.
func screen(t *testing.T, out string) string {
	t.Helper()
	var line []byte
	col := 0
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '\r':
			col = 0
		case c == '\n':
			t.Fatalf("progress wrote a newline: %q", out)
		case c < ' ' || c > '~':
			t.Fatalf("progress wrote a non-printable byte %#x: %q", c, out)
		default:
			if col == len(line) {
				line = append(line, c)
			} else {
				line[col] = c
			}
			col++
		}
	}
	return string(line)
}

// recorder keeps each write apart, to check frames one by one.
type recorder struct {
	writes []string
	hook   func([]byte)
}

func (w *recorder) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	if w.hook != nil {
		w.hook(p)
	}
	return len(p), nil
}

var fast = Options{Delay: time.Millisecond, Interval: time.Millisecond}

func TestShowsAfterDelayAndClears(t *testing.T) {
	tests := []struct {
		name    string
		total   int64
		want    []string
		notWant []string
	}{
		{
			name:  "file of known size",
			total: 3 << 20,
			want:  []string{"50%", "1.50 MiB of 3.00 MiB, ", "B/s", "records/s", "42 operations"},
		},
		{
			name:    "stdin of unknown size",
			total:   -1,
			want:    []string{"1.50 MiB, ", "B/s", "records/s", "42 operations"},
			notWant: []string{"%", " of "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a fakeAudit
			a.bytes.Store(3 << 19)
			a.records.Store(1000)
			a.ops.Store(42)
			w := newFirstWrite()
			stop := Start(w, true, a.counters(tt.total), fast)
			w.wait(t)
			stop()

			out := w.buf.String()
			for _, s := range tt.want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q: %q", s, out)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(out, s) {
					t.Errorf("output has %q: %q", s, out)
				}
			}
			if got := strings.TrimRight(screen(t, out), " "); got != "" {
				t.Errorf("line left on screen after stop: %q", got)
			}
			if !strings.HasSuffix(out, "\r") {
				t.Errorf("cursor not back at the start of the line: %q", out)
			}
		})
	}
}

func TestRedrawOverwritesLongerLine(t *testing.T) {
	var a fakeAudit
	a.ops.Store(123_456)
	shorter := make(chan struct{})
	var once sync.Once
	w := &recorder{hook: func(p []byte) {
		// Runs on the reporter goroutine, between two polls.
		a.ops.Store(7)
		if bytes.Contains(p, []byte(" 7 operations")) {
			once.Do(func() { close(shorter) })
		}
	}}
	stop := Start(w, true, Counters{Ops: a.ops.Load}, fast)
	select {
	case <-shorter:
	case <-time.After(5 * time.Second):
		t.Fatal("no redraw with the new value within 5s")
	}
	stop()

	for i, f := range w.writes {
		if strings.Contains(f, " 7 operations") {
			got := strings.TrimRight(screen(t, strings.Join(w.writes[:i+1], "")), " ")
			if !strings.HasSuffix(got, " 7 operations") || strings.Contains(got, "123") {
				t.Errorf("shorter line leaves a tail: %q", got)
			}
			return
		}
	}
}

// TestNothingBeforeDelay runs on synctest's clock, so that a run just
// shorter than the delay writes nothing and one just longer does, whatever
// the machine's load.
func TestNothingBeforeDelay(t *testing.T) {
	for _, tc := range []struct {
		run   time.Duration
		wrote bool
	}{
		{time.Second - time.Nanosecond, false},
		{time.Second + time.Nanosecond, true},
	} {
		t.Run(tc.run.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var a fakeAudit
				var w bytes.Buffer
				stop := Start(&w, true, a.counters(100), Options{Delay: time.Second, Interval: time.Millisecond})
				time.Sleep(tc.run)
				synctest.Wait() // the reporter has done all it will at this time
				stop()
				if wrote := w.Len() > 0; wrote != tc.wrote {
					t.Errorf("a run of %v with a delay of 1s wrote %q; want something: %v", tc.run, w.String(), tc.wrote)
				}
			})
		})
	}
}

func TestDisabledWritesNothing(t *testing.T) {
	called := func() int64 {
		t.Error("counter read while progress is disabled")
		return 0
	}
	var w bytes.Buffer
	stop := Start(&w, false, Counters{Bytes: called, Total: 10, Records: called, Ops: called}, fast)
	time.Sleep(20 * time.Millisecond)
	stop()
	stop()
	if w.Len() != 0 {
		t.Errorf("disabled progress wrote %q", w.String())
	}
}

func TestStopIdempotent(t *testing.T) {
	var a fakeAudit
	drawn := make(chan struct{})
	var once sync.Once
	w := &recorder{hook: func([]byte) { once.Do(func() { close(drawn) }) }}
	stop := Start(w, true, a.counters(-1), fast)
	<-drawn

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(stop) // every concurrent caller returns only once the line is cleared
	}
	wg.Wait()
	stop()

	out := strings.Join(w.writes, "")
	if got := strings.TrimRight(screen(t, out), " "); got != "" {
		t.Errorf("line left on screen: %q", got)
	}
	if strings.Trim(w.writes[len(w.writes)-1], "\r ") != "" {
		t.Errorf("want a clear last; got %q", w.writes)
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	var a fakeAudit
	for _, opts := range []Options{fast, {Delay: time.Hour}} {
		var stops []func()
		for range 8 {
			stops = append(stops, Start(&bytes.Buffer{}, true, a.counters(-1), opts))
		}
		time.Sleep(5 * time.Millisecond)
		for _, stop := range stops {
			stop()
		}
	}
	// stop waits for the reporter to finish; the runtime may need a moment
	// to retire the goroutine after that.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after stop", before, n)
	}
}

func TestWidthLimit(t *testing.T) {
	var a fakeAudit
	a.bytes.Store(5 << 30)
	a.records.Store(1 << 30)
	a.ops.Store(1 << 25)
	w := newFirstWrite()
	stop := Start(w, true, a.counters(10<<30), Options{Delay: time.Millisecond, Interval: time.Millisecond, Width: 30})
	w.wait(t)
	stop()
	for _, f := range strings.Split(w.buf.String(), "\r") {
		if len(f) > 29 {
			t.Errorf("frame wider than 29 columns: %q", f)
		}
	}
}

type failingWriter struct {
	calls atomic.Int32
	first chan struct{}
}

func (w *failingWriter) Write([]byte) (int, error) {
	if w.calls.Add(1) == 1 {
		close(w.first)
	}
	return 0, errors.New("stderr closed")
}

// TestWriteErrorEndsProgressOnly runs on synctest's clock, so that twenty
// ticks do pass after the failed write, however busy the machine is.
func TestWriteErrorEndsProgressOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var a fakeAudit
		w := &failingWriter{first: make(chan struct{})}
		var draws atomic.Int32
		c := a.counters(-1)
		c.Ops = func() int64 { draws.Add(1); return 0 } // read once a draw
		stop := Start(w, true, c, fast)
		<-w.first
		before := draws.Load()
		time.Sleep(20 * fast.Interval)
		synctest.Wait()
		stop()
		if n := w.calls.Load(); n != 1 {
			t.Errorf("writes after a failed write: %d calls, want 1", n)
		}
		if ticks := draws.Load() - before; ticks < 20 {
			t.Errorf("%d draws after the failed write; want 20, one a tick", ticks)
		}
	})
}

func TestRateWindow(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var w window
	w.push(sample{at: at(0)})
	// A steady 1000 bytes/s for three seconds...
	for ms := 200; ms <= 3000; ms += 200 {
		w.push(sample{at: at(ms), bytes: int64(ms), records: int64(ms / 10)})
	}
	// ...then a stall: the rate must fall within the span, not decay
	// towards the average since the start.
	var b, r float64
	for ms := 3200; ms <= 5000; ms += 200 {
		b, r = w.push(sample{at: at(ms), bytes: 3000, records: 300})
	}
	if b != 0 || r != 0 {
		t.Errorf("rates two seconds into a stall = %v B/s, %v records/s; want 0", b, r)
	}
	if len(w.s) > int(rateSpan/(200*time.Millisecond))+2 {
		t.Errorf("window keeps %d samples; it should hold about one span", len(w.s))
	}
}

func TestOptionsDefaults(t *testing.T) {
	got := Options{Delay: -1, Interval: 0, Width: -3}.withDefaults()
	want := Options{Delay: DefaultDelay, Interval: DefaultInterval, Width: DefaultWidth}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("withDefaults (-want +got):\n%s", diff)
	}
}

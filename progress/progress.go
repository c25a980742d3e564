// Package progress shows how far a long audit has got, on one self-erasing
// line of the diagnostic stream.
//
// It is for people watching a terminal: the caller decides whether that is
// the case (stderr is a terminal, no --quiet) and passes enabled=false
// otherwise, so that logs and pipes never receive carriage returns. Nothing
// is shown before a delay, so short runs stay silent.
//
// It must never slow the audit or change its outcome: it polls counters the
// caller keeps (atomically) on a ticker instead of being called per record,
// and a failed write to the diagnostic stream only stops the progress line.
// It never writes to the report's stream.
package progress

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Defaults for the zero Options.
const (
	DefaultDelay    = time.Second
	DefaultInterval = 200 * time.Millisecond
	DefaultWidth    = 80
)

// rateSpan is how far back rates are measured. Long enough to smooth out
// chunked reads, short enough that a stalled stdin shows as a falling rate
// within a couple of seconds rather than a slowly decaying average.
const rateSpan = 2 * time.Second

// Counters are read on every tick from the reporter's goroutine, so each
// function must be safe to call concurrently with the audit (an atomic load).
// A nil function leaves its figure out of the line.
type Counters struct {
	Bytes   func() int64 // input bytes consumed so far (compressed bytes for compressed files)
	Total   int64        // total input bytes, or -1 when unknown; 0 is shown as unknown too
	Records func() int64 // records decoded so far
	Ops     func() int64 // distinct operations seen so far
}

// Options tune the reporter; zero fields take the defaults.
type Options struct {
	Delay    time.Duration // quiet period before the first line (DefaultDelay)
	Interval time.Duration // time between redraws (DefaultInterval)
	Width    int           // terminal columns (DefaultWidth); the line stays one column short so it never wraps
}

func (o Options) withDefaults() Options {
	if o.Delay <= 0 {
		o.Delay = DefaultDelay
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	return o
}

// Start begins reporting to w in the background and returns stop, which ends
// it, clears the line, and waits for the reporter goroutine to exit, so the
// report that follows starts at the beginning of an empty line. stop may be
// called more than once and from several goroutines; the caller must call it
// (defer it right after Start) or the goroutine runs on.
//
// With enabled false, Start does nothing, never calls the counters, and stop
// is a no-op.
func Start(w io.Writer, enabled bool, c Counters, opts Options) (stop func()) {
	if !enabled || w == nil {
		return func() {}
	}
	r := &reporter{w: w, c: c, opts: opts.withDefaults()}
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		r.run(done)
	}()
	var once sync.Once
	return func() {
		// Once blocks concurrent callers until the first has finished, so
		// every caller returns only after the line is cleared.
		once.Do(func() {
			close(done)
			<-exited
		})
	}
}

// reporter is owned by its goroutine; nothing in it is shared.
type reporter struct {
	w     io.Writer
	c     Counters
	opts  Options
	rates window
}

// run waits out the delay, then draws with progressbar: a bar of the bytes
// read (a spinner-free count when the total is unknown) followed by the
// record rate and the operations so far, refreshed on every tick, and
// cleared when done closes.
func (r *reporter) run(done <-chan struct{}) {
	r.rates.push(r.sample(time.Now()))

	delay := time.NewTimer(r.opts.Delay)
	defer delay.Stop()
	select {
	case <-done:
		return // a short run: nothing was ever written
	case <-delay.C:
	}
	// When both are ready select picks at random; prefer ending quietly.
	select {
	case <-done:
		return
	default:
	}

	total := r.c.Total
	if total <= 0 {
		total = -1 // unknown: progressbar shows a count
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(&stickyError{w: r.w}),
		progressbar.OptionSetWidth(barWidth),
		progressbar.OptionSetTheme(progressbar.ThemeASCII),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(false),
		progressbar.OptionShowDescriptionAtLineEnd(),
		// Drawing is paced by our ticker; a spinner goroutine of its own
		// would go on drawing after Clear.
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionThrottle(0),
	)
	tick := time.NewTicker(r.opts.Interval)
	defer tick.Stop()
	now := time.Now()
	for {
		r.draw(bar, now)
		select {
		case <-done:
			// Errors are dropped on purpose: progress is decoration, and a
			// closed or full stderr must not fail or stall the audit.
			_ = bar.Clear()
			_ = bar.Exit()
			return
		case now = <-tick.C:
		}
	}
}

func (r *reporter) sample(at time.Time) sample {
	return sample{at: at, bytes: call(r.c.Bytes), records: call(r.c.Records)}
}

func call(f func() int64) int64 {
	if f == nil {
		return 0
	}
	return f()
}

func (r *reporter) draw(bar *progressbar.ProgressBar, now time.Time) {
	cur := r.sample(now)
	byteRate, recordRate := r.rates.push(cur)
	line := render(frame{
		bytes: cur.bytes, total: r.c.Total, records: cur.records, ops: call(r.c.Ops),
		byteRate: byteRate, recordRate: recordRate,
		hasBytes: r.c.Bytes != nil, hasRecords: r.c.Records != nil, hasOps: r.c.Ops != nil,
	})
	// The whole line must fit: a line that wraps cannot be redrawn in place.
	if limit := max(r.opts.Width-1-barOverhead, 1); len(line) > limit {
		line = line[:limit]
	}
	bar.Describe(line)
	n := cur.bytes
	if r.c.Total > 0 {
		n = min(n, r.c.Total) // a file that grows while it is read
	}
	_ = bar.Set64(n)
	_ = bar.RenderBlank() // redraw even when only the description changed
}

// barWidth is the bar's own width; barOverhead the columns progressbar
// draws around the description ("100% [" + bar + "] " and a space).
const (
	barWidth    = 10
	barOverhead = len(" 100% [") + barWidth + len("]  ") + 2
)

// stickyError passes writes on until one fails, then fails them all: after
// a write error (stderr closed or full), progress goes quiet.
type stickyError struct {
	w   io.Writer
	err error
}

func (s *stickyError) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

type sample struct {
	at             time.Time
	bytes, records int64
}

// window keeps the samples of the last rateSpan so rates reflect recent
// speed, not the average since the start.
type window struct {
	s []sample
}

// push adds cur and returns the byte and record rates per second measured
// from the oldest sample kept.
func (w *window) push(cur sample) (byteRate, recordRate float64) {
	w.s = append(w.s, cur)
	// Drop samples while the next one is still at least rateSpan old, so the
	// oldest kept covers the whole span once there is that much history.
	i := 0
	for i+1 < len(w.s) && cur.at.Sub(w.s[i+1].at) >= rateSpan {
		i++
	}
	if i > 0 {
		w.s = append(w.s[:0], w.s[i:]...)
	}
	first := w.s[0]
	dt := cur.at.Sub(first.at).Seconds()
	if dt <= 0 {
		return 0, 0
	}
	return float64(cur.bytes-first.bytes) / dt, float64(cur.records-first.records) / dt
}

package cmd

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// tempFiles are the temporary files a run has made and not yet renamed
// into place or removed: when a signal stops the run, they are removed
// before it ends, so that an interrupted run leaves only what it found. A
// nil *tempFiles makes files without keeping track of them.
type tempFiles struct {
	mu      sync.Mutex
	files   map[string]*os.File // open until written; closed before removal
	stopped bool                // removeAll ran: the run is ending
}

// create makes a new file beside target, named after it, with the
// permissions os.Create gives (0666 less the umask), and keeps track of it.
// It is made and recorded under one lock, so a signal between the two
// cannot leave it behind.
func (t *tempFiles) create(target string) (*os.File, error) {
	if t != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.stopped {
			return nil, errors.New("stopped by a signal")
		}
	}
	dir, base := filepath.Split(target) // dir keeps its separator: not cleaned
	for {
		var random [6]byte
		_, _ = rand.Read(random[:])
		name := dir + "." + base + "." + hex.EncodeToString(random[:]) + ".tmp"
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if t != nil {
			if t.files == nil {
				t.files = map[string]*os.File{}
			}
			t.files[name] = f
		}
		return f, nil
	}
}

// forget stops keeping track of name, renamed or removed.
func (t *tempFiles) forget(name string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.files, name)
}

// removeAll removes every file left, and makes no more. A file is closed
// first only where an open file cannot be removed (Windows): elsewhere the
// run may be writing it still, and a write to a closed file would fail the
// run with an error of its own before the signal ends it.
func (t *tempFiles) removeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, f := range t.files {
		if os.Remove(name) != nil {
			f.Close()
			os.Remove(name)
		}
	}
	t.files, t.stopped = nil, true
}

// ending reports whether a signal is ending the run: Main then waits for it
// to, rather than report a failure the removal of the files caused.
func (t *tempFiles) ending() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopped
}

// onSignal removes t's files when SIGINT, SIGTERM or SIGHUP (a closed
// terminal) arrives, then ends the process by the same signal, so that its
// exit status says so as usual (130, 143, 129); the returned stop ends the
// watch. A signal the process was started with ignored, as background jobs
// of a script are with SIGINT, stays ignored.
//
// SIGPIPE is caught too, so that a write to a standard output whose reader
// has gone (| head) fails with EPIPE, as writes to other pipes do, rather
// than ending the process at once: the run then removes its files as on
// any failure, and Main ends it by SIGPIPE after all (endByBrokenPipe).
func (t *tempFiles) onSignal() (stop func()) {
	if !signal.Ignored(syscall.SIGPIPE) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	}
	ch := make(chan os.Signal, 1)
	var watched []os.Signal
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) {
			watched = append(watched, sig)
		}
	}
	if len(watched) == 0 {
		return func() {}
	}
	signal.Notify(ch, watched...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			t.removeAll()
			signal.Reset(watched...)
			if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
				time.Sleep(time.Second) // the signal ends the process
			}
			// Where the signal cannot be raised again (Windows), its
			// usual status. The one os.Exit below Main: the run is still
			// going on other goroutines, and nothing else can end it.
			code := 130
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// endByBrokenPipe ends the process by SIGPIPE, as a write to a closed pipe
// ends other commands (status 141 in the shell), once a run that failed
// with EPIPE on standard output or standard error has cleaned up: with
// SIGPIPE no longer caught, one more write there makes the Go runtime end
// the process so. It returns for any other error, and where SIGPIPE is
// ignored, as the process's parent asked: the failure is then reported as
// any other.
func endByBrokenPipe(err error) {
	var pe *fs.PathError
	if !errors.Is(err, syscall.EPIPE) || !errors.As(err, &pe) || signal.Ignored(syscall.SIGPIPE) {
		return
	}
	var broken *os.File
	switch pe.Path {
	case os.Stdout.Name():
		broken = os.Stdout
	case os.Stderr.Name():
		broken = os.Stderr
	default:
		return
	}
	signal.Reset(syscall.SIGPIPE)
	_, _ = broken.Write([]byte{'\n'}) // no reader: nothing is written
}

package cmd

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// tempFiles are the temporary files a run has made and not yet renamed
// into place or removed: when a signal stops the run, they are removed
// before it ends, so that an interrupted run leaves only what it found.
type tempFiles struct {
	mu    sync.Mutex
	names map[string]bool
}

func (t *tempFiles) add(name string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.names == nil {
		t.names = map[string]bool{}
	}
	t.names[name] = true
}

func (t *tempFiles) remove(name string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.names, name)
}

// removeAll removes every file left, and holds the lock so that none is
// added after.
func (t *tempFiles) removeAll() {
	t.mu.Lock()
	for name := range t.names {
		os.Remove(name)
	}
	t.names = nil
}

// onSignal removes t's files when SIGINT or SIGTERM arrives, then ends the
// process by the same signal, so that its exit status says so as usual
// (130, 143); the returned stop ends the watch.
func (t *tempFiles) onSignal() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			t.removeAll()
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
				time.Sleep(time.Second) // the signal ends the process
			}
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

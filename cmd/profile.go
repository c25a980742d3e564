package cmd

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfile writes a CPU profile of one run to a file: bench/pgo.sh makes
// the build's default.pgo from such runs, so that the compiler inlines and
// lays out the audit's hot paths as real runs take them.
type cpuProfile struct {
	path string
	file *os.File
}

// start begins profiling, when a file was asked for.
func (p *cpuProfile) start() error {
	if p.path == "" || p.file != nil {
		return nil
	}
	f, err := os.Create(p.path)
	if err != nil {
		return failure(fmt.Errorf("cpuprofile: %w", err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return failure(fmt.Errorf("cpuprofile: %s: %w", p.path, err))
	}
	p.file = f
	return nil
}

// stop ends profiling, if it began, and writes the profile out. It may be
// called more than once.
func (p *cpuProfile) stop() error {
	if p.file == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.file.Close()
	p.file = nil
	if err != nil {
		return failure(fmt.Errorf("cpuprofile: %w", err))
	}
	return nil
}

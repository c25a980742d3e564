package cmd

import (
	"bytes"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// Streams are a command's I/O: injected so tests can drive every command
// with buffers and a forced terminal on or off.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool
	// ErrWidth is the width in columns of a terminal on ErrOut (0 if
	// unknown); progress lines are cut to it. OutWidth is Out's; the
	// table fits it.
	ErrWidth, OutWidth int
	// Getenv reads the environment (NO_COLOR); tests pass their own.
	Getenv func(string) string

	// temps, when set, are removed if a signal stops the run (see Main).
	temps *tempFiles
}

// SystemStreams are the process's standard streams.
func SystemStreams() *Streams {
	s := &Streams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		InTTY:  isTerminal(os.Stdin),
		OutTTY: isTerminal(os.Stdout),
		ErrTTY: isTerminal(os.Stderr),
		Getenv: os.Getenv,
		temps:  &tempFiles{},
	}
	if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil {
		s.ErrWidth = w
	}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
		s.OutWidth = w
	}
	return s
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// TestStreams returns streams backed by buffers, no terminal and an empty
// environment.
func TestStreams(stdin string) (*Streams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &Streams{
		In:     bytes.NewBufferString(stdin),
		Out:    out,
		ErrOut: errOut,
		Getenv: func(string) string { return "" },
	}, out, errOut
}

// tableWidth is the width the table fits: a terminal's, and for anything
// else 0, the table's own default, so that a report piped or saved does not
// depend on the terminal it was made in.
func (s *Streams) tableWidth() int {
	if !s.OutTTY {
		return 0
	}
	return s.OutWidth
}

// colorOK says whether the report may use colour: only on a terminal, and
// never when NO_COLOR is set (no-color.org) or the terminal is dumb.
func (s *Streams) colorOK() bool {
	return s.OutTTY && s.Getenv("NO_COLOR") == "" && s.Getenv("TERM") != "dumb"
}

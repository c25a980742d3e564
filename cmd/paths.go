package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/effectaudit/effectaudit/input"
)

// refuseInput refuses a file that flag would write and that is also one
// of o's inputs (standard input included, when it is a file): writing it
// would destroy the input, as why says.
func (o *LedgerOptions) refuseInput(s *Streams, flag, path, why string) error {
	target, err := os.Stat(path)
	if err != nil || o.Example {
		return nil // not there yet (or the write will say why not), or no file is read
	}
	inputs := o.Files
	if len(inputs) == 0 {
		inputs = []string{input.Stdin}
	}
	for _, name := range inputs {
		var st os.FileInfo
		if name == input.Stdin {
			st = streamFile(s.In)
		} else {
			st, _ = os.Stat(name) // nil if it cannot be read: reading will say so
		}
		if st != nil && os.SameFile(target, st) {
			return usageError("--%s %s is also an input: %s", flag, path, why)
		}
	}
	return nil
}

// refuseOutput refuses path, which flag writes, when it is standard output
// or error, one of the inputs (why says what writing it would do) or a
// config file the run reads; "" is no file and passes.
func (o *LedgerOptions) refuseOutput(s *Streams, flag, path, why string) error {
	if err := refuseStreams(s, flag, path); err != nil || path == "" {
		return err
	}
	if err := o.refuseInput(s, flag, path, why); err != nil {
		return err
	}
	return o.refuseOwnFiles(flag, path)
}

// refuseOwnFiles refuses a file that flag would write and that is also the
// --policy or --map-file file: writing would replace what the run reads.
func (o *LedgerOptions) refuseOwnFiles(flag, path string) error {
	return refuseSame(flag, path, flagFile{"policy", o.Policy}, flagFile{"map-file", o.MapFile})
}

// flagFile is the file a flag names; "" when the flag is not given.
type flagFile struct{ flag, path string }

// refuseSame refuses path, which flag would write, when it is also one of
// the others' files.
func refuseSame(flag, path string, others ...flagFile) error {
	for _, other := range others {
		if other.path != "" && sameFile(path, other.path) {
			return usageError("--%s %s is also the --%s file: give each its own", flag, path, other.flag)
		}
	}
	return nil
}

// refuseStreams refuses path, which flag would write, when it is standard
// output ("-", or standard output's file by another name): the report's;
// or standard error's file (see refuseStderrFile).
func refuseStreams(s *Streams, flag, path string) error {
	if path == input.Stdin || path != "" && writesTo(s, path) {
		return usageError("--%s %s: standard output is the report's; name another file", flag, path)
	}
	return refuseStderrFile(s, flag, path)
}

// refuseStderrFile refuses path, which flag would write, when it is the
// regular file standard error writes to, by any name: a CI job's log,
// which writing the output there would empty or replace. (Standard error's
// pipe or terminal takes no harm: there the lines written join the
// messages.)
func refuseStderrFile(s *Streams, flag, path string) error {
	if path != "" && isStream(s.ErrOut, path, nil) {
		return usageError("--%s %s: standard error goes to that file; name another file", flag, path)
	}
	return nil
}

// writesTo reports whether standard output writes to the file at path.
func writesTo(s *Streams, path string) bool {
	return isStream(s.Out, path, []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/proc/thread-self/fd/1"})
}

// isStream reports whether path is the file that stream, a standard
// stream, writes to, such that writing to path harms what the stream
// writes: when that file keeps what is written (a regular file), or, if
// names are given, is a pipe that path names as the stream itself (one of
// names) or by the name of a FIFO. /dev/null, a terminal, or the other
// stream sharing a pipe with it (/dev/stderr) take no harm.
func isStream(stream any, path string, names []string) bool {
	out, ok := streamAt(stream, path)
	if !ok {
		return false
	}
	if out.Mode().IsRegular() || names == nil || out.Mode()&os.ModeCharDevice != 0 {
		return out.Mode().IsRegular()
	}
	clean := filepath.Clean(path)
	descriptor := strings.HasPrefix(clean, "/dev/") || strings.HasPrefix(clean, "/proc/")
	return slices.Contains(names, clean) || !descriptor
}

// refuseOwnStreams refuses path, which the run would read (what names it
// in the message: an input, or a flag and its value), when it is the
// regular file or the pipe that standard output or standard error writes
// to, by any name: reading its own pipe, the run would wait for ever for
// itself to close it, and the file is one it writes (the report, or a
// job's log), which a shell's > has just emptied (audit x.ndjson >
// x.ndjson would pass on no records). A terminal is read as any terminal
// is, until end of file is typed, and /dev/null reads as empty.
func refuseOwnStreams(s *Streams, what, path string) error {
	switch {
	case path == "" || path == input.Stdin:
	case isStreamFile(s.Out, path):
		return usageError("%s: that is standard output, which this run writes to; name another file", what)
	case isStreamFile(s.ErrOut, path):
		return usageError("%s: that is standard error, which this run writes to; name another file", what)
	}
	return nil
}

// isStreamFile reports whether path names the regular file or the pipe
// that stream, a standard stream, is.
func isStreamFile(stream any, path string) bool {
	out, ok := streamAt(stream, path)
	return ok && (out.Mode().IsRegular() || out.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0)
}

// streamAt returns what file stream, a standard stream, is, and whether
// path names that file.
func streamAt(stream any, path string) (os.FileInfo, bool) {
	out := streamFile(stream)
	st, err := os.Stat(path)
	return out, out != nil && err == nil && os.SameFile(out, st)
}

// streamFile returns what file a standard stream is, or nil when it is no
// file (a test's buffer) or cannot be told.
func streamFile(stream any) os.FileInfo {
	if f, ok := stream.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			return st
		}
	}
	return nil
}

// sameFile reports whether paths a and b name one file: the same file if
// both exist, else the same absolute path once links are followed (a link
// to a file not made yet names that file).
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		// A character device (/dev/null, a terminal) keeps nothing to lose.
		return os.SameFile(sa, sb) && sa.Mode()&os.ModeCharDevice == 0
	}
	absA, errA := filepath.Abs(replaced(a))
	absB, errB := filepath.Abs(replaced(b))
	return errA == nil && errB == nil && absA == absB
}

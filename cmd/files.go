package cmd

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// create opens name for writing through a buffer (or uses def when name is
// empty); the returned close flushes, closes and reports either failure as
// an exit-2 error.
func create(name string, def io.Writer) (io.Writer, func() error, error) {
	w, closer := def, func() error { return nil }
	if name != "" {
		f, err := os.Create(name)
		if err != nil {
			return nil, nil, err
		}
		w, closer = f, f.Close
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	return bw, func() error {
		if err := errors.Join(bw.Flush(), closer()); err != nil {
			return failure(fmt.Errorf("writing %s: %w", cmp.Or(name, "output"), err))
		}
		return nil
	}, nil
}

// output is a file a command writes whole: it is written under a temporary
// name beside name and renamed over name only once complete, so that a run
// that fails or is stopped part way leaves the earlier file as it was (a
// baseline above all) and never a truncated one that looks whole. The
// temporary file is made when the output is opened, before the run's work,
// so that a directory that cannot be written to is found at once.
type output struct {
	*bufio.Writer
	name  string
	tmp   *os.File // nil when writing to the default writer
	temps *tempFiles
	done  bool
}

// createOutput opens name, or def when name is "" (no file to replace);
// the temporary file is one of temps while it exists.
func createOutput(name string, def io.Writer, temps *tempFiles) (*output, error) {
	o := &output{name: name, temps: temps}
	if name == "" {
		o.Writer = bufio.NewWriterSize(def, 256<<10)
		return o, nil
	}
	target := name
	if resolved, err := filepath.EvalSymlinks(name); err == nil {
		target = resolved // replace the file a link names, not the link
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", name)
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = &fs.PathError{Op: "create", Path: name, Err: pe.Err} // not the temporary name
		}
		return nil, err
	}
	temps.add(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		o.tmp = tmp
		o.discard()
		return nil, err
	}
	o.name, o.tmp = target, tmp
	o.Writer = bufio.NewWriterSize(tmp, 256<<10)
	return o, nil
}

// commit flushes the output and puts the file in place. Any failure is an
// exit-2 error naming the file, and leaves the earlier file as it was.
func (o *output) commit() error {
	if o.done {
		return nil
	}
	o.done = true
	err := o.Flush()
	if o.tmp != nil {
		err = errors.Join(err, o.tmp.Close())
		if err == nil {
			err = os.Rename(o.tmp.Name(), o.name)
		}
		if err != nil {
			os.Remove(o.tmp.Name())
		}
		o.temps.remove(o.tmp.Name())
	}
	if err != nil {
		return failure(fmt.Errorf("writing %s: %w", cmp.Or(o.name, "output"), err))
	}
	return nil
}

// discard drops the output unless it was committed: the earlier file, if
// any, stays.
func (o *output) discard() {
	if o.done {
		return
	}
	o.done = true
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.temps.remove(o.tmp.Name())
	}
}

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
	"slices"
)

// create opens name for writing through a buffer, in place: the rejects
// file it is for is emptied as the run starts (see refuseBaselineFiles). The returned
// close flushes, closes and reports either failure as an exit-2 error.
func create(name string) (io.Writer, func() error, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, nil, err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	return bw, func() error {
		if err := errors.Join(bw.Flush(), f.Close()); err != nil {
			return failure(fmt.Errorf("writing %s: %w", name, err))
		}
		return nil
	}, nil
}

// output is a file a command writes whole: a regular file is written under
// a temporary name beside it and renamed over it only once complete, so
// that a run that fails or is stopped part way leaves the earlier file as it
// was (a baseline above all) and never a truncated one that looks whole.
// The temporary file is made when the output is opened, before the run's
// work, so that a directory that cannot be written to is found at once. A
// name that is not a regular file (/dev/null, a pipe, /dev/fd/N) is written
// to directly, as there is nothing there to keep.
type output struct {
	*bufio.Writer
	name  string   // the file put in place
	file  *os.File // what is written: the temporary file, or name itself
	tmp   string   // the temporary file's name; "" when writing name itself
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
	fi, err := os.Stat(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err // a loop of links, a directory that cannot be read
	}
	if err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		o.file = f
		o.Writer = bufio.NewWriterSize(f, 256<<10)
		return o, nil
	}
	target := replaced(name)
	f, err := temps.create(target)
	if err != nil {
		return nil, tempCreateError(name, target, err)
	}
	o.name, o.file, o.tmp = target, f, f.Name()
	if fi != nil {
		// The file replaced keeps its permissions; a new one gets the
		// umask's, as os.Create gives.
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			o.discard()
			return nil, err
		}
	}
	o.Writer = bufio.NewWriterSize(f, 256<<10)
	return o, nil
}

// tempCreateError words a failure to create the temporary file for name,
// which replaces target, in terms of name: the temporary file's name means
// nothing to a user. Permission is the directory's, not the file's, and a
// writable file in a directory that is not is otherwise a puzzle.
func tempCreateError(name, target string, err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	if errors.Is(pe.Err, fs.ErrPermission) {
		return fmt.Errorf("create %s: %w (it is written to a new file in %s, then renamed over it, so that directory must be writable)",
			name, pe.Err, filepath.Dir(target))
	}
	return &fs.PathError{Op: "create", Path: name, Err: pe.Err}
}

// replaced returns the file that writing name replaces: the file a symbolic
// link names (even one that does not exist yet), not the link. Paths are
// joined without cleaning them, and the directory resolved at the end as
// the kernel resolves it, since ".." after a link climbs from where the
// link leads, not from the path as written.
func replaced(name string) string {
	for range 40 { // as many links as Linux follows
		fi, err := os.Lstat(name)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break
		}
		to, err := os.Readlink(name)
		if err != nil {
			break
		}
		if !filepath.IsAbs(to) {
			dir, _ := filepath.Split(name)
			to = dir + to
		}
		name = to
	}
	dir, base := filepath.Split(name)
	if dir == "" {
		return name
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return name
	}
	return filepath.Join(real, base)
}

// finish flushes and closes the output, without putting it in place. Any
// failure is an exit-2 error naming the file, and the output is discarded.
func (o *output) finish() error {
	err := o.Flush()
	if o.file != nil {
		err = errors.Join(err, o.file.Close())
		o.file = nil
	}
	if err != nil {
		o.discard()
		return failure(fmt.Errorf("writing %s: %w", cmp.Or(o.name, "output"), err))
	}
	return nil
}

// commit finishes the outputs, then puts each in place: none is renamed
// unless every one was written whole. A nil output is none.
func commit(outs ...*output) error {
	outs = slices.DeleteFunc(outs, func(o *output) bool { return o == nil || o.done })
	for _, o := range outs {
		if err := o.finish(); err != nil {
			return err
		}
	}
	for _, o := range outs {
		o.done = true
		if o.tmp == "" {
			continue
		}
		err := os.Rename(o.tmp, o.name)
		if err != nil {
			os.Remove(o.tmp)
		}
		o.temps.forget(o.tmp)
		if err != nil {
			return failure(fmt.Errorf("writing %s: %w", o.name, err))
		}
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
	if o.file != nil {
		o.file.Close()
		o.file = nil
	}
	if o.tmp != "" {
		os.Remove(o.tmp)
		o.temps.forget(o.tmp)
	}
}

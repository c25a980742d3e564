package cmd

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
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

// Package ingest streams inputs through the NDJSON reader and the record
// decoder into an audit. It owns the bookkeeping that ties the two together:
// positions, invalid lines, rejects and line accounting.
package ingest

import (
	"errors"
	"fmt"
	"io"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

// Options configure how inputs are read.
type Options struct {
	MaxLineBytes int       // 0 means ndjson.DefaultMaxLineBytes
	Rejects      io.Writer // if set, every invalid line is written here verbatim
	// Record, if set, sees every valid record after the audit has; explain
	// uses it to keep one operation's records.
	Record func(rec *audit.Record, raw []byte)
}

// Input is one named stream of NDJSON.
type Input struct {
	Name string
	R    io.Reader
}

// ReadError is a failure to read an input (as opposed to invalid content):
// the audit cannot complete.
type ReadError struct {
	Input string
	Line  int
	Err   error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("%s: reading line %d: %v", e.Input, e.Line, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// Read feeds in, the index-th input, into a.
func Read(a *audit.Auditor, in Input, index int, opts Options) error {
	r := ndjson.NewReader(in.R)
	r.MaxLineBytes = opts.MaxLineBytes
	var dec audit.Decoder
	defer func() { a.AddLines(r.Lines(), r.BlankLines()) }()
	for {
		line, err := r.Read()
		if err == io.EOF {
			return nil
		}
		var raw []byte
		var rec audit.Record
		if err == nil {
			raw = line.Raw
			rec, err = dec.Decode(line.Members, audit.Position{Input: index, Line: line.Line})
			if err == nil {
				a.Add(&rec)
				if opts.Record != nil {
					opts.Record(&rec, raw)
				}
				continue
			}
			err = &ndjson.ParseError{Line: line.Line, Offset: line.Offset, Err: err}
		} else {
			raw = r.RawLine()
		}
		var pe *ndjson.ParseError
		if !errors.As(err, &pe) {
			return &ReadError{Input: in.Name, Line: r.Lines() + 1, Err: err}
		}
		a.AddInvalid(audit.Invalid{
			Input: in.Name,
			Line:  pe.Line,
			Error: Reason(pe),
			Pos:   audit.Position{Input: index, Line: pe.Line},
		})
		if opts.Rejects != nil {
			if err := writeLine(opts.Rejects, raw); err != nil {
				return fmt.Errorf("writing rejects: %w", err)
			}
		}
	}
}

// Reason renders a line's error without its position, which the caller
// prints as input:line.
func Reason(pe *ndjson.ParseError) string {
	if pe.Column > 0 {
		return fmt.Sprintf("column %d: %v", pe.Column, pe.Err)
	}
	return pe.Err.Error()
}

func writeLine(w io.Writer, line []byte) error {
	if _, err := w.Write(line); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}

// Package report prints an audit.Report in one of the formats of SPEC.md's
// Reports section: a table for people, a JSON document and NDJSON lines for
// machines, JUnit XML for CI test views and Markdown for step summaries and
// pull-request comments. WriteAnnotations writes GitHub Actions annotations.
//
// Every format sits behind the one-method Printer interface and writes only
// to the writer it is given; every write error, a broken pipe or a full disk,
// is returned, because a report that was silently cut must not pass a gate.
// Printers never change the report and never decide an exit code.
package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/effectaudit/effectaudit/audit"
)

// Printer writes a report in one format.
type Printer interface {
	Print(w io.Writer, rep *audit.Report) error
}

// Options tune the printers; formats ignore the options that do not concern
// them.
type Options struct {
	All   bool // table: list every healthy operation even when there are more than 100
	Color bool // table: colour labels (the caller decides: only on a TTY and never with NO_COLOR)
	// Width is the table's width in columns, which NEXT ACTION wraps to
	// fit: a terminal's (the caller decides: only on a TTY). 0 is 120,
	// for a file, a pipe or a CI log, whose width nobody knows.
	Width int

	// FailOn is the --fail-on list: junit marks the operations it names as
	// failed test cases, markdown lists them even when healthy, and the
	// table never folds a healthy one it names. Nil fails none.
	FailOn []string
}

// formats lists the names New accepts; the first is the default.
var formats = []string{"table", "json", "ndjson", "junit", "markdown"}

// Formats returns the names New accepts, the first the default: a copy the
// caller may change.
func Formats() []string { return slices.Clone(formats) }

// New returns the printer of the named format.
func New(format string, opts Options) (Printer, error) {
	switch format {
	case "table":
		return &tablePrinter{opts: opts}, nil
	case "json":
		return jsonPrinter{}, nil
	case "ndjson":
		return ndjsonPrinter{}, nil
	case "junit":
		return &junitPrinter{gate: newGate(opts.FailOn)}, nil
	case "markdown":
		return markdownPrinter{gate: newGate(opts.FailOn)}, nil
	}
	return nil, fmt.Errorf("unknown report format %q: want one of %s", format, strings.Join(formats, ", "))
}

// bufferSize is the size of the buffer every printer writes through: large
// enough that a report of millions of operations costs few system calls.
const bufferSize = 64 << 10

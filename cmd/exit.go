package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/effectaudit/effectaudit/report"
)

// Exit statuses, as SPEC's Command behaviour defines them.
const (
	ExitOK     = 0 // the audit completed and nothing matched --fail-on
	ExitFailOn = 1 // the audit completed and an operation matched --fail-on
	ExitError  = 2 // usage error, unreadable input, or invalid records in strict mode
)

// exitError carries an exit status with the error that caused it. It is the
// only way a command chooses a status; Main resolves it once.
type exitError struct {
	code  int
	err   error // nil when there is nothing more to print
	usage bool  // print a usage hint
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is a mistake on the command line: exit 2 with a hint.
func usageError(format string, args ...any) error {
	return &exitError{code: ExitError, err: fmt.Errorf(format, args...), usage: true}
}

// failure is an audit or I/O failure: exit 2.
func failure(err error) error { return &exitError{code: ExitError, err: err} }

// joinFailures adds later, a failure that followed err, to err: the run
// fails with exit 2 and both messages, or later's alone when err is nil or
// has already been printed (a silentExit).
func joinFailures(err, later error) error {
	var msgs []error
	for _, e := range []error{err, later} {
		var ee *exitError
		switch {
		case e == nil:
		case !errors.As(e, &ee):
			msgs = append(msgs, e)
		case shown(e, ee) != nil:
			msgs = append(msgs, shown(e, ee))
		}
	}
	return failure(errors.Join(msgs...))
}

// silentExit ends with code; whatever had to be said has been printed.
func silentExit(code int) error { return &exitError{code: code} }

// shown is what is printed of err, which holds ee: ee's error, with any
// context wrapped around ee (ee's own text is its error's), or nothing
// when ee has nothing more to say.
func shown(err error, ee *exitError) error {
	switch {
	case ee.err == nil:
		return nil
	case err == error(ee):
		return ee.err
	}
	return err
}

// exitCode maps err to a status and prints it. A nil error is success.
func exitCode(err error, stderr io.Writer, cmdPath string) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// Anything cobra reports itself (unknown command, bad flag) is usage.
		ee = &exitError{code: ExitError, err: err, usage: true}
	}
	if msg := shown(err, ee); msg != nil {
		// Messages quote inputs and their names (a payload, a policy
		// file, a path): each line is sanitized as the table is, so that
		// none moves the cursor or ends a line early, with a CR, nor is a
		// workflow command in a CI log.
		lines := strings.Split("effectaudit: "+msg.Error(), "\n")
		for i, l := range lines {
			lines[i] = report.Sanitize(l)
		}
		fmt.Fprintf(stderr, "%s\n", strings.Join(lines, "\n"))
		if ee.usage {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmdPath)
		}
	}
	return ee.code
}

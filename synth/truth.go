package synth

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ErrTruth reports a truth file that Truth cannot read back.
var ErrTruth = errors.New("synth: invalid truth")

// Truth reads a truth file written by Generate: it returns the label of every
// operation and the operations in file order (the order of their first record
// in the ledger). A malformed line, an unknown label or an operation listed
// twice is an error naming the line.
func Truth(r io.Reader) (map[string]string, []string, error) {
	labels := make(map[string]string)
	var order []string
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		// ReadBytes, not bufio.Scanner, which stops at a line past 64 KiB
		// in a way that looks like the end of the file.
		raw, err := br.ReadBytes('\n')
		if len(raw) > 0 {
			if perr := parseTruthLine(bytes.TrimRight(raw, "\r\n"), labels, &order); perr != nil {
				return nil, nil, fmt.Errorf("%w: line %d: %w", ErrTruth, line, perr)
			}
		}
		if errors.Is(err, io.EOF) {
			return labels, order, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("synth: read truth: line %d: %w", line, err)
		}
	}
}

func parseTruthLine(raw []byte, labels map[string]string, order *[]string) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var t struct {
		OperationID *string `json:"operationId"`
		Label       *string `json:"label"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one value on the line")
	}
	switch {
	case t.OperationID == nil || *t.OperationID == "":
		return errors.New("missing operationId")
	case t.Label == nil:
		return errors.New("missing label")
	case !knownLabel(*t.Label):
		return fmt.Errorf("unknown label %q", *t.Label)
	}
	if _, dup := labels[*t.OperationID]; dup {
		return fmt.Errorf("operation %q listed twice", *t.OperationID)
	}
	labels[*t.OperationID] = *t.Label
	*order = append(*order, *t.OperationID)
	return nil
}

func knownLabel(l string) bool { return slices.Contains(labelNames[:], l) }

package cmd

import (
	"fmt"
	"io"
	"os"

	"github.com/effectaudit/effectaudit/fieldmap"
	"github.com/effectaudit/effectaudit/policy"
)

// loadFields builds the field mapping of --map-file and --map (which wins);
// nil when there is none.
func loadFields(specs []string, file string) (*fieldmap.Map, error) {
	var m *fieldmap.Map
	if file != "" {
		data, err := readConfig("map file", file)
		if err != nil {
			return nil, err
		}
		if m, err = fieldmap.Load(file, data); err != nil {
			// Named, as a ledger's errors have the same file:line form.
			return nil, usageError("map file %v", err)
		}
	}
	if len(specs) > 0 {
		flags, err := fieldmap.Parse(specs)
		if err != nil {
			return nil, usageError("%v", err)
		}
		m = m.Merge(flags)
	}
	if m == nil || m.Len() == 0 {
		return nil, nil
	}
	return m, nil
}

// maxConfigBytes bounds what --policy and --map-file read: each is a few
// lines of YAML, and a ledger or a device named by mistake must not be read
// whole into memory before the first line is found wrong.
const maxConfigBytes = 1 << 20

// readConfig reads the --policy or --map-file file name; what names the
// file's kind in errors.
func readConfig(what, name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, failure(fmt.Errorf("%s: %w", what, err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, failure(fmt.Errorf("%s: %w", what, err))
	}
	if len(data) > maxConfigBytes {
		return nil, usageError("%s %s: larger than %d MiB; it is a few lines of YAML", what, name, maxConfigBytes>>20)
	}
	return data, nil
}

// loadPolicy reads the --policy file, or returns the built-in policy.
func loadPolicy(name string) (*policy.Policy, error) {
	if name == "" {
		return policy.Default(), nil
	}
	data, err := readConfig("policy", name)
	if err != nil {
		return nil, err
	}
	p, err := policy.Parse(name, data)
	if err != nil {
		// Named, as a ledger's errors have the same file:line form.
		return nil, usageError("policy %v", err)
	}
	return p, nil
}

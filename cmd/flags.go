package cmd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// enumFlag is a flag whose value must be one of a fixed set, checked when
// the flag is parsed so the error can list the allowed values.
type enumFlag struct {
	value   string
	allowed []string
}

func newEnumFlag(def string, allowed ...string) *enumFlag {
	return &enumFlag{value: def, allowed: allowed}
}

func (f *enumFlag) String() string { return f.value }
func (f *enumFlag) Type() string   { return "string" }

func (f *enumFlag) Set(v string) error {
	if !slices.Contains(f.allowed, v) {
		return fmt.Errorf("%q is not one of %s", v, strings.Join(f.allowed, ", "))
	}
	f.value = v
	return nil
}

// listFlag is a comma-separated list of names from a fixed set; the single
// word "none" makes it empty.
type listFlag struct {
	values  []string
	allowed []string
}

func newListFlag(def []string, allowed []string) *listFlag {
	return &listFlag{values: def, allowed: allowed}
}

func (f *listFlag) String() string {
	if len(f.values) == 0 {
		return "none"
	}
	return strings.Join(f.values, ",")
}

func (f *listFlag) Type() string { return "list" }

func (f *listFlag) Set(v string) error {
	if strings.TrimSpace(v) == "none" {
		f.values = nil
		return nil
	}
	var out []string
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(f.allowed, name) {
			return fmt.Errorf("%q is not one of none, %s", name, strings.Join(f.allowed, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return fmt.Errorf("empty list; use none to never fail")
	}
	f.values = out
	return nil
}

// sizeFlag is a byte count written as a number with an optional binary unit
// (KiB, MiB, GiB) or plain bytes.
type sizeFlag struct{ n int }

func (f *sizeFlag) Type() string { return "size" }

func (f *sizeFlag) String() string {
	switch {
	case f.n%(1<<30) == 0 && f.n > 0:
		return fmt.Sprintf("%dGiB", f.n>>30)
	case f.n%(1<<20) == 0 && f.n > 0:
		return fmt.Sprintf("%dMiB", f.n>>20)
	case f.n%(1<<10) == 0 && f.n > 0:
		return fmt.Sprintf("%dKiB", f.n>>10)
	}
	return strconv.Itoa(f.n)
}

func (f *sizeFlag) Set(v string) error {
	units := []struct {
		suffix string
		mult   int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	num, mult := v, 1
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			num, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 1 || int64(n) > (1<<31)/int64(mult) {
		return fmt.Errorf("%q is not a size such as 65536, 64KiB, 16MiB or 1GiB", v)
	}
	f.n = n * mult
	return nil
}

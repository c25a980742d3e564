package cmd

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// offered is a flag value that takes words from a fixed set, which shell
// completion offers.
type offered interface{ offers() []string }

// offerWords registers shell completion for each flag of c whose value is
// offered, so that no such flag can be left out. It must run after the
// flags are defined: cobra refuses to complete a flag it does not know,
// which is a mistake in this package, not in a command line.
func offerWords(c *cobra.Command) {
	c.Flags().VisitAll(func(fl *pflag.Flag) {
		o, ok := fl.Value.(offered)
		if !ok {
			return
		}
		if err := c.RegisterFlagCompletionFunc(fl.Name, cobra.FixedCompletions(o.offers(), cobra.ShellCompDirectiveNoFileComp)); err != nil {
			panic(fmt.Sprintf("completion of --%s: %v", fl.Name, err))
		}
	})
}

// enumFlag is a flag whose value must be one of a fixed set, checked when
// the flag is parsed so the error can list the allowed values.
type enumFlag struct {
	value   string
	allowed []string
}

func newEnumFlag(def string, allowed ...string) *enumFlag {
	return &enumFlag{value: def, allowed: allowed}
}

func (f *enumFlag) String() string   { return f.value }
func (f *enumFlag) offers() []string { return f.allowed }
func (f *enumFlag) Type() string     { return "string" }

func (f *enumFlag) Set(v string) error {
	if !slices.Contains(f.allowed, v) {
		return fmt.Errorf("%q is not one of %s", v, strings.Join(f.allowed, ", "))
	}
	f.value = v
	return nil
}

// listFlag is a comma-separated list of names from a fixed set; the single
// word "none" makes it empty. The first use replaces the default and each
// later one adds to it, as pflag's string slices do, so that
// --fail-on duplicate --fail-on uncertain gates on both.
type listFlag struct {
	values  []string
	allowed []string
	set     bool // given on the command line
	none    bool // given as none
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

func (f *listFlag) offers() []string { return append([]string{"none"}, f.allowed...) }

func (f *listFlag) Set(v string) error {
	var names []string
	none := false
	for _, name := range strings.Split(v, ",") {
		switch name = strings.TrimSpace(name); {
		case name == "":
		case name == "none":
			none = true
		case !slices.Contains(f.allowed, name):
			return fmt.Errorf("%q is not one of none, %s", name, strings.Join(f.allowed, ", "))
		default:
			names = append(names, name)
		}
	}
	switch {
	case none && (len(names) > 0 || f.set && !f.none):
		return fmt.Errorf("none cannot be combined with names")
	case !none && len(names) == 0:
		return fmt.Errorf("empty list; use none to never fail")
	case !none && f.none:
		return fmt.Errorf("names cannot be combined with none")
	}
	if !f.set {
		f.set, f.none, f.values = true, none, nil
	}
	for _, name := range names {
		if !slices.Contains(f.values, name) {
			f.values = append(f.values, name)
		}
	}
	return nil
}

// sizeFlag is a byte count from 1 byte to maxSize, written as a number with
// an optional binary unit (KiB, MiB, GiB) or plain bytes.
type sizeFlag struct{ n int }

const maxSize = 2 << 30

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
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("%q is not a size such as 65536, 64KiB, 16MiB or 1GiB", v)
	case err == nil && n < 1 || err != nil && strings.HasPrefix(strings.TrimSpace(num), "-"):
		return fmt.Errorf("%q is below the smallest size, 1 byte", v)
	case err != nil || int64(n) > maxSize/int64(mult):
		return fmt.Errorf("%q is above the largest size, 2GiB", v)
	}
	f.n = n * mult
	return nil
}

// refuseEmptyNames refuses a file flag given as "" and an empty FILE
// argument: in a script, an unset variable gives one, and taking it for a
// flag not given, or for standard input, would change silently what the
// command does (a gate without its baseline, say).
func refuseEmptyNames(f *pflag.FlagSet, args []string, flags ...string) error {
	for _, name := range flags {
		if fl := f.Lookup(name); fl != nil && fl.Changed && fl.Value.String() == "" {
			return usageError("--%s: empty file name", name)
		}
	}
	if slices.Contains(args, "") {
		return usageError("empty file name among the arguments")
	}
	return nil
}

// strconvError matches what pflag passes on from strconv for a bad boolean
// or number: "strconv.ParseBool: parsing "maybe": invalid syntax".
var strconvError = regexp.MustCompile(`strconv\.Parse(Bool|Int|Uint|Float): parsing "(?:[^"\\]|\\.)*": (invalid syntax|value out of range)`)

// plainFlagError rewords pflag's errors for booleans and numbers, which end
// in strconv's own message, into what the value should be.
func plainFlagError(err error) error {
	msg := err.Error()
	m := strconvError.FindStringSubmatchIndex(msg)
	if m == nil {
		return err
	}
	kind, why := msg[m[2]:m[3]], msg[m[4]:m[5]]
	want := map[string]string{"Bool": "want true or false", "Int": "want a whole number", "Uint": "want a whole number, 0 or more", "Float": "want a number"}[kind]
	if why == "value out of range" {
		want = "out of range"
	}
	return errors.New(msg[:m[0]] + want + msg[m[1]:])
}

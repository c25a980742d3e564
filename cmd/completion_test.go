package cmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestEveryWordFlagCompletes asks shell completion for the values of every
// flag that takes words from a fixed set, in every command, and wants
// exactly the words listed here: a flag left out of offerWords, or
// registered before it exists, offers files instead, and a flag not listed
// here fails the test until it is.
func TestEveryWordFlagCompletes(t *testing.T) {
	words := map[string][]string{
		"audit --format":         {"table", "json", "ndjson", "junit", "markdown"},
		"audit --fail-on":        append([]string{"none"}, audit.GateNames()...),
		"audit --annotations":    {"github"},
		"audit --input-format":   {"auto", "ndjson", "otlp"},
		"explain --format":       {"table", "json"},
		"explain --input-format": {"auto", "ndjson", "otlp"},
	}
	s, _, _ := TestStreams("")
	root := newRoot(s, &cpuProfile{}, &watchedWriter{w: s.Out})
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if _, ok := fl.Value.(offered); !ok {
				return
			}
			checked++
			want, listed := words[c.Name()+" --"+fl.Name]
			if !listed {
				t.Errorf("%s --%s offers words this test does not list", c.Name(), fl.Name)
				return
			}
			args := []string{"__complete"}
			args = append(args, strings.Fields(c.CommandPath())[1:]...)
			if c.Name() == "explain" {
				args = append(args, "op") // its first argument is an operation id
			}
			args = append(args, "--"+fl.Name, "")
			t.Run(strings.Join(args[1:len(args)-1], " "), func(t *testing.T) {
				s, out, errOut := TestStreams("")
				if code := Main(s, args...); code != ExitOK {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				lines := strings.Split(strings.TrimSpace(out.String()), "\n")
				want := append(slices.Clone(want), ":4") // and no file completion
				if diff := cmp.Diff(want, lines); diff != "" {
					t.Errorf("completions (-want +got):\n%s", diff)
				}
			})
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if checked != len(words) {
		t.Fatalf("%d flags take words, %d are listed; the walk missed commands", checked, len(words))
	}
}

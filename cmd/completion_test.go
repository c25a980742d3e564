package cmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestEveryWordFlagCompletes asks shell completion for the values of every
// flag that takes words from a fixed set, in every command, and wants
// exactly those words: a flag left out of offerWords, or registered
// before it exists, offers files instead.
func TestEveryWordFlagCompletes(t *testing.T) {
	s, _, _ := TestStreams("")
	root := newRoot(s, &cpuProfile{}, &watchedWriter{w: s.Out})
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			o, ok := fl.Value.(offered)
			if !ok {
				return
			}
			checked++
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
				want := append(o.offers(), ":4") // and no file completion
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
	if checked < 5 { // audit: format, fail-on, annotations, input-format; explain: format, input-format
		t.Fatalf("only %d flags take words; the walk missed commands", checked)
	}
}

// Package cmd holds effectaudit's cobra commands. Commands stay thin: each has
// an options struct, a NewCmdX(streams, runF) constructor that only parses
// flags, and a run function that does the work with injected streams.
package cmd

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// Main runs the command line args against streams and returns the exit
// status. It is all main does.
func Main(streams *Streams, args ...string) int {
	if streams.temps != nil {
		defer streams.temps.onSignal()()
	}
	prof := &cpuProfile{}
	// cobra ignores a failure to write help, which would then pass as
	// printed (--help > /dev/full exiting 0): its writes are watched.
	out := &watchedWriter{w: streams.Out}
	root := newRoot(streams, prof, out)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if out.err != nil && (err == nil || errors.Is(err, out.err)) {
		err = failure(out.err) // not a usage error, as cobra's completion would have it
	}
	// Stopped here rather than in a PersistentPostRunE, which cobra skips
	// when the command fails.
	if perr := prof.stop(); err == nil {
		err = perr
	}
	if streams.temps != nil {
		for streams.temps.ending() {
			time.Sleep(time.Second) // the signal's handler ends the process
		}
		endByBrokenPipe(err)
	}
	path := "effectaudit"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	return exitCode(err, streams.ErrOut, path)
}

// newRoot builds the command tree, with the hidden --cpuprofile flag
// starting prof, which the caller stops, and cobra's own output (help,
// completion scripts) going to out.
func newRoot(streams *Streams, prof *cpuProfile, out *watchedWriter) *cobra.Command {
	root := &cobra.Command{
		Use:   "effectaudit",
		Short: "Audit effect ledgers: did each operation produce at most one effect?",
		Long: `effectaudit audits effect ledgers. It streams NDJSON attempt and effect
records, groups them by operationId and labels every operation healthy,
duplicate, key-conflict, uncertain or absent, so retries that created a second
ticket, charge or VM are found, and CI can be gated on them.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Without a run function cobra prints help and exits 0 for any
		// word, so a mistyped command would pass a CI gate.
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError("unknown command %q for %q", args[0], c.CommandPath())
			}
			return c.Help()
		},
		PersistentPreRunE: func(*cobra.Command, []string) error { return prof.start() },
	}
	root.PersistentFlags().StringVar(&prof.path, "cpuprofile", "", "write a CPU profile of the run to `FILE` (for bench/pgo.sh)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.SetIn(streams.In)
	root.SetOut(out)
	root.SetErr(streams.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: ExitError, err: plainFlagError(err), usage: true}
	})
	root.AddCommand(
		NewCmdAudit(streams, nil),
		NewCmdExplain(streams, nil),
		NewCmdHash(streams, nil),
		NewCmdGenerate(streams, nil),
		NewCmdVersion(streams),
	)
	// cobra's own help and completion commands print help and exit 0 for a
	// word they do not know, so "completion zhs > _effectaudit" would write
	// the help text and pass.
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			// The subcommands of what is named so far, as cobra's own
			// help command completes them.
			cmd, _, err := root.Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, sub := range cmd.Commands() {
				if (sub.IsAvailableCommand() || sub == c) && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return usageError("unknown help topic %q", strings.Join(args, " "))
			}
			// As cobra's own help command does, so the help lists -h.
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	})
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(c *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usageError("unknown shell %q; want bash, zsh, fish or powershell", args[0])
				}
				return c.Help()
			}
		}
	}
	return root
}

// watchedWriter is w, keeping the first error a write to it returned.
type watchedWriter struct {
	w   io.Writer
	err error
}

func (ww *watchedWriter) Write(p []byte) (int, error) {
	n, err := ww.w.Write(p)
	if err != nil && ww.err == nil {
		ww.err = err
	}
	return n, err
}

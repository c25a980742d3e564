package cmd

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/effectaudit/effectaudit/input"
	"github.com/effectaudit/effectaudit/synth"
)

// GenerateOptions is everything the generate command needs.
type GenerateOptions struct {
	Streams *Streams
	Config  synth.Config
	Output  string // "" writes to standard output
	Truth   string // "" writes no truth file
}

// NewCmdGenerate builds the generate command.
func NewCmdGenerate(streams *Streams, runF func(*GenerateOptions) error) *cobra.Command {
	opts := &GenerateOptions{Streams: streams}
	c := &cobra.Command{
		Use:   "generate",
		Short: "Write a synthetic ledger, for trying the tool at scale",
		Long: `Generate writes a deterministic synthetic ledger: about three records of
270 bytes per operation, records of thousands of concurrently open operations
interleaved as in a real export, 0.7% re-exported duplicate lines, and a label
mix of about 70% healthy, 8% duplicate, 5% key-conflict, 12% uncertain and 5%
absent. The same --ops, --seed and --window always give the same bytes.
--truth writes the label each operation was built to get, one JSON object per
line.`,
		Example: `  effectaudit generate --ops 320000 -o ledger.ndjson --truth truth.ndjson
  effectaudit generate --ops 1000 | effectaudit audit`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseEmptyNames(c.Flags(), nil, "output", "truth"); err != nil {
				return err
			}
			if opts.Config.Ops < 0 {
				return usageError("--ops %d: must not be negative", opts.Config.Ops)
			}
			if opts.Config.Window < 0 {
				return usageError("--window %d: must not be negative", opts.Config.Window)
			}
			if runF != nil {
				return runF(opts)
			}
			return generateRun(opts)
		},
	}
	f := c.Flags()
	f.IntVar(&opts.Config.Ops, "ops", 1000, "number of operations")
	f.Int64Var(&opts.Config.Seed, "seed", 1, "seed; the same seed gives the same ledger")
	f.IntVar(&opts.Config.Window, "window", 0, "operations open at once, whose records interleave (0: 4096)")
	f.StringVarP(&opts.Output, "output", "o", "", "write the ledger to `FILE` instead of standard output (-: standard output)")
	f.StringVar(&opts.Truth, "truth", "", "write each operation's intended label to `FILE`")
	return c
}

func generateRun(opts *GenerateOptions) (err error) {
	outName := opts.Output
	if outName == input.Stdin || outName != "" && writesTo(opts.Streams, outName) {
		// Standard output, as for ledgers read, also when named as a file
		// (/dev/stdout, or the file it goes to): written through the
		// stream, so that a shell's >> appends, where a file put in place
		// would replace what was there.
		outName = ""
	}
	truthName := opts.Truth
	if truthName == input.Stdin || truthName != "" && writesTo(opts.Streams, truthName) {
		if outName == "" {
			return usageError("--truth %s: standard output holds the ledger; name a file, or give -o FILE for the ledger", opts.Truth)
		}
		truthName = "" // standard output, the ledger going to its file
	}
	if outName != "" && truthName != "" && sameFile(outName, truthName) {
		return usageError("--truth %s is also the ledger's file: give each its own", opts.Truth)
	}
	if err := refuseStderrFile(opts.Streams, "output", outName); err != nil {
		return err
	}
	if err := refuseStderrFile(opts.Streams, "truth", truthName); err != nil {
		return err
	}
	// Both files are put in place only once both are written whole: a
	// failure or a signal leaves any earlier ones as they were.
	out, err := createOutput(outName, opts.Streams.Out, opts.Streams.temps)
	if err != nil {
		return failure(err)
	}
	defer out.discard()
	var truth *output
	var truthW io.Writer
	if opts.Truth != "" {
		if truth, err = createOutput(truthName, opts.Streams.Out, opts.Streams.temps); err != nil {
			return failure(err)
		}
		defer truth.discard()
		truthW = truth
	}
	if _, err := synth.Generate(opts.Config, out, truthW); err != nil {
		return failure(err)
	}
	return commit(out, truth)
}

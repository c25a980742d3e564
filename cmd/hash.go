package cmd

import (
	"cmp"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/effectaudit/effectaudit/canon"
	"github.com/effectaudit/effectaudit/input"
)

// HashOptions is everything the hash command needs.
type HashOptions struct {
	Streams   *Streams
	File      string // "" or "-" reads standard input
	Drop      []string
	Canonical bool
}

// maxHashInput bounds what hash reads: payloads are documents, not ledgers.
const maxHashInput = 64 << 20

// NewCmdHash builds the hash command.
func NewCmdHash(streams *Streams, runF func(*HashOptions) error) *cobra.Command {
	opts := &HashOptions{Streams: streams}
	c := &cobra.Command{
		Use:   "hash [FILE]",
		Short: "Print the canonical payload hash of a JSON document",
		Long: `Hash canonicalises one JSON document with RFC 8785 (JCS) and prints the
SHA-256 of the canonical bytes as sha256:<64 hex>, the form payloadHash takes
in a ledger. --drop removes volatile members (RFC 6901 JSON Pointers) first,
so retries of one intent hash alike. Input that is not I-JSON (duplicate
member names, lone surrogates, numbers beyond double range, invalid UTF-8)
is rejected with exit status 2, and so is a document over 64 MiB or nested
over 1,000 levels deep. A compressed document (gzip, zstd, xz, bzip2, lz4,
lzma) is read decompressed.`,
		Example: `  effectaudit hash payload.json
  effectaudit hash --drop /requestId --drop /sentAt payload.json
  echo '{"b":1,"a":[1.0,"x"]}' | effectaudit hash --canonical`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError("hash takes one FILE (a payload document), not %d", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseEmptyNames(c.Flags(), args); err != nil {
				return err
			}
			if len(args) == 1 {
				opts.File = args[0]
			}
			for _, ptr := range opts.Drop {
				if err := canon.CheckPointer(ptr); err != nil {
					return usageError("--drop: %v", err)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return hashRun(opts)
		},
	}
	c.Flags().StringArrayVar(&opts.Drop, "drop", nil, "remove the member at this JSON `POINTER` before hashing (repeatable)")
	c.Flags().BoolVar(&opts.Canonical, "canonical", false, "print the canonical bytes instead of the hash")
	return c
}

func hashRun(opts *HashOptions) error {
	file, name := cmp.Or(opts.File, input.Stdin), opts.File
	if file == input.Stdin {
		if opts.File == "" && opts.Streams.InTTY {
			return usageError("no input: give a payload FILE, or pipe the JSON document into standard input")
		}
		name = "<stdin>"
	} else if err := refuseOwnStreams(opts.Streams, name, name); err != nil {
		return err
	}
	// A compressed document is read as audit reads a compressed ledger.
	src, err := input.Open(file, opts.Streams.In)
	if err != nil {
		return failure(named(name, err))
	}
	defer src.Close()
	data, err := io.ReadAll(io.LimitReader(src, maxHashInput+1))
	if err != nil {
		return failure(fmt.Errorf("%s: %w", name, err))
	}
	if len(data) > maxHashInput {
		return failure(fmt.Errorf("%s: larger than %d MiB; hash takes one payload document", name, maxHashInput>>20))
	}
	canonical, err := canon.Canonicalize(data, opts.Drop)
	if err != nil {
		return failure(fmt.Errorf("%s: %w", name, err))
	}
	if opts.Canonical {
		_, err = opts.Streams.Out.Write(canonical)
	} else {
		_, err = fmt.Fprintln(opts.Streams.Out, canon.Hash(canonical))
	}
	if err != nil {
		return failure(err)
	}
	return nil
}

package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// NewCmdVersion prints the module version the binary was built from.
func NewCmdVersion(streams *Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of effectaudit",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(streams.Out, "effectaudit %s (%s, %s/%s)\n",
				buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			if err != nil {
				return failure(err)
			}
			return nil
		},
	}
}

// buildVersion is the module version when installed with go install, or the
// VCS revision of a local build.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel " + rev
}

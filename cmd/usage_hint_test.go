package cmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUsageHintAfterCobraErrors checks that errors cobra returns itself,
// not through a usageError (arguments to a command that takes none, an
// unknown command), are usage errors: exit 2, the message, then the hint
// naming the command's --help.
func TestUsageHintAfterCobraErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"version", "extra"}, "effectaudit: unknown command \"extra\" for \"effectaudit version\"\n" +
			"Run 'effectaudit version --help' for usage.\n"},
		{[]string{"generate", "extra"}, "effectaudit: unknown command \"extra\" for \"effectaudit generate\"\n" +
			"Run 'effectaudit generate --help' for usage.\n"},
		{[]string{"nosuch"}, "effectaudit: unknown command \"nosuch\" for \"effectaudit\"\n" +
			"Run 'effectaudit --help' for usage.\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			streams, stdout, stderr := TestStreams("")
			if code := Main(streams, tc.args...); code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if diff := cmp.Diff(tc.want, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

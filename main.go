// Command effectaudit audits effect ledgers: it groups attempt and effect
// records by operation and labels every operation healthy, duplicate,
// key-conflict, uncertain or absent.
package main

import (
	"os"

	"github.com/effectaudit/effectaudit/cmd"
)

func main() {
	os.Exit(cmd.Main(cmd.SystemStreams()))
}

package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestREADMEPolicy parses the default policy the README documents and
// compares it with the built-in one, so the two cannot drift apart.
func TestREADMEPolicy(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "<!-- default-policy -->\n```yaml\n")
	if !ok {
		t.Fatal("README.md has no <!-- default-policy --> yaml block")
	}
	block, _, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatal("the README's default policy block is not closed")
	}
	if diff := cmp.Diff(DefaultYAML, block); diff != "" {
		t.Errorf("README policy text (-built-in +README):\n%s", diff)
	}
	got, err := Parse("README.md", []byte(block))
	if err != nil {
		t.Fatalf("the README's default policy does not parse: %v", err)
	}
	if diff := cmp.Diff(Default(), got); diff != "" {
		t.Errorf("README policy (-built-in +README):\n%s", diff)
	}
}

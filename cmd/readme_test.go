package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readmeShortened lists the README examples whose output the README shows
// in part, on purpose.
var readmeShortened = map[string]bool{
	"audit --example --format json": true,
}

// TestReadmeExamples runs every plain command of the README's console
// examples ("$ effectaudit ..." with no pipe, redirection or quoting) from
// the repository root and compares what it prints on both streams, and its
// exit status ("[exit N]") with the README, so
// that the README cannot drift from the binary.
func TestReadmeExamples(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	exitLine := regexp.MustCompile(`^\[exit (\d+)\]$`)
	blocks := regexp.MustCompile("(?s)```console\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	ran := 0
	for _, block := range blocks {
		for _, example := range strings.Split(block[1], "$ ")[1:] {
			command, want, _ := strings.Cut(example, "\n")
			args, ok := strings.CutPrefix(command, "effectaudit ")
			if !ok || strings.ContainsAny(args, "|><;'\"$`") || readmeShortened[args] {
				continue
			}
			ran++
			t.Run(args, func(t *testing.T) {
				wantCode := 0
				lines := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
				if m := exitLine.FindStringSubmatch(lines[len(lines)-1]); m != nil {
					wantCode, _ = strconv.Atoi(m[1])
					lines = lines[:len(lines)-1]
				}
				// One buffer for both streams, as a terminal shows them.
				streams, stdout, _ := TestStreams("")
				streams.ErrOut = stdout
				code := Main(streams, strings.Fields(args)...)
				got := stdout.String()
				if diff := cmp.Diff(strings.Join(lines, "\n")+"\n", got); diff != "" || code != wantCode {
					t.Errorf("exit %d (README: %d); output (-README +binary):\n%s", code, wantCode, diff)
				}
			})
		}
	}
	if ran < 5 {
		t.Errorf("ran %d README examples; the README's console blocks were not found", ran)
	}
}

// TestSpecCopy holds docs/SPEC.md, the contract as this version implements
// it, to the shared contract beside the repository, so that a change to the
// contract cannot pass unnoticed.
func TestSpecCopy(t *testing.T) {
	shared, err := os.ReadFile(filepath.Join("..", "..", "shared", "SPEC.md"))
	if err != nil {
		t.Skipf("the shared contract is not checked out beside the repository (%v); docs/SPEC.md is not compared", err)
	}
	ours, err := os.ReadFile(filepath.Join("..", "docs", "SPEC.md"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(shared), string(ours)); diff != "" {
		t.Errorf("docs/SPEC.md differs from ../shared/SPEC.md; review the change and copy it (-shared +docs):\n%s", diff)
	}
}

package cmd

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden cases")

// A golden case is one file under testdata/e2e holding sections in txtar
// style ("-- name --" lines):
//
//	args     the command line; $WORK is the case's temporary directory, $ROOT the repository
//	stdin    standard input
//	env      KEY=VALUE lines; TTY=in,out,err forces those streams to be terminals
//	file:P   a file written to $WORK/P before the run
//	stdout, stderr, exit   the expected results, rewritten by -update
//	want:P   the expected content of $WORK/P after the run (e.g. --rejects)
type goldenCase struct {
	comment  string
	sections []section
}

type section struct {
	name, body string
}

func parseCase(data string) goldenCase {
	var c goldenCase
	lines := strings.SplitAfter(data, "\n")
	cur := -1
	for _, line := range lines {
		trim := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trim, "-- ") && strings.HasSuffix(trim, " --") && len(trim) > 6 {
			c.sections = append(c.sections, section{name: trim[3 : len(trim)-3]})
			cur = len(c.sections) - 1
			continue
		}
		if cur < 0 {
			c.comment += line
		} else {
			c.sections[cur].body += line
		}
	}
	return c
}

func (c *goldenCase) get(name string) (string, bool) {
	for _, s := range c.sections {
		if s.name == name {
			return s.body, true
		}
	}
	return "", false
}

func (c *goldenCase) set(name, body string) {
	for i := range c.sections {
		if c.sections[i].name == name {
			c.sections[i].body = body
			return
		}
	}
	c.sections = append(c.sections, section{name, body})
}

func (c *goldenCase) format() string {
	var b strings.Builder
	b.WriteString(c.comment)
	for _, s := range c.sections {
		b.WriteString("-- " + s.name + " --\n")
		b.WriteString(s.body)
		if s.body != "" && !strings.HasSuffix(s.body, "\n") {
			// Keep the file parseable; outputs always end in a newline anyway.
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "testdata", "e2e", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases found: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			c := parseCase(string(data))
			work := t.TempDir()
			for _, s := range c.sections {
				if p, ok := strings.CutPrefix(s.name, "file:"); ok {
					if err := os.WriteFile(filepath.Join(work, p), []byte(s.body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			argLine, _ := c.get("args")
			expand := strings.NewReplacer("$WORK", work, "$ROOT", root)
			args := strings.Fields(expand.Replace(argLine))
			stdin, _ := c.get("stdin")
			streams, stdout, stderr := TestStreams(stdin)
			env := map[string]string{}
			envText, _ := c.get("env")
			for _, kv := range strings.Split(envText, "\n") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					env[k] = v
				}
			}
			for _, s := range strings.Split(env["TTY"], ",") {
				switch s {
				case "in":
					streams.InTTY = true
				case "out":
					streams.OutTTY = true
				case "err":
					streams.ErrTTY = true
				}
			}
			streams.Getenv = func(k string) string { return env[k] }

			code := Main(streams, args...)

			unexpand := strings.NewReplacer(work, "$WORK", root, "$ROOT")
			got := map[string]string{
				"stdout": unexpand.Replace(stdout.String()),
				"stderr": unexpand.Replace(stderr.String()),
				"exit":   strconv.Itoa(code) + "\n",
			}
			keys := []string{"stdout", "stderr", "exit"}
			// The files a case wants written are compared, and rewritten
			// by -update, as the streams are.
			for _, s := range c.sections {
				if p, ok := strings.CutPrefix(s.name, "want:"); ok {
					data, err := os.ReadFile(filepath.Join(work, p))
					if err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					got[s.name] = string(data)
					keys = append(keys, s.name)
				}
			}
			if *update {
				for _, k := range keys {
					c.set(k, got[k])
				}
				if err := os.WriteFile(file, []byte(c.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, k := range keys {
				want, _ := c.get(k)
				if diff := cmp.Diff(want, got[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

func TestGoldenCaseRoundTrip(t *testing.T) {
	in := "a comment\n-- args --\naudit x\n-- stdout --\nline\n"
	c := parseCase(in)
	if diff := cmp.Diff(in, c.format()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got, _ := c.get("args"); got != "audit x\n" {
		t.Errorf("args = %q", got)
	}
	var buf bytes.Buffer
	buf.WriteString(c.format())
	if parseCase(buf.String()).comment != "a comment\n" {
		t.Errorf("comment lost")
	}
}

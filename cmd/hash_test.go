package cmd

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func conformanceDir(t *testing.T, parts ...string) string {
	t.Helper()
	dir := filepath.Join(append([]string{"..", "..", "shared", "conformance"}, parts...)...)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("../shared/conformance not found (%v); conformance tests skipped", err)
	}
	return dir
}

// TestHashJCS runs the hash command on the JCS suite: the hash of each input
// is the SHA-256 of the expected canonical bytes, and --canonical prints
// exactly those bytes.
func TestHashJCS(t *testing.T) {
	dir := conformanceDir(t, "jcs")
	for _, name := range []string{"arrays", "french", "structures", "unicode", "values", "weird"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "output", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			in := filepath.Join(dir, "input", name+".json")
			sum := sha256.Sum256(want)

			streams, stdout, stderr := TestStreams("")
			if code := Main(streams, "hash", in); code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff("sha256:"+hex.EncodeToString(sum[:])+"\n", stdout.String()); diff != "" {
				t.Errorf("hash (-want +got):\n%s", diff)
			}

			streams, stdout, stderr = TestStreams("")
			if code := Main(streams, "hash", "--canonical", in); code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
				t.Errorf("canonical (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHashRejects checks that hash refuses what is not I-JSON with exit 2.
func TestHashRejects(t *testing.T) {
	dir := conformanceDir(t, "JSONTestSuite", "test_parsing")
	files, err := filepath.Glob(filepath.Join(dir, "n_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no n_ files: %v", err)
	}
	files = append(files, filepath.Join(dir, "y_object_duplicated_key.json"), filepath.Join(dir, "y_object_duplicated_key_and_value.json"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			streams, stdout, stderr := TestStreams("")
			if code := Main(streams, "hash", f); code != ExitError {
				t.Errorf("exit %d, want %d; stdout %q", code, ExitError, stdout)
			}
			if !strings.Contains(stderr.String(), filepath.Base(f)) {
				t.Errorf("stderr %q does not name the input", stderr)
			}
		})
	}
}

// TestHashCompressed checks that hash reads a gzip-compressed document as
// the document itself, as audit reads a compressed ledger.
func TestHashCompressed(t *testing.T) {
	doc := `{"currency": "EUR", "amount": 1050}`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(doc))
	zw.Close()
	hash := func(in string) string {
		streams, stdout, stderr := TestStreams(in)
		if code := Main(streams, "hash"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return stdout.String()
	}
	if plain, compressed := hash(doc), hash(gz.String()); plain != compressed {
		t.Errorf("compressed document hashes to %q; want the plain one's %q", compressed, plain)
	}
}

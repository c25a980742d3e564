package ingest

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestSpoolLeavesNoFile checks that an over-long line kept for rejects
// lives in a file that has no name while it is kept, so that a run cut
// short by a signal leaves nothing behind, and that the file still holds
// the whole line.
func TestSpoolLeavesNoFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be unlinked on Windows")
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	long := strings.Repeat("x", 5000)
	pool := make(chan []byte, 1)
	pool <- make([]byte, 0, 1024)
	c := &chunker{r: strings.NewReader(long + "\nnext\n"), max: 100, size: 1024, pool: pool,
		stop: make(chan struct{}), line: 1, spool: true}
	ch, err := c.next()
	if err != nil {
		t.Fatal(err)
	}
	if !ch.long || ch.spool == nil {
		t.Fatalf("chunk long=%v spool=%v; want an over-long line kept in a spool file", ch.long, ch.spool)
	}
	defer ch.spool.release()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s is left in the temporary directory while the line is kept", e.Name())
	}
	if _, err := ch.spool.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := io.Copy(&got, ch.spool); err != nil {
		t.Fatal(err)
	}
	if got.String() != long {
		t.Errorf("spool holds %d bytes; want the line's %d", got.Len(), len(long))
	}
}

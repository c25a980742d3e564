// Command linescan reads a file line by line with a bufio.Scanner and counts
// the lines and their bytes: the bare Go line scan that effectaudit's
// throughput is measured against (bench/run.sh). With -count it only counts
// LF bytes with bytes.Count, a faster floor that never looks at a line.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	count := flag.Bool("count", false, "count LF bytes in 1 MiB reads instead of scanning lines")
	flag.Parse()
	if err := run(flag.Args(), *count, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "linescan:", err)
		os.Exit(1)
	}
}

func run(args []string, count bool, out io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: linescan [-count] FILE")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	var lines, size int
	if count {
		lines, err = countLF(f)
	} else {
		lines, size, err = scan(f)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, lines, size)
	return err
}

// scan reads lines as a line-oriented tool does, each handed out in turn.
func scan(r io.Reader) (lines, size int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines++
		size += len(sc.Bytes())
	}
	return lines, size, sc.Err()
}

func countLF(r io.Reader) (int, error) {
	buf := make([]byte, 1<<20)
	lines := 0
	for {
		n, err := r.Read(buf)
		lines += bytes.Count(buf[:n], []byte{'\n'})
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

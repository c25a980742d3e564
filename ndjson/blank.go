package ndjson

// Blank reports whether line (without its LF) is a blank line: empty, or
// only spaces, tabs and CRs. Readers that split lines themselves use it to
// agree with Reader on what is blank.
func Blank(line []byte) bool { return blank(line) }

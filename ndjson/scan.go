package ndjson

import (
	"strconv"
	"unicode/utf8"
)

// ScanString validates the JSON string literal whose opening quote is at
// line[i], as Parse does, for decoders of their own that want its rules:
// it returns the index just past the closing quote and whether the literal
// holds an escape, or a *ParseError whose Column counts in line. Invalid
// UTF-8 in the literal is an error, as in Parse.
func ScanString(line []byte, i int) (end int, escaped bool, err error) {
	return scanString(line, i)
}

// ScanNumber validates the JSON number whose first byte, '-' or a digit, is
// at line[i], as Parse does: it returns the index just past the number, or
// a *ParseError. A number ends where its grammar ends: what follows is the
// caller's to check.
func ScanNumber(line []byte, i int) (end int, err error) {
	return number(line, i)
}

// SkipSpace returns the index of the first byte at or after line[i] that is
// not JSON white space.
func SkipSpace(line []byte, i int) int { return skipSpace(line, i) }

// DescribeChar names the character at line[i] for a message, in a form
// that cannot disturb a terminal.
func DescribeChar(line []byte, i int) string { return describeChar(line, i) }

// QuoteShort quotes b for a message, escaped, cut to its first max bytes
// (whole characters) and an ellipsis if it is longer.
func QuoteShort(b []byte, max int) string {
	if len(b) <= max {
		return strconv.Quote(string(b))
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}

// ScanLiteral reports whether the literal word (true, false or null) starts
// at line[i], and returns the index just past it.
func ScanLiteral(line []byte, i int, word string) (end int, ok bool) {
	if len(line)-i >= len(word) && string(line[i:i+len(word)]) == word {
		return i + len(word), true
	}
	return 0, false
}

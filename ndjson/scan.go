package ndjson

// ScanString validates the JSON string literal whose opening quote is at
// line[i], as Parse does, for decoders of their own that want its rules:
// it returns the index just past the closing quote, whether the literal
// holds an escape, and false if it is not a valid literal.
func ScanString(line []byte, i int) (end int, escaped, ok bool) {
	end, escaped, err := scanString(line, i)
	return end, escaped, err == nil
}

// ScanNumber validates the JSON number whose first byte, '-' or a digit, is
// at line[i], as Parse does: it returns the index just past the number and
// false if it is not a valid number. A number ends where its grammar ends:
// what follows is the caller's to check.
func ScanNumber(line []byte, i int) (end int, ok bool) {
	end, err := number(line, i)
	return end, err == nil
}

// SkipSpace returns the index of the first byte at or after line[i] that is
// not JSON white space.
func SkipSpace(line []byte, i int) int { return skipSpace(line, i) }

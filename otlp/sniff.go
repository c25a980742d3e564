package otlp

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// ErrBinary is the error Sniff returns for input that is not JSON text. Its
// most likely source is a file exporter that has format: json already, but
// also a compression setting, which makes it write frames rather than
// lines: so it says that, not only which format to set.
var ErrBinary = errors.New("OTLP protobuf and length-prefixed frames are not supported (the collector's file exporter writes frames, not lines, with format: proto and with compression: zstd, even with format: json); configure it with format: json and no compression, and compress the whole file with gzip or zstd instead if need be")

// Sniff looks at the first bytes of an input (after any decompression of
// the whole stream: gzip and zstd files are recognised before this) and
// returns ErrBinary if they are binary rather than JSON text: the
// collector's protobuf encoding, or the file exporter's length-prefixed
// framing (a 4-byte big-endian length before each message, which it writes
// for format: proto and whenever compression is set).
//
// After a UTF-8 byte order mark and white space, input that starts with '{'
// is text, and so is an empty prefix. Otherwise the input is binary if its
// first byte is a control character (a length prefix under 16 MiB starts
// with 0x00; a protobuf ExportTraceServiceRequest starts with 0x0a, the tag
// of resource_spans, which is skipped as white space and followed by a
// varint length) or if the prefix holds a NUL, another control character or
// invalid UTF-8. Anything else is left alone, so that a text line that is
// not JSON stays an invalid line of the input rather than a refused input.
func Sniff(prefix []byte) error {
	p := bytes.TrimPrefix(prefix, []byte("\ufeff"))
	for len(p) > 0 && (p[0] == ' ' || p[0] == '\t' || p[0] == '\r' || p[0] == '\n') {
		p = p[1:]
	}
	if len(p) == 0 || p[0] == '{' {
		return nil
	}
	for len(p) > 0 {
		c := p[0]
		if c < 0x20 && c != '\t' && c != '\r' && c != '\n' {
			return ErrBinary
		}
		if c < utf8.RuneSelf {
			p = p[1:]
			continue
		}
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(p) {
				return nil // a character cut at the end of the prefix
			}
			return ErrBinary
		}
		p = p[size:]
	}
	return nil
}

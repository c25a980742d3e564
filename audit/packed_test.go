package audit

import (
	"strings"
	"testing"
)

// compactHashByByte is compactHash written plainly, with comparisons where
// compactHash looks digits up in a table and folds their error bits: the
// reference it is held to.
func compactHashByByte(h string) string {
	if len(h) != len(sha256Prefix)+64 || !strings.HasPrefix(h, sha256Prefix) {
		return h
	}
	value := func(c byte) (byte, bool) {
		switch {
		case '0' <= c && c <= '9':
			return c - '0', true
		case 'a' <= c && c <= 'f':
			return c - 'a' + 10, true
		}
		return 0, false
	}
	out := []byte{compactMarker}
	hex := h[len(sha256Prefix):]
	for i := 0; i < len(hex); i += 2 {
		hi, ok1 := value(hex[i])
		lo, ok2 := value(hex[i+1])
		if !ok1 || !ok2 {
			return h
		}
		out = append(out, hi<<4|lo)
	}
	return string(out)
}

// TestCompactHashEveryByte puts every byte value at every position of a
// hash's hex digits: digits must decode in place, and anything else, upper
// case included, must leave the hash as written.
func TestCompactHashEveryByte(t *testing.T) {
	const h = "sha256:0123456789abcdef0123456789abcdeffedcba9876543210fedcba9876543210"
	var buf [33]byte
	for pos := len(sha256Prefix); pos < len(h); pos++ {
		for c := range 256 {
			in := h[:pos] + string([]byte{byte(c)}) + h[pos+1:]
			if got, want := compactHash(in, &buf), compactHashByByte(in); got != want {
				t.Fatalf("compactHash(%q) = %x, want %x", in, got, want)
			}
		}
	}
}

func FuzzCompactHash(f *testing.F) {
	f.Add("0123456789abcdef0123456789abcdeffedcba9876543210fedcba9876543210")
	f.Add("D145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd94")
	f.Add("d145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd9\xff")
	f.Fuzz(func(t *testing.T, hex string) {
		in := sha256Prefix + hex
		var buf [33]byte
		got := compactHash(in, &buf)
		if want := compactHashByByte(in); got != want {
			t.Fatalf("compactHash(%q) = %x, want %x", in, got, want)
		}
		if back := expandHash(got); back != in {
			t.Fatalf("expandHash(compactHash(%q)) = %q", in, back)
		}
	})
}

func BenchmarkCompactHash(b *testing.B) {
	const h = "sha256:d145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd94"
	var buf [33]byte
	b.SetBytes(int64(len(h)))
	for b.Loop() {
		if len(compactHash(h, &buf)) != 33 {
			b.Fatal("not compacted")
		}
	}
}

package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseInstant(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339 in UTC; "" means invalid
	}{
		{"2026-11-29T09:00:00Z", "2026-11-29T09:00:00Z"},
		{"2026-11-29t09:00:00z", "2026-11-29T09:00:00Z"},
		{"2026-11-29T09:00:00.1Z", "2026-11-29T09:00:00.1Z"},
		{"2026-11-29T09:00:00.123456789Z", "2026-11-29T09:00:00.123456789Z"},
		{"2026-11-29T11:00:00+02:00", "2026-11-29T09:00:00Z"},
		{"2026-11-29T09:00:00-00:00", "2026-11-29T09:00:00Z"},
		{"2026-11-29T00:30:00+01:00", "2026-11-28T23:30:00Z"},
		{"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"},
		{"2000-02-29T00:00:00Z", "2000-02-29T00:00:00Z"},
		{"0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"},
		{"9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"},
		{"1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59.5Z"},
		{"2026-11-29 09:00:00Z", ""},
		{"2026-11-29T09:00:00", ""},
		{"2026-11-29T09:00:00.1234567890Z", ""},
		{"2026-11-29T09:00:00.Z", ""},
		{"2026-11-29T09:00:60Z", ""},
		{"2026-11-29T24:00:00Z", ""},
		{"2026-02-30T09:00:00Z", ""},
		{"2023-02-29T09:00:00Z", ""},
		{"1900-02-29T09:00:00Z", ""},
		{"2026-13-01T09:00:00Z", ""},
		{"2026-00-01T09:00:00Z", ""},
		{"2026-11-29T09:00:00+0200", ""},
		{"2026-11-29T09:00:00+24:00", ""},
		{"2026-11-29T09:00:00+02:60", ""},
		{"2026-11-29T09:00:00Zjunk", ""},
		{"26-11-29T09:00:00Z", ""},
		{"2026-1-29T09:00:00Z", ""},
		{"+026-11-29T09:00:00Z", ""},
		{"2026-11-29T09:00:00.5+01:00x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseInstant(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("ParseInstant(%q) = %v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseInstant(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("ParseInstant(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzParseInstant checks the hand-written parser against the standard
// library: whatever it accepts, time.Parse accepts as the same instant.
func FuzzParseInstant(f *testing.F) {
	for _, s := range []string{"2026-11-29T09:00:00Z", "2026-11-29T09:00:00.123+05:30", "2024-02-29T23:59:59-00:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseInstant(s)
		if err != nil {
			return
		}
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			// time.Parse rejects lower-case t/z, which SPEC allows.
			return
		}
		if !got.Time().Equal(want) {
			t.Errorf("ParseInstant(%q) = %v, time.Parse = %v", s, got.Time(), want)
		}
	})
}

func TestPackedPosition(t *testing.T) {
	maxLine := int(min(uint64(math.MaxInt), 1<<32-1)) // the most a line number keeps, or an int holds
	last := MaxInputs - 1
	tests := []struct{ in, want Position }{
		{Position{}, Position{}},
		{Position{Input: 3, Line: 17, Seq: 2}, Position{Input: 3, Line: 17, Seq: 2}},
		{Position{Input: 4096, Line: 1}, Position{Input: 4096, Line: 1}},
		{Position{Input: last, Line: maxLine, Seq: 65535}, Position{Input: last, Line: maxLine, Seq: 65535}},
		{Position{Input: last, Line: math.MaxInt, Seq: 70000}, Position{Input: last, Line: maxLine, Seq: 65535}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, pack(tt.in).unpack()); diff != "" {
			t.Errorf("pack(%v) (-want +got):\n%s", tt.in, diff)
		}
	}
	// Packed positions must never go against input order, saturated or
	// not: the report's merge of the shards' operations relies on it.
	inOrder := [][2]Position{
		{{Line: 1, Seq: 9}, {Line: 2}},
		{{Line: 99}, {Input: 1}},
		{{Input: 5000, Line: 3}, {Input: 5001, Line: 1}},
		{{Input: 7, Line: math.MaxInt, Seq: 70000}, {Input: 8}},
		{{Input: last - 1, Line: math.MaxInt}, {Input: last}},
	}
	for _, pq := range inOrder {
		if !(pack(pq[0]) < pack(pq[1])) {
			t.Errorf("pack(%v) >= pack(%v): packed positions do not compare as positions", pq[0], pq[1])
		}
	}
	for _, pq := range [][2]Position{
		{{Line: math.MaxInt - 1}, {Line: math.MaxInt}},
		{{Line: 1, Seq: 65535}, {Line: 1, Seq: 70000}},
	} {
		if !(pack(pq[0]) <= pack(pq[1])) {
			t.Errorf("pack(%v) > pack(%v): saturated positions go against input order", pq[0], pq[1])
		}
	}
}

func TestCompactHash(t *testing.T) {
	const h = "sha256:d145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd94"
	var buf [33]byte
	c := compactHash(h, &buf)
	if len(c) != 33 || expandHash(c) != h {
		t.Errorf("compactHash(%q) = %q, expands to %q", h, c, expandHash(c))
	}
	for _, keep := range []string{
		"sha256:D145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd94", // upper case is another hash
		"sha256:d145", "sha512:d145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd94", "h1", "",
		"sha256:g145c6cd5943de181fef991d4e236e233937077e2901967e2a71bc46c546bd94",
	} {
		if got := compactHash(keep, &buf); got != keep || expandHash(got) != keep {
			t.Errorf("compactHash(%q) = %q, want it unchanged", keep, got)
		}
	}
}

// TestSortHashes checks that sorting compact hashes and expanding only the
// ones a list names lists what sorting every expanded hash lists, for sets
// of compact hashes and for sets that mix in other forms.
func TestSortHashes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var buf [33]byte
	for range 2000 {
		var hs []string
		for range 1 + r.IntN(6) {
			var h string
			switch r.IntN(5) {
			case 0:
				h = fmt.Sprintf("sha256:%016X%048x", r.Uint64(), r.IntN(4)) // upper case: kept as it is
			case 1:
				h = fmt.Sprintf("h%d", r.IntN(100))
			default:
				h = fmt.Sprintf("sha256:%016x%048x", r.Uint64(), r.IntN(4))
			}
			hs = append(hs, strings.Clone(compactHash(h, &buf)))
		}
		want := slices.Clone(hs)
		for i := range want {
			want[i] = expandHash(want[i])
		}
		slices.Sort(want)
		var got text
		got.hashList(sortHashes(slices.Clone(hs)))
		var wantList text
		wantList.list(want)
		if string(got.b) != string(wantList.b) {
			t.Fatalf("sortHashes(%q) lists %q, want %q", hs, got.b, wantList.b)
		}
	}
}

func TestInstantSub(t *testing.T) {
	year0, year9999 := Instant{Sec: -62_167_219_200}, Instant{Sec: 253_402_300_799, Nsec: 999_999_999}
	for _, tt := range []struct {
		name string
		i, j Instant
		want time.Duration
	}{
		{"equal", Instant{Sec: 5, Nsec: 7}, Instant{Sec: 5, Nsec: 7}, 0},
		{"a nanosecond across a second", Instant{Sec: 6}, Instant{Sec: 5, Nsec: 999_999_999}, 1},
		{"backwards", Instant{Sec: 5}, Instant{Sec: 6, Nsec: 1}, -time.Second - 1},
		{"the largest Duration exactly", Instant{Sec: 9_223_372_036, Nsec: 854_775_807}, Instant{}, math.MaxInt64},
		{"just under it, with a borrow", Instant{Sec: 9_223_372_036}, Instant{Nsec: 500_000_000}, 9_223_372_035_500_000_000},
		{"past it", Instant{Sec: 9_223_372_036, Nsec: 854_775_808}, Instant{}, math.MaxInt64},
		{"the least Duration exactly", Instant{}, Instant{Sec: 9_223_372_036, Nsec: 854_775_808}, math.MinInt64},
		{"year 0000 to 9999", year9999, year0, math.MaxInt64},
		{"year 9999 back to 0000", year0, year9999, math.MinInt64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.i.Sub(tt.j); got != tt.want {
				t.Errorf("%v.Sub(%v) = %d, want %d", tt.i, tt.j, got, tt.want)
			}
		})
	}
}

// TestInstantBeyond holds Beyond to the exact difference, where Sub
// saturates too: retention may be the largest Duration, and a ledger's
// instants may be 9,999 years apart.
func TestInstantBeyond(t *testing.T) {
	year0, year9999 := Instant{Sec: -62_167_219_200}, Instant{Sec: 253_402_300_799, Nsec: 999_999_999}
	largest := Instant{Sec: 9_223_372_036, Nsec: 854_775_807} // the largest Duration after Instant{}
	for _, tt := range []struct {
		name string
		i, j Instant
		d    time.Duration
		want bool
	}{
		{"equal", Instant{Sec: 5, Nsec: 7}, Instant{Sec: 5, Nsec: 7}, 1, false},
		{"exactly d", Instant{Sec: 6, Nsec: 7}, Instant{Sec: 5, Nsec: 7}, time.Second, false},
		{"a nanosecond more, across a second", Instant{Sec: 6}, Instant{Sec: 4, Nsec: 999_999_999}, time.Second, true},
		{"a nanosecond less, across a second", Instant{Sec: 5, Nsec: 999_999_999}, Instant{Sec: 4, Nsec: 999_999_999}, time.Second + 1, false},
		{"backwards", Instant{Sec: 5}, Instant{Sec: 6}, 1, false},
		{"the largest Duration exactly", largest, Instant{}, math.MaxInt64, false},
		{"a nanosecond past the largest Duration", Instant{Sec: largest.Sec, Nsec: largest.Nsec + 1}, Instant{}, math.MaxInt64, true},
		{"year 0000 to 9999, the largest Duration", year9999, year0, math.MaxInt64, true},
		{"year 9999 back to 0000", year0, year9999, 1, false},
		{"a negative d, less negative", Instant{Sec: 4, Nsec: 700_000_000}, Instant{Sec: 5}, -500 * time.Millisecond, true},
		{"a negative d, exactly", Instant{Sec: 4, Nsec: 500_000_000}, Instant{Sec: 5}, -500 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.i.Beyond(tt.j, tt.d); got != tt.want {
				t.Errorf("%v.Beyond(%v, %d) = %v, want %v", tt.i, tt.j, tt.d, got, tt.want)
			}
		})
	}
}

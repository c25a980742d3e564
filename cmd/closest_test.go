package cmd

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// referenceClosest is how explain chose the closest ids before nearest,
// kept as the plain statement of what nearest must return: the first
// three ids of a stable sort by distance.
func referenceClosest(best []string, id, want string) []string {
	const keep = 3
	d := referenceDistance(id, want)
	if len(best) == keep && d >= referenceDistance(best[keep-1], want) {
		return best
	}
	best = append(best, id)
	slices.SortStableFunc(best, func(a, b string) int {
		return cmp.Compare(referenceDistance(a, want), referenceDistance(b, want))
	})
	return best[:min(len(best), keep)]
}

func referenceDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func suggest(ids []string, want string) []string {
	n := newNearest(want)
	for _, id := range ids {
		n.add(id)
	}
	return n.ids()
}

// TestExplainClosestMatchesReference checks nearest against the plain
// computation on random ids over small alphabets, where distances tie
// often and so the order of a tie shows, with queries near some ids (the
// bound then cuts most of the others short) and far from all, and lengths on
// both sides of 64 and 128 (the bit vectors' blocks) and of 256, past
// which an id is never close.
func TestExplainClosestMatchesReference(t *testing.T) {
	type shape struct {
		name           string
		sets, ids      int
		minLen, maxLen int
		alphabet       string
	}
	for _, sh := range []shape{
		{"binary", 600, 40, 0, 12, "ab"},
		{"short", 600, 60, 0, 40, "abc"},
		{"wider", 200, 80, 0, 40, "abcdefgh"},
		{"across blocks of 64", 100, 30, 55, 140, "abc"},
		{"long", 8, 40, 200, 300, "ab"},
		{"around 256", 8, 40, 250, 262, "abc"},
	} {
		t.Run(sh.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(sh.name)), uint64(sh.sets)))
			random := func(n int) string {
				b := make([]byte, n)
				for i := range b {
					b[i] = sh.alphabet[r.IntN(len(sh.alphabet))]
				}
				return string(b)
			}
			length := func() int { return sh.minLen + r.IntN(sh.maxLen-sh.minLen+1) }
			for set := range sh.sets {
				ids := make([]string, r.IntN(sh.ids+1))
				for i := range ids {
					if i > 0 && r.IntN(10) == 0 {
						ids[i] = ids[r.IntN(i)] // the same id twice
					} else {
						ids[i] = random(length())
					}
				}
				wants := []string{random(length()), random(r.IntN(3)), random(sh.maxLen)}
				if len(ids) > 0 {
					// Near an id: a few edits away, so that a few ids
					// come close and the rest are cut short.
					near := []byte(ids[r.IntN(len(ids))])
					for range r.IntN(4) {
						i := r.IntN(len(near) + 1)
						switch r.IntN(3) {
						case 0:
							near = slices.Insert(near, i, sh.alphabet[r.IntN(len(sh.alphabet))])
						case 1:
							if i < len(near) {
								near = slices.Delete(near, i, i+1)
							}
						default:
							if i < len(near) {
								near[i] = sh.alphabet[r.IntN(len(sh.alphabet))]
							}
						}
					}
					wants = append(wants, string(near), ids[r.IntN(len(ids))])
				}
				for _, want := range wants {
					var ref []string
					for _, id := range ids {
						ref = referenceClosest(ref, id, want)
					}
					if diff := gocmp.Diff(ref, suggest(ids, want), cmpopts.EquateEmpty()); diff != "" {
						among := fmt.Sprintf("%q", ids)
						if len(among) > 2000 {
							among = fmt.Sprintf("%d ids", len(ids)) // the seed is fixed: rerun to see them
						}
						t.Fatalf("set %d: closest to %q among %s (-reference +nearest):\n%s", set, want, among, diff)
					}
				}
			}
		})
	}
}

// TestExplainClosestTies pins the order the reference gives ties: by
// distance, then the id seen first, and a later id at the distance of the
// furthest kept stays out.
func TestExplainClosestTies(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  []string
		want []string
	}{
		{"none", nil, nil},
		{"fewer than kept", []string{"abd", "abc"}, []string{"abc", "abd"}},
		{"ties in order seen", []string{"xbc", "axc", "abx", "abcx"}, []string{"xbc", "axc", "abx"}},
		{"closer one moves up", []string{"xbc", "axc", "zzz", "ab", "abc"}, []string{"abc", "xbc", "axc"}},
		{"long ids never close", []string{strings.Repeat("abc", 90), "zzzz"}, []string{"zzzz", strings.Repeat("abc", 90)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ref []string
			for _, id := range tc.ids {
				ref = referenceClosest(ref, id, "abc")
			}
			if diff := gocmp.Diff(tc.want, ref, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("reference: closest to %q among %q (-want +got):\n%s", "abc", tc.ids, diff)
			}
			if diff := gocmp.Diff(tc.want, suggest(tc.ids, "abc"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("nearest: closest to %q among %q (-want +got):\n%s", "abc", tc.ids, diff)
			}
		})
	}
}

// benchIDs are 10k operation ids of 256 bytes and a query for each shape
// the suggestion meets: the review's (ids sharing no byte with the query),
// a typo of one of them, and ids over two letters, whose distances all
// come close to one another.
func benchIDs() []struct {
	name string
	ids  []string
	want string
} {
	const n, size = 10000, 256
	r := rand.New(rand.NewPCG(1, 2))
	random := func(alphabet string) string {
		b := make([]byte, size)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	var review, typo, alike []string
	for i := range n {
		s := fmt.Sprintf("%d-", i)
		review = append(review, s+strings.Repeat("q", size-len(s)))
		typo = append(typo, random("abcdefghijklmnopqrstuvwxyz0123456789-"))
		alike = append(alike, random("ab"))
	}
	mistyped := []byte(typo[n/2])
	mistyped[size/2] = '#'
	return []struct {
		name string
		ids  []string
		want string
	}{
		{"review", review, strings.Repeat("z", size)},
		{"typo", typo, string(mistyped)},
		{"alike", alike, random("ab")},
	}
}

func BenchmarkExplainClosest(b *testing.B) {
	for _, bc := range benchIDs() {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				suggest(bc.ids, bc.want)
			}
		})
	}
}

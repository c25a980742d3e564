package audit

import (
	"math/bits"

	"github.com/effectaudit/effectaudit/hugemem"
)

// blocks is a growing list of values that never moves them: values live in
// blocks of doubling size, so a small audit allocates little and a large
// one allocates a few large blocks, advised for huge pages. T must hold no
// pointers (see TestStateHoldsNoPointers).
type blocks[T any] struct {
	list [][]T
	n    int
}

// firstBlock is the size of the first block; block k holds firstBlock<<k
// values.
const firstBlock = 256

// at returns the i-th value.
func (b *blocks[T]) at(i int) *T {
	// Block k starts at firstBlock * (2^k - 1).
	k := bits.Len(uint(i/firstBlock+1)) - 1
	return &b.list[k][i-firstBlock*(1<<k-1)]
}

// add appends a zero value and returns its index.
func (b *blocks[T]) add() int {
	if k := len(b.list); b.n == firstBlock*(1<<k-1) {
		b.list = append(b.list, hugemem.Block[T](firstBlock<<k))
	}
	b.n++
	return b.n - 1
}

func (b *blocks[T]) len() int { return b.n }

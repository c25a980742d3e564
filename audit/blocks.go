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

// chunks is a growing list of values that never moves them, in chunks of
// chunkSize values of ordinary Go memory: for values that hold pointers,
// which blocks cannot keep, and of which there are too many to copy over
// and over as an appended slice grows.
type chunks[T any] struct {
	list [][]T
	n    int
}

const chunkSize = 1024

func (c *chunks[T]) at(i int) *T { return &c.list[i/chunkSize][i%chunkSize] }

// add appends a zero value and returns its index.
func (c *chunks[T]) add() int {
	if c.n%chunkSize == 0 {
		c.list = append(c.list, make([]T, chunkSize))
	}
	c.n++
	return c.n - 1
}

func (c *chunks[T]) len() int { return c.n }

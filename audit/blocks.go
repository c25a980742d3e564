package audit

import (
	"math/bits"

	"github.com/effectaudit/effectaudit/hugemem"
)

// blocks is a growing list of values that never moves them: values live in
// blocks, advised for huge pages, that double in size up to fullBlock
// values, so a small audit allocates little, and stay at that size after
// it. When blocks went on doubling, part of what the last, largest block
// did not fill counted in peak memory anyway: 139 MiB for a 1M-record
// audit, against 130 now. T must hold no pointers (see
// TestStateHoldsNoPointers).
type blocks[T any] struct {
	list [][]T
	n    int
}

const (
	firstBlock = 256 // values in the first block; block k holds firstBlock<<k...
	lastDouble = 4   // ...up to block lastDouble
	fullBlock  = firstBlock << lastDouble
	// doubled is how many values the doubling blocks hold.
	doubled = firstBlock * (1<<(lastDouble+1) - 1)
)

// at returns the i-th value.
func (b *blocks[T]) at(i int) *T {
	if i >= doubled {
		i -= doubled
		return &b.list[lastDouble+1+i/fullBlock][i%fullBlock]
	}
	// Block k starts at firstBlock * (2^k - 1).
	k := bits.Len(uint(i/firstBlock+1)) - 1
	return &b.list[k][i-firstBlock*(1<<k-1)]
}

// add appends a zero value and returns its index.
func (b *blocks[T]) add() int {
	if b.n == b.capacity() {
		b.list = append(b.list, hugemem.Block[T](firstBlock<<min(len(b.list), lastDouble)))
	}
	b.n++
	return b.n - 1
}

// capacity is how many values b's blocks hold.
func (b *blocks[T]) capacity() int {
	if k := len(b.list); k <= lastDouble+1 {
		return firstBlock * (1<<k - 1)
	}
	return doubled + (len(b.list)-lastDouble-1)*fullBlock
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

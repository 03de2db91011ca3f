package workload

import (
	"fmt"

	"github.com/weftdev/weft/sim"
)

// ComputeParams configure the compute workload (Compute): work between
// shared accesses, as in the programs the recording papers measure.
type ComputeParams struct {
	// Buckets is the number of shared accumulators (default 16).
	Buckets int
	// Workers is the number of goroutines (default 4).
	Workers int
	// Size is the number of items each worker computes and accumulates
	// (default 1000), the knob of the workload's length: four operations
	// each.
	Size int
	// Rounds is the number of mixing rounds computed per item (default
	// computeRounds, about 1 µs of computation: 250 ns per access).
	Rounds int
}

// computeRounds is the default of ComputeParams.Rounds: a round of
// splitmix64 (two dependent multiplies) costs about 3.5 ns of CPU on the
// 2-core AMD EPYC the README's figures come from, so 300 rounds make about
// 1 µs of work per item, 260 ns per shared access.
const computeRounds = 300

const computeEventsPerItem = 4

func (p ComputeParams) withDefaults() ComputeParams {
	if p.Buckets <= 0 {
		p.Buckets = 16
	}
	if p.Workers <= 0 {
		p.Workers = 4
	}
	if p.Size <= 0 {
		p.Size = 1000
	}
	if p.Rounds <= 0 {
		p.Rounds = computeRounds
	}
	return p
}

// Events estimates the operations of one run.
func (p ComputeParams) Events() int {
	p = p.withDefaults()
	return p.Workers*(p.Size*computeEventsPerItem+2) + p.Buckets*3 + 2
}

// computeItem is an item's work: rounds rounds of the splitmix64 mixing
// function over the item's seed, a stand-in for the arithmetic of a kernel
// (the papers' JGF and STAMP benchmarks) that touches no shared memory.
func computeItem(seed uint64, rounds int) uint64 {
	z := seed
	for range rounds {
		z += 0x9e3779b97f4a7c15
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
	}
	return z
}

// computeBucket is a shared accumulator: a sum of items under a lock.
type computeBucket struct {
	mu  sim.Mutex
	sum sim.Var[uint64]
}

// Compute returns the body of the compute workload: p.Workers goroutines
// each compute p.Size items (computeItem, p.Rounds rounds each, no shared
// access) and add each to one of p.Buckets shared sums, chosen by the
// item's value, under the bucket's sim.Mutex (Lock, Load, Store, Unlock:
// four operations per item). The body checks every bucket's sum against
// the sums each worker kept of its own items, and panics with "compute:
// ..." if one is wrong.
func Compute(p ComputeParams) func() {
	p = p.withDefaults()
	return func() {
		buckets := make([]computeBucket, p.Buckets)
		// Each worker's own sums, which the check adds up: plain memory,
		// written before the worker's Done and read after Wait.
		own := make([][]uint64, p.Workers)
		g := newGate(p.Workers)
		var wg sim.WaitGroup
		for w := range p.Workers {
			own[w] = make([]uint64, p.Buckets)
			wg.Go(func() {
				g.wait()
				for i := range p.Size {
					v := computeItem(uint64(w*p.Size+i), p.Rounds)
					k := v % uint64(p.Buckets)
					own[w][k] += v
					b := &buckets[k]
					b.mu.Lock()
					b.sum.Store(b.sum.Load() + v)
					b.mu.Unlock()
				}
			})
		}
		wg.Wait()
		for k := range buckets {
			var want uint64
			for w := range own {
				want += own[w][k]
			}
			b := &buckets[k]
			b.mu.Lock()
			got := b.sum.Load()
			b.mu.Unlock()
			if got != want {
				panic(fmt.Sprintf("compute: bucket %d sums to %d, want %d", k, got, want))
			}
		}
	}
}

package explore

import (
	"math/rand/v2"

	"github.com/weftdev/weft/sched"
)

// RandomWalk returns the uniform random walk: at every decision it runs one
// of the enabled goroutines chosen uniformly, and picks data choices
// uniformly.
func RandomWalk(seed uint64) sched.Strategy {
	return &randomWalk{rng: newRand(seed)}
}

type randomWalk struct{ rng *rand.Rand }

func (r *randomWalk) Spawned(*sched.G) {}

func (r *randomWalk) Next(d *sched.Decision) *sched.G {
	return d.Enabled[r.rng.IntN(len(d.Enabled))]
}

func (r *randomWalk) Choose(_ *sched.G, n int) int { return r.rng.IntN(n) }

// newRand returns the deterministic generator of one execution.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// mix derives well-spread seeds from a base and an index (SplitMix64).
func mix(base, i uint64) uint64 {
	z := base + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

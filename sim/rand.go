package sim

import "math/rand/v2"

// Intn returns a value in [0, n). Under control the value is a choice of
// the schedule: strategies explore it like an interleaving, and a saved
// schedule replays it. In plain mode it is math/rand/v2's IntN. It panics if
// n <= 0.
func Intn(n int) int {
	if n <= 0 {
		panic("sim.Intn: invalid argument to Intn")
	}
	if g, t := drawer(); g != nil || t != nil {
		return int(draw(g, t, opIntn, uint64(n)))
	}
	return rand.IntN(n)
}

package sim

import (
	"math/bits"
	"math/rand/v2"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// The functions of this file stand for the top-level functions of math/rand
// and math/rand/v2, as Intn does for rand.Intn: a source rewriter calls them
// in place of rand's. In plain mode each is its math/rand/v2 twin (math/rand's
// Int31 is v2's Int32, Int63 is Int64, and so on). Under control every value
// is a choice of the schedule: strategies explore it, and a saved schedule
// replays it.
//
// A choice ranges over at most 2^chunkBits values, one choice an event: a
// value with a larger range is drawn in chunks, most significant first, the
// first at the operation's event and each further one at an event of its
// own that continues the operation (G.Park: one operation, several events).
// A uint64 takes four events, a Float64 (53 bits) four, an Int31n(1000)
// one. Chunks are needed because sched replays one choice per event, by the
// goroutine's event counter; they are small because explore's minimization
// tries every alternative value of a choice. A range that is not a power of
// two draws the top chunk below the range's top bits and restarts, with
// further events, when the value overflows the range, so values are exactly
// uniform; under the default policy every choice is 0, which never
// overflows. Past its budget an execution is unexplored: a value of any
// range is then drawn at one event, from the execution itself (G.Draw).
//
// Some names differ from rand's, which this package's atomic types hold:
// math/rand/v2's Int32 and Int64 are Int31 and Int63 here (math/rand's names
// for the same functions), and rand's Uint32 and Uint64 are RandUint32 and
// RandUint64 (Uint64 names an atomic type; Uint32 is left free for the
// atomic type sync/atomic also has).

const (
	// chunkBits is the width of the largest choice.
	chunkBits = 16
	// intRange and uintRange count the non-negative ints and the uints, as
	// draw takes ranges: 2^64 is 0.
	intRange  = 1 << (bits.UintSize - 1)
	uintRange = 1 << bits.UintSize & (1<<64 - 1)
)

// The operations of the random functions, as events and traces name them.
var (
	opInt      = sched.NewOp("Int")
	opInt31    = sched.NewOp("Int31")
	opInt31n   = sched.NewOp("Int31n")
	opInt63    = sched.NewOp("Int63")
	opInt63n   = sched.NewOp("Int63n")
	opRandUint = sched.NewOp("Uint")
	opUint32   = sched.NewOp("RandUint32")
	opUint64   = sched.NewOp("RandUint64")
	opFloat32  = sched.NewOp("Float32")
	opFloat64  = sched.NewOp("Float64")
	opPerm     = sched.NewOp("Perm")
	opShuffle  = sched.NewOp("Shuffle")
	opIntN     = sched.NewOp("IntN")
	opInt32N   = sched.NewOp("Int32N")
	opInt64N   = sched.NewOp("Int64N")
	opUintN    = sched.NewOp("UintN")
	opUint32N  = sched.NewOp("Uint32N")
	opUint64N  = sched.NewOp("Uint64N")
	opN        = sched.NewOp("N")
)

// draw performs operation op for g (under control) or t (recording) and
// returns a value in [0, n) chosen by the schedule, or by t's generator,
// which logs each chunk; n == 0 stands for 2^64. Recording counts one
// operation, as the Step does; the Parks that continue it count none.
func draw(g *sched.G, t *record.Thread, op *sched.Op, n uint64) uint64 {
	if g != nil {
		g.StepReady(op, 0)
		if g.Unexplored() {
			return g.Draw(n)
		}
	} else {
		t.Op(nil)
	}
	choose := func(k int) uint64 {
		if g != nil {
			return uint64(g.Choose(k))
		}
		return uint64(t.Choose(k))
	}
	park := func() {
		if g != nil {
			g.Park(op, 0, nil)
		}
	}
	if n != 0 && n <= 1<<chunkBits {
		return choose(int(n))
	}
	last := n - 1                                         // the largest value: all ones for 2^64
	low := (bits.Len64(last) - 1) / chunkBits * chunkBits // the bits after the top chunk
	for {
		v := choose(int(last>>low) + 1)
		rem := low
		// While v, the top bits drawn so far, can still begin a value in
		// range, draw the next chunk.
		for rem > 0 && v <= last>>rem {
			rem -= chunkBits
			park()
			v = v<<chunkBits | choose(1<<chunkBits)
		}
		if rem == 0 && v <= last {
			return v
		}
		park() // out of range: draw again
	}
}

// drawer returns the controlled goroutine or the recorded one the caller
// runs on; both nil in plain mode.
func drawer() (*sched.G, *record.Thread) {
	if !gls.Active() {
		return nil, nil
	}
	return lookup()
}

// Int returns a non-negative pseudo-random int, like rand.Int.
func Int() int {
	if g, t := drawer(); g != nil || t != nil {
		return int(draw(g, t, opInt, intRange))
	}
	return rand.Int()
}

// Int31 returns a non-negative pseudo-random 31-bit integer as an int32,
// like math/rand's Int31 and math/rand/v2's Int32.
func Int31() int32 {
	if g, t := drawer(); g != nil || t != nil {
		return int32(draw(g, t, opInt31, 1<<31))
	}
	return rand.Int32()
}

// Int31n returns a pseudo-random number in [0, n), like math/rand's Int31n
// and math/rand/v2's Int32N. It panics if n <= 0.
func Int31n(n int32) int32 {
	if n <= 0 {
		panic("sim.Int31n: invalid argument to Int31n")
	}
	if g, t := drawer(); g != nil || t != nil {
		return int32(draw(g, t, opInt31n, uint64(n)))
	}
	return rand.Int32N(n)
}

// Int63 returns a non-negative pseudo-random 63-bit integer as an int64,
// like math/rand's Int63 and math/rand/v2's Int64.
func Int63() int64 {
	if g, t := drawer(); g != nil || t != nil {
		return int64(draw(g, t, opInt63, 1<<63))
	}
	return rand.Int64()
}

// Int63n returns a pseudo-random number in [0, n), like math/rand's Int63n
// and math/rand/v2's Int64N. It panics if n <= 0.
func Int63n(n int64) int64 {
	if n <= 0 {
		panic("sim.Int63n: invalid argument to Int63n")
	}
	if g, t := drawer(); g != nil || t != nil {
		return int64(draw(g, t, opInt63n, uint64(n)))
	}
	return rand.Int64N(n)
}

// Uint returns a pseudo-random uint, like math/rand/v2's Uint.
func Uint() uint {
	if g, t := drawer(); g != nil || t != nil {
		return uint(draw(g, t, opRandUint, uintRange))
	}
	return rand.Uint()
}

// RandUint32 returns a pseudo-random 32-bit value as a uint32, like rand's
// Uint32.
func RandUint32() uint32 {
	if g, t := drawer(); g != nil || t != nil {
		return uint32(draw(g, t, opUint32, 1<<32))
	}
	return rand.Uint32()
}

// RandUint64 returns a pseudo-random 64-bit value as a uint64, like rand's
// Uint64.
func RandUint64() uint64 {
	if g, t := drawer(); g != nil || t != nil {
		return draw(g, t, opUint64, 0)
	}
	return rand.Uint64()
}

// Float32 returns a pseudo-random number in [0.0, 1.0), like rand.Float32:
// under control, 24 random bits over 2^24.
func Float32() float32 {
	if g, t := drawer(); g != nil || t != nil {
		return float32(draw(g, t, opFloat32, 1<<24)) / (1 << 24)
	}
	return rand.Float32()
}

// Float64 returns a pseudo-random number in [0.0, 1.0), like rand.Float64:
// under control, 53 random bits over 2^53.
func Float64() float64 {
	if g, t := drawer(); g != nil || t != nil {
		return float64(draw(g, t, opFloat64, 1<<53)) / (1 << 53)
	}
	return rand.Float64()
}

// Perm returns, as a slice of n ints, a pseudo-random permutation of the
// integers [0, n), like rand.Perm. Under control it is a Fisher–Yates
// shuffle, one operation each index drawn (none for n <= 1). It panics if
// n < 0.
func Perm(n int) []int {
	if g, t := drawer(); g != nil || t != nil {
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		for i := n - 1; i > 0; i-- {
			j := draw(g, t, opPerm, uint64(i+1))
			p[i], p[j] = p[j], p[i]
		}
		return p
	}
	return rand.Perm(n)
}

// Shuffle pseudo-randomizes the order of elements, like rand.Shuffle: n is
// the number of elements, and swap swaps the elements with indexes i and j.
// Under control it is a Fisher–Yates shuffle, one operation each index drawn
// (none for n <= 1), each before its swap; what swap does is its own events.
// It panics if n < 0.
func Shuffle(n int, swap func(i, j int)) {
	if n < 0 {
		panic("sim.Shuffle: invalid argument to Shuffle")
	}
	if g, t := drawer(); g != nil || t != nil {
		for i := n - 1; i > 0; i-- {
			swap(i, int(draw(g, t, opShuffle, uint64(i+1))))
		}
		return
	}
	rand.Shuffle(n, swap)
}

// IntN returns a pseudo-random number in [0, n), like math/rand/v2's IntN.
// It panics if n <= 0. Unlike Intn, it draws ranges wider than 2^16 in
// chunks.
func IntN(n int) int {
	if n <= 0 {
		panic("sim.IntN: invalid argument to IntN")
	}
	if g, t := drawer(); g != nil || t != nil {
		return int(draw(g, t, opIntN, uint64(n)))
	}
	return rand.IntN(n)
}

// Int32N returns a pseudo-random number in [0, n), like math/rand/v2's
// Int32N. It panics if n <= 0.
func Int32N(n int32) int32 {
	if n <= 0 {
		panic("sim.Int32N: invalid argument to Int32N")
	}
	if g, t := drawer(); g != nil || t != nil {
		return int32(draw(g, t, opInt32N, uint64(n)))
	}
	return rand.Int32N(n)
}

// Int64N returns a pseudo-random number in [0, n), like math/rand/v2's
// Int64N. It panics if n <= 0.
func Int64N(n int64) int64 {
	if n <= 0 {
		panic("sim.Int64N: invalid argument to Int64N")
	}
	if g, t := drawer(); g != nil || t != nil {
		return int64(draw(g, t, opInt64N, uint64(n)))
	}
	return rand.Int64N(n)
}

// UintN returns a pseudo-random number in [0, n), like math/rand/v2's UintN.
// It panics if n == 0.
func UintN(n uint) uint {
	if n == 0 {
		panic("sim.UintN: invalid argument to UintN")
	}
	if g, t := drawer(); g != nil || t != nil {
		return uint(draw(g, t, opUintN, uint64(n)))
	}
	return rand.UintN(n)
}

// Uint32N returns a pseudo-random number in [0, n), like math/rand/v2's
// Uint32N. It panics if n == 0.
func Uint32N(n uint32) uint32 {
	if n == 0 {
		panic("sim.Uint32N: invalid argument to Uint32N")
	}
	if g, t := drawer(); g != nil || t != nil {
		return uint32(draw(g, t, opUint32N, uint64(n)))
	}
	return rand.Uint32N(n)
}

// Uint64N returns a pseudo-random number in [0, n), like math/rand/v2's
// Uint64N. It panics if n == 0.
func Uint64N(n uint64) uint64 {
	if n == 0 {
		panic("sim.Uint64N: invalid argument to Uint64N")
	}
	if g, t := drawer(); g != nil || t != nil {
		return draw(g, t, opUint64N, n)
	}
	return rand.Uint64N(n)
}

// intType is the constraint of N, as in math/rand/v2.
type intType interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// N returns a pseudo-random number in [0, n), like math/rand/v2's N: for
// instance N(10*time.Second). It panics if n <= 0.
func N[Int intType](n Int) Int {
	if n <= 0 {
		panic("sim.N: invalid argument to N")
	}
	if g, t := drawer(); g != nil || t != nil {
		return Int(draw(g, t, opN, uint64(n)))
	}
	return rand.N(n)
}

package workload

import (
	"fmt"

	"github.com/weftdev/weft/sim"
)

// CounterParams configure the hot atomic counter workload (Counter).
type CounterParams struct {
	// Workers is the number of goroutines incrementing the counter
	// (default 4).
	Workers int
	// Size is the number of increments each worker makes (default 10000),
	// the knob of the workload's length: one operation each.
	Size int
	// Buggy makes the increment a Load and a separate Store of the
	// sim.Int64: increments made in between are lost. It is a logic race,
	// not a data race, since both are atomic.
	Buggy bool
}

// BuggyCounterParams are the tuned parameters of the buggy counter.
var BuggyCounterParams = CounterParams{Workers: 2, Size: 1000, Buggy: true}

func (p CounterParams) withDefaults() CounterParams {
	if p.Workers <= 0 {
		p.Workers = 4
	}
	if p.Size <= 0 {
		p.Size = 10000
	}
	return p
}

// Events estimates the operations of one run.
func (p CounterParams) Events() int {
	p = p.withDefaults()
	per := 1
	if p.Buggy {
		per = 2
	}
	return p.Workers*(p.Size*per+2) + 2
}

// Counter returns the body of the hot counter workload: p.Workers
// goroutines each add 1 to one sim.Int64 p.Size times. The body checks the
// final count, and panics with "counter: X, want Y" if it is wrong.
func Counter(p CounterParams) func() {
	p = p.withDefaults()
	return func() {
		var n sim.Int64
		g := newGate(p.Workers)
		var wg sim.WaitGroup
		for range p.Workers {
			wg.Go(func() {
				g.wait()
				for range p.Size {
					if p.Buggy {
						n.Store(n.Load() + 1)
					} else {
						n.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if got, want := n.Load(), int64(p.Workers*p.Size); got != want {
			panic(fmt.Sprintf("counter: %d, want %d", got, want))
		}
	}
}

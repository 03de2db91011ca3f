package workload

import (
	"fmt"

	"github.com/weftdev/weft/sim"
)

// PipelineParams configure the channel pipeline workload (Pipeline).
type PipelineParams struct {
	// Size is the number of items through the pipeline (default 10000),
	// the knob of the workload's length: an item is about 4 operations.
	Size int
	// Workers is the number of goroutines of the middle stage (default 2).
	Workers int
	// Buffer is the capacity of the channel from the middle stage to the
	// last (default 16); the channel into the middle stage is unbuffered.
	Buffer int
}

const pipelineEventsPerItem = 4

func (p PipelineParams) withDefaults() PipelineParams {
	if p.Size <= 0 {
		p.Size = 10000
	}
	if p.Workers <= 0 {
		p.Workers = 2
	}
	if p.Buffer <= 0 {
		p.Buffer = 16
	}
	return p
}

// Events estimates the operations of one run.
func (p PipelineParams) Events() int {
	p = p.withDefaults()
	return p.Size*pipelineEventsPerItem + 4*p.Workers + 10
}

func pipelineStage(v int64) int64 { return v*v%1000003 + 1 }

// Pipeline returns the body of the pipeline workload: a source goroutine
// sends 1..p.Size on an unbuffered sim.Chan; p.Workers goroutines receive
// them, transform them and send the results on a buffered sim.Chan, closed
// when they are all done; a sink goroutine sums the results and sends the
// sum to the body on an unbuffered sim.Chan. The body checks the sum, and
// panics with "pipeline: sum X, want Y" if it is wrong.
func Pipeline(p PipelineParams) func() {
	p = p.withDefaults()
	var want int64
	for i := 1; i <= p.Size; i++ {
		want += pipelineStage(int64(i))
	}
	return func() {
		in := sim.NewChan[int64](0)
		mid := sim.NewChan[int64](p.Buffer)
		out := sim.NewChan[int64](0)
		sim.Go(func() {
			for i := 1; i <= p.Size; i++ {
				in.Send(int64(i))
			}
			in.Close()
		})
		var wg sim.WaitGroup
		for range p.Workers {
			wg.Go(func() {
				for v := range in.All() {
					mid.Send(pipelineStage(v))
				}
			})
		}
		sim.Go(func() {
			wg.Wait()
			mid.Close()
		})
		sim.Go(func() {
			var sum int64
			for v := range mid.All() {
				sum += v
			}
			out.Send(sum)
		})
		if sum := out.Recv(); sum != want {
			panic(fmt.Sprintf("pipeline: sum %d, want %d", sum, want))
		}
	}
}

package workload

import (
	"fmt"

	"github.com/weftdev/weft/sim"
)

// JacobiParams configure the parallel numeric kernel (Jacobi).
type JacobiParams struct {
	// Cells is the length of the arrays (default 1024).
	Cells int
	// Workers is the number of goroutines, each owning a contiguous slice
	// of the cells (default 4).
	Workers int
	// Size is the number of sweeps (default 16), the knob of the
	// workload's length: a sweep is about 4 operations per cell.
	Size int
}

const jacobiEventsPerCell = 4

func (p JacobiParams) withDefaults() JacobiParams {
	if p.Cells <= 0 {
		p.Cells = 1024
	}
	if p.Workers <= 0 {
		p.Workers = 4
	}
	p.Workers = min(p.Workers, p.Cells)
	if p.Size <= 0 {
		p.Size = 16
	}
	return p
}

// Events estimates the operations of one run.
func (p JacobiParams) Events() int {
	p = p.withDefaults()
	return p.Size*(p.Cells*jacobiEventsPerCell+2*p.Workers+1) + 2*p.Cells + 2*p.Workers
}

// smooth is the kernel: a weighted mean of a cell and its neighbours.
func smooth(left, mid, right int64) int64 { return (left + 2*mid + right) / 4 }

// Jacobi returns the body of the numeric kernel: Jacobi-style smoothing of
// a ring of p.Cells sim.Var[int64] cells, for p.Size sweeps. Each of
// p.Workers goroutines owns a slice of the cells; in each sweep it reads
// its cells and their neighbours from the previous array (three loads per
// cell) and writes its cells of the next one (one store). Sweeps are
// separated by a barrier, a sim.WaitGroup per sweep on which every worker
// calls Done and then Wait, so that no cell is read while it is written.
// The body then compares the result with a sequential computation, and
// panics with "jacobi: ..." if they differ.
func Jacobi(p JacobiParams) func() {
	p = p.withDefaults()
	n := p.Cells
	initial := make([]int64, n)
	r := rng(4, 0)
	for i := range initial {
		initial[i] = r.Int64N(1 << 20)
	}
	want := append([]int64(nil), initial...)
	next := make([]int64, n)
	for range p.Size {
		for i := range want {
			next[i] = smooth(want[(i+n-1)%n], want[i], want[(i+1)%n])
		}
		want, next = next, want
	}
	return func() {
		arrays := [2][]sim.Var[int64]{make([]sim.Var[int64], n), make([]sim.Var[int64], n)}
		for i, v := range initial {
			arrays[0][i].Store(v)
		}
		barriers := make([]sim.WaitGroup, p.Size)
		for i := range barriers {
			barriers[i].Add(p.Workers)
		}
		var wg sim.WaitGroup
		for w := range p.Workers {
			lo, hi := w*n/p.Workers, (w+1)*n/p.Workers
			wg.Go(func() {
				for s := range p.Size {
					prev, next := arrays[s%2], arrays[(s+1)%2]
					for i := lo; i < hi; i++ {
						next[i].Store(smooth(prev[(i+n-1)%n].Load(), prev[i].Load(), prev[(i+1)%n].Load()))
					}
					barriers[s].Done()
					barriers[s].Wait()
				}
			})
		}
		wg.Wait()
		final := arrays[p.Size%2]
		for i := range final {
			if got := final[i].Load(); got != want[i] {
				panic(fmt.Sprintf("jacobi: cell %d is %d after %d sweeps, want %d", i, got, p.Size, want[i]))
			}
		}
	}
}

package sim_test

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/sim"
)

// Plain-mode cost: each primitive against its standard library twin, with
// the same workload, named so that benchstat shows them side by side:
//
//	go test -run XXX -bench BenchmarkPlain -count 6 ./sim | tee /tmp/plain.txt
//	benchstat -col /impl /tmp/plain.txt
//
// The goal is a sim/std ratio of at most 1.5.

var (
	// benchN is Intn's argument: a variable, so that the compiler folds it
	// into neither twin (rand.IntN inlines into the loop, sim.Intn does not).
	benchN = 10

	sinkInt  int
	sinkI64  int64
	sinkTime time.Time
)

// pair runs the sim and std variants of one primitive as sub-benchmarks
// name/impl=sim and name/impl=std.
func pair(b *testing.B, name string, simf, stdf func(b *testing.B)) {
	b.Run(name+"/impl=sim", func(b *testing.B) {
		b.ReportAllocs()
		simf(b)
	})
	b.Run(name+"/impl=std", func(b *testing.B) {
		b.ReportAllocs()
		stdf(b)
	})
}

func BenchmarkPlain(b *testing.B) {
	pair(b, "Mutex",
		func(b *testing.B) {
			var mu sim.Mutex
			for b.Loop() {
				mu.Lock()
				mu.Unlock()
			}
		},
		func(b *testing.B) {
			var mu sync.Mutex
			for b.Loop() {
				mu.Lock()
				mu.Unlock()
			}
		})
	pair(b, "MutexParallel",
		func(b *testing.B) {
			var mu sim.Mutex
			n := 0
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mu.Lock()
					n++
					mu.Unlock()
				}
			})
			sinkInt = n
		},
		func(b *testing.B) {
			var mu sync.Mutex
			n := 0
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mu.Lock()
					n++
					mu.Unlock()
				}
			})
			sinkInt = n
		})
	pair(b, "RWMutexRLock",
		func(b *testing.B) {
			var rw sim.RWMutex
			for b.Loop() {
				rw.RLock()
				rw.RUnlock()
			}
		},
		func(b *testing.B) {
			var rw sync.RWMutex
			for b.Loop() {
				rw.RLock()
				rw.RUnlock()
			}
		})
	pair(b, "RWMutexRLockParallel",
		func(b *testing.B) {
			var rw sim.RWMutex
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rw.RLock()
					rw.RUnlock()
				}
			})
		},
		func(b *testing.B) {
			var rw sync.RWMutex
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rw.RLock()
					rw.RUnlock()
				}
			})
		})
	pair(b, "RWMutexLock",
		func(b *testing.B) {
			var rw sim.RWMutex
			for b.Loop() {
				rw.Lock()
				rw.Unlock()
			}
		},
		func(b *testing.B) {
			var rw sync.RWMutex
			for b.Loop() {
				rw.Lock()
				rw.Unlock()
			}
		})
	pair(b, "WaitGroup",
		func(b *testing.B) {
			var wg sim.WaitGroup
			for b.Loop() {
				wg.Add(1)
				wg.Done()
			}
		},
		func(b *testing.B) {
			var wg sync.WaitGroup
			for b.Loop() {
				wg.Add(1)
				wg.Done()
			}
		})
	pair(b, "Once",
		func(b *testing.B) {
			var once sim.Once
			f := func() { sinkInt++ }
			once.Do(f)
			for b.Loop() {
				once.Do(f)
			}
		},
		func(b *testing.B) {
			var once sync.Once
			f := func() { sinkInt++ }
			once.Do(f)
			for b.Loop() {
				once.Do(f)
			}
		})
	pair(b, "ChanBuffered",
		func(b *testing.B) {
			ch := sim.NewChan[int](1)
			for b.Loop() {
				ch.Send(1)
				sinkInt = ch.Recv()
			}
		},
		func(b *testing.B) {
			ch := make(chan int, 1)
			for b.Loop() {
				ch <- 1
				sinkInt = <-ch
			}
		})
	pair(b, "ChanPingPong",
		func(b *testing.B) {
			ping, pong := sim.NewChan[int](0), sim.NewChan[int](0)
			go func() {
				for v := range ping.All() {
					pong.Send(v)
				}
			}()
			for b.Loop() {
				ping.Send(1)
				sinkInt = pong.Recv()
			}
			ping.Close()
		},
		func(b *testing.B) {
			ping, pong := make(chan int), make(chan int)
			go func() {
				for v := range ping {
					pong <- v
				}
			}()
			for b.Loop() {
				ping <- 1
				sinkInt = <-pong
			}
			close(ping)
		})
	pair(b, "Select",
		// One ready case (a closed channel) among two.
		func(b *testing.B) {
			ready, empty := sim.NewChan[int](0), sim.NewChan[int](0)
			ready.Close()
			for b.Loop() {
				sinkInt = sim.Select(sim.OnRecv(ready, nil), sim.OnRecv(empty, nil))
			}
		},
		func(b *testing.B) {
			ready, empty := make(chan int), make(chan int)
			close(ready)
			for b.Loop() {
				select {
				case <-ready:
					sinkInt = 0
				case <-empty:
					sinkInt = 1
				}
			}
		})
	pair(b, "SelectDefault",
		// Nothing ready: the default case.
		func(b *testing.B) {
			empty := sim.NewChan[int](0)
			for b.Loop() {
				sinkInt = sim.Select(sim.OnRecv(empty, nil), sim.OnDefault(nil))
			}
		},
		func(b *testing.B) {
			empty := make(chan int)
			for b.Loop() {
				select {
				case <-empty:
					sinkInt = 0
				default:
					sinkInt = 1
				}
			}
		})
	pair(b, "Var",
		func(b *testing.B) {
			var x sim.Var[int]
			for b.Loop() {
				x.Store(x.Load() + 1)
			}
			sinkInt = x.Load()
		},
		func(b *testing.B) {
			x := new(int)
			for b.Loop() {
				*x = *x + 1
			}
			sinkInt = *x
		})
	pair(b, "Int64Add",
		func(b *testing.B) {
			var x sim.Int64
			for b.Loop() {
				x.Add(1)
			}
			sinkI64 = x.Load()
		},
		func(b *testing.B) {
			var x atomic.Int64
			for b.Loop() {
				x.Add(1)
			}
			sinkI64 = x.Load()
		})
	pair(b, "Int64AddParallel",
		func(b *testing.B) {
			var x sim.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					x.Add(1)
				}
			})
			sinkI64 = x.Load()
		},
		func(b *testing.B) {
			var x atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					x.Add(1)
				}
			})
			sinkI64 = x.Load()
		})
	pair(b, "Now",
		func(b *testing.B) {
			for b.Loop() {
				sinkTime = sim.Now()
			}
		},
		func(b *testing.B) {
			for b.Loop() {
				sinkTime = time.Now()
			}
		})
	pair(b, "Intn",
		func(b *testing.B) {
			for b.Loop() {
				sinkInt = sim.Intn(benchN)
			}
		},
		func(b *testing.B) {
			for b.Loop() {
				sinkInt = rand.IntN(benchN)
			}
		})
}

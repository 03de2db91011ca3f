package sim_test

import (
	"testing"
	"time"

	racedetector "github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/internal/racetest"
	"github.com/weftdev/weft/sim"
	"github.com/weftdev/weft/sim/simctx"
	weft "github.com/weftdev/weft/testing"
)

// Under the race detector (go test -race), each primitive tells it the
// happens-before edges of the Go primitive it stands for. For each, a
// correctly synchronized body must never be reported, whatever the
// schedule, and the same body without the edge must be: found, saved and
// replayed as a race.

// raceCase is a program using one primitive, synchronized and racy.
type raceCase struct {
	name         string
	synchronized func(t *weft.T)
	racy         func(t *weft.T)
}

// read uses v, so that the compiler keeps the load of the variable read.
//
//go:noinline
func read(t *weft.T, v int) {
	if v < 0 {
		t.Errorf("negative: %d", v)
	}
}

var raceCases = []raceCase{
	{"go", // a go statement happens before the goroutine starts
		func(t *weft.T) {
			x := 1
			var wg sim.WaitGroup
			wg.Go(func() { read(t, x) })
			wg.Wait()
		},
		func(t *weft.T) {
			x := 0
			var wg sim.WaitGroup
			wg.Go(func() { read(t, x) })
			x = 1
			wg.Wait()
		}},
	{"mutex", // an Unlock happens before the next Lock
		func(t *weft.T) {
			var mu sim.Mutex
			var wg sim.WaitGroup
			n := 0
			for range 2 {
				wg.Go(func() {
					mu.Lock()
					n++
					mu.Unlock()
				})
			}
			wg.Wait()
			read(t, n)
		},
		func(t *weft.T) {
			var mu sim.Mutex
			var wg sim.WaitGroup
			n := 0
			wg.Go(func() {
				mu.Lock()
				n++
				mu.Unlock()
			})
			wg.Go(func() { n++ }) // without the lock
			wg.Wait()
		}},
	{"rwmutex", // readers share the lock; a writer's Unlock happens before the next RLock
		func(t *weft.T) {
			var rw sim.RWMutex
			var wg sim.WaitGroup
			x := 0
			for range 2 {
				wg.Go(func() {
					rw.RLock()
					read(t, x)
					rw.RUnlock()
				})
			}
			wg.Go(func() {
				rw.Lock()
				x++
				rw.Unlock()
			})
			wg.Wait()
		},
		func(t *weft.T) {
			var rw sim.RWMutex
			var wg sim.WaitGroup
			x := 0
			wg.Go(func() {
				rw.RLock()
				read(t, x)
				rw.RUnlock()
			})
			wg.Go(func() {
				rw.RLock()
				x++ // a write under a read lock
				rw.RUnlock()
			})
			wg.Wait()
		}},
	{"unbuffered", // ownership passed over an unbuffered channel, both ways
		func(t *weft.T) {
			ch := sim.NewChan[*int](0)
			back := sim.NewChan[bool](0)
			y := 0
			sim.Go(func() {
				p := ch.Recv()
				*p++
				y = 1 // before the receive below completes the send
				back.Recv()
			})
			x := 1
			ch.Send(&x)
			back.Send(true)
			read(t, y) // the receive happened before this send completed
		},
		func(t *weft.T) {
			ch := sim.NewChan[*int](0)
			done := sim.NewChan[bool](0)
			sim.Go(func() {
				p := ch.Recv()
				*p++
				done.Send(true)
			})
			x := 1
			ch.Send(&x)
			x++ // still writing what it gave away
			done.Recv()
		}},
	{"semaphore", // a buffered channel of capacity 1 as a lock: the k-th receive happens before the (k+1)-th send completes
		func(t *weft.T) {
			sem := sim.NewChan[struct{}](1)
			var wg sim.WaitGroup
			n := 0
			for range 3 {
				wg.Go(func() {
					sem.Send(struct{}{})
					n++
					sem.Recv()
				})
			}
			wg.Wait()
			read(t, n)
		},
		func(t *weft.T) {
			sem := sim.NewChan[struct{}](2) // two holders at once
			var wg sim.WaitGroup
			n := 0
			for range 2 {
				wg.Go(func() {
					sem.Send(struct{}{})
					n++
					sem.Recv()
				})
			}
			wg.Wait()
		}},
	{"close", // a close happens before the receives that see it
		func(t *weft.T) {
			done := sim.NewChan[struct{}](0)
			x := 0
			sim.Go(func() {
				x = 1
				done.Close()
			})
			done.Recv()
			read(t, x)
		},
		func(t *weft.T) {
			done := sim.NewChan[struct{}](0)
			x := 0
			var wg sim.WaitGroup
			wg.Go(func() {
				done.Close()
				x = 1
			})
			done.Recv()
			read(t, x)
			wg.Wait()
		}},
	{"waitgroup", // a worker pool joined with a WaitGroup: Done happens before Wait returns
		func(t *weft.T) {
			results := make([]int, 3)
			var wg sim.WaitGroup
			for i := range results {
				wg.Go(func() { results[i] = i })
			}
			wg.Wait()
			for _, r := range results {
				read(t, r)
			}
		},
		func(t *weft.T) {
			results := make([]int, 2)
			var wg sim.WaitGroup
			for i := range results {
				wg.Add(1)
				sim.Go(func() {
					wg.Done()
					results[i] = i // after Done
				})
			}
			wg.Wait()
			read(t, results[0]+results[1])
		}},
	{"waitgroupadd", // the Add from zero happens before a Wait that blocks, as sync.WaitGroup checks
		func(t *weft.T) {
			var wg sim.WaitGroup
			for range 2 { // reused: the second Add from zero follows the first Wait
				wg.Add(1)
				sim.Go(func() { wg.Done() })
				wg.Wait()
			}
		},
		func(t *weft.T) {
			var wg sim.WaitGroup
			sim.Go(func() {
				wg.Add(1) // counted by itself: not ordered with Wait
				wg.Done()
			})
			wg.Wait()
		}},
	{"once", // f's return happens before every Do returns
		func(t *weft.T) {
			var once sim.Once
			var config *int
			var wg sim.WaitGroup
			for range 2 {
				wg.Go(func() {
					once.Do(func() { config = new(int) })
					read(t, *config)
				})
			}
			wg.Wait()
		},
		func(t *weft.T) {
			var once sim.Once
			var config *int
			var wg sim.WaitGroup
			wg.Go(func() { once.Do(func() { config = new(int) }) })
			wg.Go(func() {
				if config != nil { // without Do
					read(t, *config)
				}
			})
			wg.Wait()
		}},
	{"cond", // a Cond synchronizes through its lock
		func(t *weft.T) {
			var mu sim.Mutex
			cond := sim.NewCond(&mu)
			var queue []int
			sim.Go(func() {
				mu.Lock()
				queue = append(queue, 1)
				mu.Unlock()
				cond.Signal()
			})
			mu.Lock()
			for len(queue) == 0 {
				cond.Wait()
			}
			read(t, queue[0])
			mu.Unlock()
		},
		func(t *weft.T) {
			var mu sim.Mutex
			cond := sim.NewCond(&mu)
			var queue []int
			sim.Go(func() {
				queue = append(queue, 1) // outside the lock
				mu.Lock()
				cond.Signal()
				mu.Unlock()
			})
			mu.Lock()
			for len(queue) == 0 {
				cond.Wait()
			}
			mu.Unlock()
		}},
	{"atomic", // data published with an atomic flag
		func(t *weft.T) {
			var ready sim.Bool
			data := 0
			sim.Go(func() {
				data = 1
				ready.Store(true)
			})
			for !ready.Load() {
				sim.Yield()
			}
			read(t, data)
		},
		func(t *weft.T) {
			var ready sim.Bool
			data := 0
			var wg sim.WaitGroup
			wg.Go(func() {
				ready.Store(true)
				data = 1 // after the flag
			})
			for !ready.Load() {
				sim.Yield()
			}
			read(t, data)
			wg.Wait()
		}},
	{"afterfunc", // AfterFunc's call happens before its function starts
		func(t *weft.T) {
			done := sim.NewChan[struct{}](0)
			x := 1
			sim.AfterFunc(time.Second, func() {
				read(t, x)
				done.Close()
			})
			done.Recv()
		},
		func(t *weft.T) {
			done := sim.NewChan[struct{}](0)
			x := 0
			sim.AfterFunc(time.Second, func() {
				read(t, x)
				done.Close()
			})
			x = 1
			done.Recv()
		}},
	{"timer", // setting a timer happens before the receive of its time
		func(t *weft.T) {
			x := 1
			tm := sim.NewTimer(time.Second)
			done := sim.NewChan[struct{}](0)
			sim.Go(func() {
				tm.C.Recv()
				read(t, x)
				done.Close()
			})
			done.Recv()
		},
		func(t *weft.T) {
			x := 0
			tm := sim.NewTimer(time.Second)
			done := sim.NewChan[struct{}](0)
			sim.Go(func() {
				tm.C.Recv()
				read(t, x)
				done.Close()
			})
			x = 1
			done.Recv()
		}},
	{"context", // a cancellation happens before the receives of Done that see it
		func(t *weft.T) {
			ctx, cancel := simctx.WithCancel(simctx.Background())
			x := 0
			var wg sim.WaitGroup
			wg.Go(func() {
				ctx.Done().Recv()
				read(t, x)
			})
			x = 1
			cancel()
			wg.Wait()
		},
		func(t *weft.T) {
			ctx, cancel := simctx.WithCancel(simctx.Background())
			x := 0
			var wg sim.WaitGroup
			wg.Go(func() {
				ctx.Done().Recv()
				read(t, x)
			})
			cancel()
			x = 1
			wg.Wait()
		}},
	{"map", // a store happens before the loads that see it
		func(t *weft.T) {
			var m sim.Map
			sim.Go(func() { m.Store("k", &[]int{1}[0]) })
			for {
				if v, ok := m.Load("k"); ok {
					read(t, *v.(*int))
					return
				}
				sim.Yield()
			}
		},
		func(t *weft.T) {
			var m sim.Map
			var wg sim.WaitGroup
			wg.Go(func() {
				p := new(int)
				m.Store("k", p)
				*p = 1 // after the store
			})
			for {
				if v, ok := m.Load("k"); ok {
					read(t, *v.(*int))
					break
				}
				sim.Yield()
			}
			wg.Wait()
		}},
}

// raceFreeExecutions is how many executions TestNoFalseRace explores each
// synchronized body with (-short: 200).
const raceFreeExecutions = 2000

// TestNoFalseRace explores each correctly synchronized body: under -race,
// any report fails the test (the testing package counts them), and weft
// must find no failure.
func TestNoFalseRace(t *testing.T) {
	n := raceFreeExecutions
	if testing.Short() {
		n = 200
	}
	for _, c := range raceCases {
		t.Run(c.name, func(t *testing.T) {
			f, err := weft.Find(c.synchronized, weft.Iterations(n))
			if err != nil {
				t.Fatal(err)
			}
			if f != nil {
				t.Fatalf("weft flags a synchronized program: %s", f.Failure.Summary())
			}
		})
	}
}

// TestRacy holds the racy bodies, run by TestRacesFound in a child process.
func TestRacy(t *testing.T) {
	if !racetest.Child() {
		t.Skip("run by TestRacesFound")
	}
	for _, c := range raceCases {
		t.Run(c.name, func(t *testing.T) { weft.Check(t, c.racy) })
	}
}

// TestRacesFound checks that each racy body is found as a data race, saved,
// and replayed with the same race.
func TestRacesFound(t *testing.T) {
	var tests []string
	for _, c := range raceCases {
		tests = append(tests, "TestRacy/"+c.name)
	}
	racetest.Check(t, "^TestRacy$", tests, "-explore.iters=2000")
}

// Without the race detector, the racy bodies pass when their values do not
// go wrong: weft interleaves, it does not check memory.
func TestRacyPassWithoutRaceDetector(t *testing.T) {
	if racedetector.Enabled {
		t.Skip("the race detector would report them")
	}
	for _, c := range raceCases {
		if f, err := weft.Find(c.racy, weft.Iterations(100)); err != nil || f != nil {
			t.Errorf("%s: %v %v", c.name, f, err)
		}
	}
}

// TestNoFalseRaceInControllerState explores a body that makes the
// controller change its own state from goroutines the race detector sees
// as unordered: the tree of goroutines that can run grows on one goroutine
// and again on another, and a timer the root set starts the root's child
// on whichever goroutine moves the clock. The controller's state is not
// the program's: under -race, none of this may be reported.
func TestNoFalseRaceInControllerState(t *testing.T) {
	body := func(t *weft.T) {
		var wg sim.WaitGroup
		fired := sim.NewChan[int](1)
		sim.AfterFunc(time.Second, func() { fired.Send(1) })
		for i := range 3 {
			wg.Go(func() {
				for range 10 * i {
					wg.Go(func() { sim.Sleep(time.Duration(i) * time.Second) })
				}
			})
		}
		wg.Wait()
		read(t, fired.Recv())
	}
	f, err := weft.Find(body, weft.Iterations(50))
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		t.Fatalf("weft flags a synchronized program: %s", f.Failure.Summary())
	}
}

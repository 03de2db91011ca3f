package sim_test

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"
	"unsafe"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Recording-mode tests, with a recorder that records nothing.

type nopRecorder struct{}

func (*nopRecorder) Algorithm() string                                        { return "nop" }
func (*nopRecorder) NewThread(*record.Thread)                                 {}
func (*nopRecorder) NewLoc(*record.Loc)                                       {}
func (*nopRecorder) ReadBegin(*record.Thread, *record.Loc) uint64             { return 0 }
func (*nopRecorder) ReadEnd(*record.Thread, *record.Loc, uint64, uint64) bool { return false }
func (*nopRecorder) WriteBegin(*record.Thread, *record.Loc)                   {}
func (*nopRecorder) WriteEnd(*record.Thread, *record.Loc, sched.Access, uint64, uint64) {
}
func (*nopRecorder) Sync(*record.Thread, *record.Loc, sched.Access, uint64) {}
func (*nopRecorder) ExitThread(*record.Thread)                              {}
func (*nopRecorder) Close([]*record.Loc)                                    {}

// firstStrategy runs the default policy and chooses 0.
type firstStrategy struct{}

func (firstStrategy) Spawned(*sched.G)                {}
func (firstStrategy) Next(d *sched.Decision) *sched.G { return d.Default }
func (firstStrategy) Choose(*sched.G, int) int        { return 0 }

func recordRun(t *testing.T, body func(), opts record.Options) (*record.Result, *record.Log) {
	t.Helper()
	opts.Dir = t.TempDir()
	res, err := record.Record(body, &nopRecorder{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(res.Log)
	log, err := record.ReadFile(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	return res, log
}

// Vars that outlive the runs of "var first", whose values stay the same.
var keptStored, keptLoaded sim.Var[int]

// sequential programs exercising every primitive: recording must count the
// operations exactly as the controller does, and read the same values.
var sequential = map[string]func(){
	"var": func() {
		v := sim.NewVar(3)
		v.Store(v.Load() + 1)
		_ = v.Load()
	},
	"var first": func() {
		// A Var's first access in the run, a store and a load, on fresh
		// Vars and on Vars that kept the state of an earlier execution
		// (storeOther, loadOther), and a Var whose values are not words.
		var w sim.Var[string]
		w.Store("a")
		keptStored.Store(7)
		_ = keptLoaded.Load()
		_ = w.Load()
	},
	"atomics": func() {
		var i32 sim.Int32
		var i64 sim.Int64
		var u32 sim.Uint32
		var u64 sim.Uint64
		var up sim.Uintptr
		var b sim.Bool
		var p sim.Pointer[int]
		var v sim.Value
		i32.Store(1)
		i32.Add(2)
		i32.Swap(5)
		i32.CompareAndSwap(5, 6)
		i32.CompareAndSwap(5, 7)
		_ = i32.Load()
		i64.Add(9)
		_ = i64.Load()
		u32.Add(1)
		u64.Swap(3)
		_ = u64.Load()
		up.Add(2)
		b.Store(true)
		_ = b.CompareAndSwap(true, false)
		x := 1
		p.Store(&x)
		_ = p.Load()
		v.Store(4)
		_ = v.Load()
	},
	"atomicfunc": func() {
		var a int64
		var b uint32
		var c uintptr
		var p unsafe.Pointer
		sim.AddInt64(&a, 3)
		sim.StoreInt64(&a, 9)
		_ = sim.LoadInt64(&a)
		sim.CompareAndSwapInt64(&a, 9, 1)
		sim.CompareAndSwapInt64(&a, 9, 2)
		sim.SwapUint32(&b, 7)
		sim.AndUint32(&b, 3)
		sim.OrUint32(&b, 8)
		_ = sim.LoadUint32(&b)
		sim.AddUintptr(&c, 1)
		sim.StorePointer(&p, nil)
		_ = sim.LoadPointer(&p)
	},
	"mutex": func() {
		var mu sim.Mutex
		mu.Lock()
		mu.Unlock()
		mu.TryLock()
		mu.Unlock()
		var rw sim.RWMutex
		rw.Lock()
		rw.TryRLock()
		rw.Unlock()
		rw.RLock()
		rw.TryLock()
		rw.RLocker().Lock()
		rw.RUnlock()
		rw.RUnlock()
	},
	"waitgroup": func() {
		var wg sim.WaitGroup
		wg.Add(2)
		wg.Done()
		wg.Done()
		wg.Wait()
		wg.Wait()
	},
	"cond": func() {
		var mu sim.Mutex
		c := sim.NewCond(&mu)
		c.Signal()
		c.Broadcast()
		mu.Lock()
		done := false
		sim.Go(func() {
			mu.Lock()
			done = true
			c.Signal()
			mu.Unlock()
		})
		for !done {
			c.Wait()
		}
		mu.Unlock()
	},
	"once": func() {
		var o sim.Once
		n := 0
		o.Do(func() { n++ })
		o.Do(func() { n++ })
		f := sim.OnceValue(func() int { return 4 })
		_ = f() + f()
	},
	"chan": func() {
		c := sim.NewChan[int](2)
		c.Send(1)
		c.Send(2)
		_ = c.Len()
		_ = c.Recv()
		_, _ = c.RecvOK()
		c.Close()
		_, _ = c.RecvOK()
		u := sim.NewChan[string](0)
		sim.Go(func() { u.Send("hi") })
		_ = u.Recv()
	},
	"select": func() {
		c := sim.NewChan[int](1)
		d := sim.NewChan[int](0)
		sim.Select(sim.OnRecv(c, nil), sim.OnDefault(nil))
		sim.Select(sim.OnSend(c, 5, nil), sim.OnRecv(d, nil))
		sim.Select(sim.OnRecv(c, func(int) {}), sim.OnSend(d, 1, nil), sim.OnDefault(nil))
		c.Close()
		sim.Select(sim.OnRecvOK(c, func(int, bool) {}), sim.OnRecv(d, nil))
	},
	"map": func() {
		var m sim.Map
		m.Store(1, "a")
		m.LoadOrStore(2, "b")
		m.Load(1)
		m.Swap(1, "c")
		m.CompareAndSwap(1, "c", "d")
		m.CompareAndDelete(2, "b")
		m.Range(func(k, v any) bool { return true })
		m.LoadAndDelete(1)
		m.Delete(3)
		m.Clear()
	},
	"time": func() {
		sim.Sleep(0)
		sim.Sleep(time.Millisecond)
		_ = sim.Now()
		tm := sim.NewTimer(time.Millisecond)
		tm.C.Recv()
		tm.Reset(time.Hour)
		tm.Stop()
		tk := sim.NewTicker(time.Millisecond)
		tk.C.Recv()
		tk.Reset(time.Hour)
		tk.Stop()
		// AfterFunc is left out: recording, its function waits on a
		// goroutine of its own from the start.
	},
	"rand": func() {
		_ = sim.Intn(10)
		_ = sim.RandUint64()
		_ = sim.Float64()
		_ = sim.Int63n(1 << 40)
		_ = sim.Perm(4)
		sim.Shuffle(3, func(i, j int) {})
	},
	"maprange": func() {
		for it := sim.MapRange(map[string]int{"a": 1, "b": 2, "c": 3}); it.Next(); {
			_ = sim.Intn(2)
		}
		for it := sim.MapRange(map[int]int{1: 1}); it.Next(); {
		}
	},
	"go": func() {
		sim.Go(func() { sim.Yield() })
		sim.Yield()
	},
}

func TestRecordCountsLikeControl(t *testing.T) {
	names := make([]string, 0, len(sequential))
	for n := range sequential {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		body := sequential[name]
		t.Run(name, func(t *testing.T) {
			ctl := sched.Run(body, firstStrategy{}, sched.Options{Digests: true})
			if ctl.Failure != nil {
				t.Fatalf("controlled: %v", ctl.Failure)
			}
			res, log := recordRun(t, body, record.Options{})
			if res.Failure != nil {
				t.Fatalf("recorded: %v", res.Failure)
			}
			if len(log.Threads) != len(ctl.Digests) {
				t.Fatalf("recorded %d goroutines, controlled %d", len(log.Threads), len(ctl.Digests))
			}
			for _, th := range log.Threads {
				d, ok := ctl.Digests[th.ID]
				if !ok {
					t.Fatalf("goroutine %s not controlled", th.ID)
				}
				if th.Ops != d.Ops {
					t.Errorf("goroutine %s: recorded %d operations, controlled %d", th.ID, th.Ops, d.Ops)
				}
				// Times read are real recording, virtual under control.
				if name != "time" && (th.Reads.Reads != d.Reads || th.Reads.Hash != d.Hash) {
					t.Errorf("goroutine %s: recorded reads %+v, controlled %+v", th.ID, th.Reads, d)
				}
			}
		})
	}
}

// recordMany runs body recorded n times; each run must pass.
func recordMany(t *testing.T, n int, body func(t *testing.T) func()) {
	t.Helper()
	for i := 0; i < n; i++ {
		res, _ := recordRun(t, body(t), record.Options{Seed: uint64(i), StallTimeout: 10 * time.Second})
		if res.Failure != nil {
			t.Fatalf("run %d: %s: %s\n%s", i, res.Failure.Kind, res.Failure.Message, res.Failure.Stack)
		}
	}
}

const recordRuns = 50

func TestRecordProducerConsumer(t *testing.T) {
	for _, capacity := range []int{0, 1, 4} {
		recordMany(t, recordRuns, func(t *testing.T) func() {
			return func() {
				c := sim.NewChan[int](capacity)
				done := sim.NewChan[int](0)
				const producers, each = 3, 50
				for p := 0; p < producers; p++ {
					sim.Go(func() {
						for i := 1; i <= each; i++ {
							c.Send(i)
						}
					})
				}
				sim.Go(func() {
					sum := 0
					for i := 0; i < producers*each; i++ {
						sum += c.Recv()
					}
					done.Send(sum)
				})
				if got, want := done.Recv(), producers*each*(each+1)/2; got != want {
					t.Errorf("capacity %d: sum %d, want %d", capacity, got, want)
				}
			}
		})
	}
}

func TestRecordSelect(t *testing.T) {
	recordMany(t, recordRuns, func(t *testing.T) func() {
		return func() {
			a, b := sim.NewChan[int](0), sim.NewChan[int](3)
			quit := sim.NewChan[struct{}](0)
			const n = 60
			sim.Go(func() {
				for i := 0; i < n; i++ {
					sim.Select(sim.OnSend(a, 1, nil), sim.OnSend(b, 2, nil))
				}
				quit.Close()
			})
			got, running := 0, true
			for running {
				sim.Select(
					sim.OnRecv(a, func(v int) { got += v }),
					sim.OnRecv(b, func(v int) { got += v }),
					sim.OnRecv(quit, func(struct{}) { running = false }),
				)
			}
			for b.Len() > 0 {
				got += b.Recv()
			}
			if got < n || got > 2*n {
				t.Errorf("received a total of %d from %d sends", got, n)
			}
			// Several ready cases.
			c, d := sim.NewChan[int](1), sim.NewChan[int](1)
			c.Send(1)
			d.Send(2)
			i := sim.Select(sim.OnRecv(c, nil), sim.OnRecv(d, nil), sim.OnDefault(nil))
			if i == 2 {
				t.Errorf("select took the default with two ready cases")
			}
		}
	})
}

func TestRecordSelectPairs(t *testing.T) {
	// Selects on both sides of two unbuffered channels: every pairing
	// completes exactly one case on each side.
	recordMany(t, recordRuns, func(t *testing.T) func() {
		return func() {
			a, b := sim.NewChan[int](0), sim.NewChan[int](0)
			var wg sim.WaitGroup
			var sent, recv sim.Int64
			for k := 0; k < 2; k++ {
				wg.Go(func() {
					for i := 0; i < 30; i++ {
						sim.Select(sim.OnSend(a, 1, nil), sim.OnSend(b, 1, nil))
						sent.Add(1)
					}
				})
				wg.Go(func() {
					for i := 0; i < 30; i++ {
						sim.Select(sim.OnRecv(a, func(v int) { recv.Add(int64(v)) }), sim.OnRecv(b, func(v int) { recv.Add(int64(v)) }))
					}
				})
			}
			wg.Wait()
			if sent.Load() != 60 || recv.Load() != 60 {
				t.Errorf("sent %d, received %d", sent.Load(), recv.Load())
			}
		}
	})
}

func TestRecordWaitGroupAndAtomics(t *testing.T) {
	recordMany(t, recordRuns, func(t *testing.T) func() {
		return func() {
			var wg sim.WaitGroup
			var n sim.Int64
			var raw int64
			var m sim.Map
			for k := 0; k < 4; k++ {
				wg.Go(func() {
					for i := 0; i < 200; i++ {
						n.Add(1)
						sim.AddInt64(&raw, 2)
						for {
							old := n.Load()
							if n.CompareAndSwap(old, old+1) {
								break
							}
						}
					}
					m.Store(k, k)
				})
			}
			wg.Wait()
			if n.Load() != 4*400 || sim.LoadInt64(&raw) != 4*400 {
				t.Errorf("counts %d and %d, want %d", n.Load(), raw, 4*400)
			}
			count := 0
			m.Range(func(k, v any) bool { count++; return true })
			if count != 4 {
				t.Errorf("map holds %d entries, want 4", count)
			}
		}
	})
}

func TestRecordCond(t *testing.T) {
	recordMany(t, recordRuns, func(t *testing.T) func() {
		return func() {
			var mu sim.Mutex
			c := sim.NewCond(&mu)
			queue, done := 0, 0
			var wg sim.WaitGroup
			for k := 0; k < 3; k++ {
				wg.Go(func() {
					mu.Lock()
					for queue == 0 {
						c.Wait()
					}
					queue--
					done++
					mu.Unlock()
				})
			}
			for k := 0; k < 3; k++ {
				mu.Lock()
				queue++
				c.Signal()
				mu.Unlock()
			}
			wg.Wait()
			// Broadcast.
			ready := false
			for k := 0; k < 3; k++ {
				wg.Go(func() {
					mu.Lock()
					for !ready {
						c.Wait()
					}
					mu.Unlock()
				})
			}
			mu.Lock()
			ready = true
			c.Broadcast()
			mu.Unlock()
			wg.Wait()
			if done != 3 {
				t.Errorf("%d waiters done, want 3", done)
			}
		}
	})
}

func TestRecordOnceAndRWMutex(t *testing.T) {
	recordMany(t, recordRuns, func(t *testing.T) func() {
		return func() {
			var once sim.Once
			var rw sim.RWMutex
			var calls sim.Int32
			shared := 0
			var wg sim.WaitGroup
			for k := 0; k < 4; k++ {
				wg.Go(func() {
					once.Do(func() { calls.Add(1); sim.Yield() })
					for i := 0; i < 20; i++ {
						if i%4 == 0 {
							rw.Lock()
							shared++
							rw.Unlock()
						} else {
							rw.RLock()
							_ = shared
							rw.RUnlock()
						}
					}
				})
			}
			wg.Wait()
			if calls.Load() != 1 || shared != 4*5 {
				t.Errorf("once ran %d times, shared %d", calls.Load(), shared)
			}
		}
	})
}

func TestRecordClose(t *testing.T) {
	recordMany(t, recordRuns, func(t *testing.T) func() {
		return func() {
			c := sim.NewChan[int](0)
			var wg sim.WaitGroup
			var zeros sim.Int32
			for k := 0; k < 3; k++ {
				wg.Go(func() {
					if v, ok := c.RecvOK(); !ok && v == 0 {
						zeros.Add(1)
					}
				})
			}
			c.Close()
			wg.Wait()
			if zeros.Load() != 3 {
				t.Errorf("%d receivers saw the close, want 3", zeros.Load())
			}
			panicked := func(f func()) (p bool) {
				defer func() { p = recover() != nil }()
				f()
				return false
			}
			if !panicked(func() { c.Send(1) }) || !panicked(c.Close) {
				t.Errorf("send on or close of a closed channel did not panic")
			}
			// A sender blocked when the channel closes panics.
			d := sim.NewChan[int](0)
			res := sim.NewChan[bool](1)
			sim.Go(func() { res.Send(panicked(func() { d.Send(1) })) })
			sim.Sleep(time.Millisecond)
			d.Close()
			if !res.Recv() {
				t.Errorf("a blocked sender did not panic at close")
			}
		}
	})
}

func TestRecordDeadlock(t *testing.T) {
	start := time.Now()
	res, err := record.Record(func() {
		a, b := sim.NewChan[int](0), sim.NewChan[int](0)
		sim.Go(func() { a.Recv() })
		b.Recv()
	}, &nopRecorder{}, record.Options{Dir: t.TempDir(), StallTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Kind != sched.Deadlock {
		t.Fatalf("failure %v, want a deadlock", res.Failure)
	}
	if res.Complete {
		t.Errorf("a deadlocked run's log is complete")
	}
	// Reported after the stall timeout, not never (a minute allows any load).
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the deadlock was reported after %v", d)
	}
}

// retryRecorder asks every recorded load to be repeated once, as Light does
// when a write raced with it.
type retryRecorder struct {
	nopRecorder
	reads int
}

func (r *retryRecorder) ReadEnd(*record.Thread, *record.Loc, uint64, uint64) bool {
	r.reads++
	return r.reads%2 == 1
}

// A recorded load repeated at the recorder's request (loadAgain) reads and
// counts as one load: the values and the digests are those of control.
func TestRecordLoadRepeated(t *testing.T) {
	body := func() {
		v := sim.NewVar(3)
		v.Store(v.Load() + 1)
		if got := v.Load(); got != 4 {
			panic(fmt.Sprintf("loaded %d, want 4", got))
		}
	}
	ctl := sched.Run(body, firstStrategy{}, sched.Options{Digests: true})
	rec := &retryRecorder{}
	res, err := record.Record(body, rec, record.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(res.Log)
	if res.Failure != nil {
		t.Fatalf("recorded: %s", res.Failure.Message)
	}
	if rec.reads != 4 {
		t.Errorf("the recorder saw %d read ends, want 4 (two loads, each twice)", rec.reads)
	}
	log, err := record.ReadFile(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	d := ctl.Digests["0"]
	if len(log.Threads) != 1 || log.Threads[0].Ops != d.Ops || log.Threads[0].Reads.Reads != d.Reads || log.Threads[0].Reads.Hash != d.Hash {
		t.Errorf("recorded %+v, controlled %+v", log.Threads, d)
	}
}

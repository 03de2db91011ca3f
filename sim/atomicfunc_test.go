package sim_test

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
	"weak"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Plain mode: the functions are sync/atomic's, safe from any goroutine (the
// race detector checks it).
func TestPlainAtomicFuncsConcurrent(t *testing.T) {
	var (
		i32   int32
		i64   int64
		u32   uint32
		u64   uint64
		up    uintptr
		bits  uint64
		spins int64
	)
	const n, each = 8, 500
	parallel(n, func(k int) {
		for range each {
			sim.AddInt32(&i32, 1)
			sim.AddInt64(&i64, 2)
			sim.AddUint32(&u32, 3)
			sim.AddUint64(&u64, 4)
			sim.AddUintptr(&up, 5)
			for {
				old := sim.LoadInt64(&spins)
				if sim.CompareAndSwapInt64(&spins, old, old+1) {
					break
				}
			}
		}
		sim.OrUint64(&bits, 1<<k)
	})
	if i32 != n*each || i64 != 2*n*each || u32 != 3*n*each || u64 != 4*n*each || up != 5*n*each || spins != n*each {
		t.Errorf("counters %d %d %d %d %d %d", i32, i64, u32, u64, up, spins)
	}
	if bits != 1<<n-1 {
		t.Errorf("bits %b", bits)
	}
}

// atomicFuncResults runs the same sequence on sync/atomic and on sim's
// functions and returns what each returned: they must agree, in plain mode
// and under control alike.
func atomicFuncResults() (want, got []any) {
	{
		var a, b int32 = 12, 12
		want = append(want, atomic.AddInt32(&a, -5), atomic.SwapInt32(&a, 9), atomic.CompareAndSwapInt32(&a, 1, 2),
			atomic.CompareAndSwapInt32(&a, 9, 3), atomic.AndInt32(&a, 2), atomic.OrInt32(&a, 12), atomic.LoadInt32(&a))
		got = append(got, sim.AddInt32(&b, -5), sim.SwapInt32(&b, 9), sim.CompareAndSwapInt32(&b, 1, 2),
			sim.CompareAndSwapInt32(&b, 9, 3), sim.AndInt32(&b, 2), sim.OrInt32(&b, 12), sim.LoadInt32(&b))
		atomic.StoreInt32(&a, -1)
		sim.StoreInt32(&b, -1)
		want, got = append(want, a), append(got, b)
	}
	{
		var a, b int64 = 1 << 40, 1 << 40
		want = append(want, atomic.AddInt64(&a, -5), atomic.SwapInt64(&a, 9), atomic.CompareAndSwapInt64(&a, 1, 2),
			atomic.CompareAndSwapInt64(&a, 9, 3), atomic.AndInt64(&a, 2), atomic.OrInt64(&a, 12), atomic.LoadInt64(&a))
		got = append(got, sim.AddInt64(&b, -5), sim.SwapInt64(&b, 9), sim.CompareAndSwapInt64(&b, 1, 2),
			sim.CompareAndSwapInt64(&b, 9, 3), sim.AndInt64(&b, 2), sim.OrInt64(&b, 12), sim.LoadInt64(&b))
		atomic.StoreInt64(&a, -1)
		sim.StoreInt64(&b, -1)
		want, got = append(want, a), append(got, b)
	}
	{
		var a, b uint32 = 12, 12
		want = append(want, atomic.AddUint32(&a, ^uint32(0)), atomic.SwapUint32(&a, 9), atomic.CompareAndSwapUint32(&a, 1, 2),
			atomic.CompareAndSwapUint32(&a, 9, 3), atomic.AndUint32(&a, 2), atomic.OrUint32(&a, 12), atomic.LoadUint32(&a))
		got = append(got, sim.AddUint32(&b, ^uint32(0)), sim.SwapUint32(&b, 9), sim.CompareAndSwapUint32(&b, 1, 2),
			sim.CompareAndSwapUint32(&b, 9, 3), sim.AndUint32(&b, 2), sim.OrUint32(&b, 12), sim.LoadUint32(&b))
		atomic.StoreUint32(&a, 7)
		sim.StoreUint32(&b, 7)
		want, got = append(want, a), append(got, b)
	}
	{
		var a, b uint64 = 1 << 50, 1 << 50
		want = append(want, atomic.AddUint64(&a, 3), atomic.SwapUint64(&a, 9), atomic.CompareAndSwapUint64(&a, 1, 2),
			atomic.CompareAndSwapUint64(&a, 9, 3), atomic.AndUint64(&a, 2), atomic.OrUint64(&a, 12), atomic.LoadUint64(&a))
		got = append(got, sim.AddUint64(&b, 3), sim.SwapUint64(&b, 9), sim.CompareAndSwapUint64(&b, 1, 2),
			sim.CompareAndSwapUint64(&b, 9, 3), sim.AndUint64(&b, 2), sim.OrUint64(&b, 12), sim.LoadUint64(&b))
		atomic.StoreUint64(&a, 7)
		sim.StoreUint64(&b, 7)
		want, got = append(want, a), append(got, b)
	}
	{
		var a, b uintptr = 12, 12
		want = append(want, atomic.AddUintptr(&a, 3), atomic.SwapUintptr(&a, 9), atomic.CompareAndSwapUintptr(&a, 1, 2),
			atomic.CompareAndSwapUintptr(&a, 9, 3), atomic.AndUintptr(&a, 2), atomic.OrUintptr(&a, 12), atomic.LoadUintptr(&a))
		got = append(got, sim.AddUintptr(&b, 3), sim.SwapUintptr(&b, 9), sim.CompareAndSwapUintptr(&b, 1, 2),
			sim.CompareAndSwapUintptr(&b, 9, 3), sim.AndUintptr(&b, 2), sim.OrUintptr(&b, 12), sim.LoadUintptr(&b))
		atomic.StoreUintptr(&a, 7)
		sim.StoreUintptr(&b, 7)
		want, got = append(want, a), append(got, b)
	}
	{
		x, y := 1, 2
		px, py := unsafe.Pointer(&x), unsafe.Pointer(&y)
		var a, b unsafe.Pointer
		want = append(want, atomic.SwapPointer(&a, px) == nil, atomic.CompareAndSwapPointer(&a, py, nil),
			atomic.CompareAndSwapPointer(&a, px, py), atomic.LoadPointer(&a) == py)
		got = append(got, sim.SwapPointer(&b, px) == nil, sim.CompareAndSwapPointer(&b, py, nil),
			sim.CompareAndSwapPointer(&b, px, py), sim.LoadPointer(&b) == py)
		atomic.StorePointer(&a, px)
		sim.StorePointer(&b, px)
		want, got = append(want, a == px), append(got, b == px)
	}
	return want, got
}

func TestPlainAtomicFuncsSemantics(t *testing.T) {
	want, got := atomicFuncResults()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sim:\n%v\nsync/atomic:\n%v", got, want)
	}
}

func TestControlledAtomicFuncsSemantics(t *testing.T) {
	var want, got []any
	r := runOnce(func() { want, got = atomicFuncResults() })
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sim:\n%v\nsync/atomic:\n%v", got, want)
	}
}

// Under control each call is one event, named by its operation, on the
// object its address names: the same address is the same object, another
// address another one.
func TestControlledAtomicFuncsAreEvents(t *testing.T) {
	var shared int64 // outside the execution: numbered afresh in each
	body := func() {
		var x struct{ a, b uint32 }
		sim.AddInt64(&shared, 1)
		sim.LoadInt64(&shared)
		sim.StoreUint32(&x.a, 1)
		sim.SwapUint32(&x.b, 2)
		sim.CompareAndSwapUint32(&x.a, 1, 3)
		sim.AndUint32(&x.a, 1)
		sim.OrUint32(&x.b, 1)
	}
	wantOps := []string{"atomic.Add", "atomic.Load", "atomic.Store", "atomic.Swap", "atomic.CompareAndSwap", "atomic.And", "atomic.Or"}
	wantObjs := []uint32{1, 1, 2, 3, 2, 2, 3}
	for run := range 2 {
		r := sched.Run(body, explore.RandomWalk(1), sched.Options{Trace: true})
		if r.Failure != nil {
			t.Fatal(r.Failure.Summary())
		}
		var ops []string
		var objs []uint32
		for _, e := range r.Trace {
			ops, objs = append(ops, e.Op), append(objs, e.Obj)
		}
		if !reflect.DeepEqual(ops, wantOps) || !reflect.DeepEqual(objs, wantObjs) {
			t.Errorf("run %d: events %v on objects %v, want %v on %v", run, ops, objs, wantOps, wantObjs)
		}
	}
	if shared != 2 {
		t.Errorf("shared = %d: the value is plain memory and persists", shared)
	}
}

// A load and a store are two events, so the controller interleaves another
// goroutine's update between them; an Add is one.
func TestControlledAtomicFuncsLostUpdate(t *testing.T) {
	racy := func() {
		var x int64
		var wg sim.WaitGroup
		for range 2 {
			wg.Go(func() { sim.StoreInt64(&x, sim.LoadInt64(&x)+1) })
		}
		wg.Wait()
		if v := sim.LoadInt64(&x); v != 2 {
			panic(fmt.Sprintf("lost update: x = %d", v))
		}
	}
	for _, s := range strategies {
		var first *sched.Result
		for seed := range uint64(seeds) {
			r := sched.Run(racy, s.Make(seed), sched.Options{})
			if r.Failure != nil {
				if r.Failure.Message != "lost update: x = 1" {
					t.Fatalf("%s seed %d: %s", s.Name, seed, r.Failure.Summary())
				}
				first = r
				break
			}
		}
		if first == nil {
			t.Errorf("%s: the lost update was never found", s.Name)
			continue
		}
		rp := explore.Follow(first.Schedule())
		if r := sched.Run(racy, rp, sched.Options{}); r.Hash != first.Hash || r.Failure == nil || len(rp.Drift()) != 0 {
			t.Errorf("%s: replay hash %x, want %x; failure %s; drift %v", s.Name, r.Hash, first.Hash, r.Failure.Summary(), rp.Drift())
		}
	}
	exploreAll(t, func(c *checker) {
		var x int64
		var flags uint32 = 1 << 8
		var wg sim.WaitGroup
		for k := range 3 {
			wg.Go(func() {
				sim.AddInt64(&x, 1)
				sim.OrUint32(&flags, 1<<k)
				sim.AndUint32(&flags, ^uint32(1<<8))
			})
		}
		wg.Wait()
		c.Equal("x", sim.LoadInt64(&x), int64(3))
		c.Equal("flags", sim.LoadUint32(&flags), uint32(7))
	})
}

// The same seed gives the same execution, object numbers included, and the
// schedule replays it.
func TestControlledAtomicFuncsDeterminism(t *testing.T) {
	body := func() {
		vals := make([]int64, 4)
		var wg sim.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				for j := range 3 {
					sim.AddInt64(&vals[(i+j)%4], 1)
				}
			})
		}
		wg.Wait()
	}
	for seed := range uint64(20) {
		r1 := sched.Run(body, explore.RandomWalk(seed), sched.Options{})
		r2 := sched.Run(body, explore.RandomWalk(seed), sched.Options{})
		rp := explore.Follow(r1.Schedule())
		r3 := sched.Run(body, rp, sched.Options{})
		if r1.Failure != nil || r1.Hash != r2.Hash || r1.Hash != r3.Hash || len(rp.Drift()) != 0 {
			t.Fatalf("seed %d: hashes %x %x %x, failure %s, drift %v", seed, r1.Hash, r2.Hash, r3.Hash, r1.Failure.Summary(), rp.Drift())
		}
	}
}

// Executions running in parallel number addresses each in its own table.
func TestControlledAtomicFuncsParallelExecutions(t *testing.T) {
	var shared int64
	body := func() {
		var local [3]uint32
		var wg sim.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				sim.AddUint32(&local[i], 1)
				sim.AddInt64(&shared, 1)
				sim.LoadUint32(&local[(i+1)%3])
			})
		}
		wg.Wait()
	}
	want := make([]uint64, 10)
	for seed := range want {
		want[seed] = sched.Run(body, explore.RandomWalk(uint64(seed)), sched.Options{}).Hash
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for seed := range want {
				if h := sched.Run(body, explore.RandomWalk(uint64(seed)), sched.Options{}).Hash; h != want[seed] {
					t.Errorf("seed %d: hash %x in parallel, %x alone", seed, h, want[seed])
				}
			}
		})
	}
	wg.Wait()
	if n := atomic.LoadInt64(&shared); n != 3*10*5 {
		t.Errorf("shared = %d", n)
	}
}

// Repro bigcache: memory that an execution's atomic functions used, in an
// object holding a primitive whose state names the execution, is freed
// with the execution. A table of addresses outside the executions kept
// every execution's memory: 300 MB a cache, 100 executions.
func TestControlledAtomicFuncsMemoryIsFreed(t *testing.T) {
	type shard struct {
		mu   sim.RWMutex
		hits int64
		data [1 << 16]byte
	}
	var shards []weak.Pointer[shard]
	for seed := range uint64(5) {
		r := sched.Run(func() {
			s := new(shard)
			s.mu.Lock()
			sim.AddInt64(&s.hits, 1)
			s.mu.Unlock()
			shards = append(shards, weak.Make(s))
		}, explore.RandomWalk(seed), sched.Options{})
		if r.Failure != nil {
			t.Fatal(r.Failure.Summary())
		}
	}
	runtime.GC()
	runtime.GC()
	for i, w := range shards {
		if w.Value() != nil {
			t.Errorf("execution %d's memory is still reachable after it ended", i)
		}
	}
}

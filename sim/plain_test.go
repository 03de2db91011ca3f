package sim_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/sim"
)

// Plain mode: outside a controlled execution every primitive behaves like
// its standard library twin, with real goroutines. These tests are meant to
// run with -race too, which checks the exclusion the primitives promise.

// parallel runs f(i) for i in [0, n) on n goroutines started with sim.Go
// and waits for them.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		sim.Go(func() {
			defer wg.Done()
			f(i)
		})
	}
	wg.Wait()
}

// panicOf returns the value f panics with, as text, or "" if it returns.
func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// within fails the test if f does not return within five seconds.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not return", what)
	}
}

// blocks reports whether f is still blocked after a short while; it leaves
// f's goroutine running.
func blocks(f func()) (blocked bool, done <-chan struct{}) {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		f()
	}()
	select {
	case <-ch:
		return false, ch
	case <-time.After(20 * time.Millisecond):
		return true, ch
	}
}

func TestPlainMutex(t *testing.T) {
	var mu sim.Mutex
	n := 0
	parallel(8, func(int) {
		for range 1000 {
			mu.Lock()
			n++ // a data race if the mutex does not exclude
			mu.Unlock()
		}
	})
	if n != 8000 {
		t.Errorf("counter %d, want 8000", n)
	}
}

func TestPlainMutexTryLock(t *testing.T) {
	var mu sim.Mutex
	if !mu.TryLock() {
		t.Fatal("TryLock of a free mutex failed")
	}
	if mu.TryLock() {
		t.Fatal("TryLock of a held mutex succeeded")
	}
	blocked, done := blocks(mu.Lock)
	if !blocked {
		t.Fatal("Lock of a held mutex did not block")
	}
	mu.Unlock()
	within(t, "Lock after Unlock", func() { <-done })
	mu.Unlock()
	// Unlocking an unlocked sync.Mutex is a fatal error, which no test can
	// observe.
}

func TestPlainRWMutex(t *testing.T) {
	var rw sim.RWMutex
	var readers, maxReaders atomic.Int32
	writers := 0
	parallel(8, func(i int) {
		for range 200 {
			if i%4 == 0 {
				rw.Lock()
				writers++ // a data race if writers do not exclude readers
				if r := readers.Load(); r != 0 {
					t.Errorf("writer inside with %d readers", r)
				}
				rw.Unlock()
				continue
			}
			rw.RLock()
			r := readers.Add(1)
			for {
				m := maxReaders.Load()
				if r <= m || maxReaders.CompareAndSwap(m, r) {
					break
				}
			}
			_ = writers
			readers.Add(-1)
			rw.RUnlock()
		}
	})
	if writers != 400 {
		t.Errorf("writers %d, want 400", writers)
	}
	t.Logf("at most %d readers at a time", maxReaders.Load())
}

func TestPlainRWMutexSharing(t *testing.T) {
	var rw sim.RWMutex
	rw.RLock()
	// A second reader gets in while the first holds the lock.
	within(t, "a second RLock", func() {
		rw.RLock()
		rw.RUnlock()
	})
	if !rw.TryRLock() {
		t.Fatal("TryRLock failed with only readers inside")
	}
	rw.RUnlock()
	if rw.TryLock() {
		t.Fatal("TryLock succeeded with a reader inside")
	}
	blocked, done := blocks(func() { rw.Lock() })
	if !blocked {
		t.Fatal("Lock did not wait for the reader")
	}
	rw.RUnlock()
	within(t, "Lock after RUnlock", func() { <-done })
	if rw.TryRLock() {
		t.Fatal("TryRLock succeeded with a writer inside")
	}
	blocked, done = blocks(func() {
		l := rw.RLocker()
		l.Lock()
		l.Unlock()
	})
	if !blocked {
		t.Fatal("RLocker().Lock did not wait for the writer")
	}
	rw.Unlock()
	within(t, "RLock after Unlock", func() { <-done })
	if !rw.TryLock() {
		t.Fatal("TryLock of a free RWMutex failed")
	}
	rw.Unlock()
}

func TestPlainWaitGroup(t *testing.T) {
	var wg sim.WaitGroup
	var done atomic.Int32
	wg.Add(16)
	for range 16 {
		sim.Go(func() {
			time.Sleep(time.Millisecond)
			done.Add(1)
			wg.Done()
		})
	}
	wg.Wait()
	if n := done.Load(); n != 16 {
		t.Fatalf("Wait returned after %d of 16 Done calls", n)
	}
	for range 4 {
		wg.Go(func() { done.Add(1) })
	}
	wg.Wait()
	if n := done.Load(); n != 20 {
		t.Fatalf("Wait returned after %d of 20 tasks", n)
	}
	if msg := panicOf(func() { wg.Add(-1) }); msg != "sync: negative WaitGroup counter" {
		t.Errorf("negative counter: panic %q", msg)
	}
}

func TestPlainCondSignal(t *testing.T) {
	var mu sim.Mutex
	cond := sim.NewCond(&mu)
	queue := []int{}
	got := make(chan int, 100)
	parallel(4, func(i int) {
		if i == 0 {
			for v := range 100 {
				mu.Lock()
				queue = append(queue, v)
				mu.Unlock()
				cond.Signal()
			}
			return
		}
		for {
			mu.Lock()
			for len(queue) == 0 {
				cond.Wait()
			}
			v := queue[0]
			queue = queue[1:]
			if v >= 97 {
				// Each consumer stops at one of the last three values.
				mu.Unlock()
				got <- v
				return
			}
			mu.Unlock()
			got <- v
		}
	})
	close(got)
	var all []int
	for v := range got {
		all = append(all, v)
	}
	slices.Sort(all)
	if len(all) != 100 || all[0] != 0 || all[99] != 99 {
		t.Fatalf("received %d values", len(all))
	}
}

func TestPlainCondBroadcast(t *testing.T) {
	var mu sim.Mutex
	cond := sim.NewCond(&mu)
	ready := false
	var waiting, woke atomic.Int32
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		sim.Go(func() {
			defer wg.Done()
			mu.Lock()
			waiting.Add(1)
			for !ready {
				cond.Wait()
			}
			woke.Add(1)
			mu.Unlock()
		})
	}
	for waiting.Load() < 5 {
		time.Sleep(time.Millisecond)
	}
	mu.Lock()
	ready = true
	mu.Unlock()
	cond.Broadcast()
	within(t, "the woken waiters", wg.Wait)
	if woke.Load() != 5 {
		t.Fatalf("%d of 5 waiters woke", woke.Load())
	}
}

func TestPlainCondRWLocker(t *testing.T) {
	var rw sim.RWMutex
	cond := sim.NewCond(rw.RLocker())
	flag := atomic.Bool{}
	done := make(chan struct{})
	go func() {
		rw.RLock()
		for !flag.Load() {
			cond.Wait()
		}
		rw.RUnlock()
		close(done)
	}()
	for {
		flag.Store(true)
		cond.Broadcast()
		select {
		case <-done:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

func TestPlainCondLiteral(t *testing.T) {
	// Like sync.Cond{L: &mu}, a Cond made without NewCond works.
	var mu sim.Mutex
	cond := &sim.Cond{L: &mu}
	ready := false
	done := make(chan struct{})
	go func() {
		mu.Lock()
		for !ready {
			cond.Wait()
		}
		mu.Unlock()
		close(done)
	}()
	mu.Lock()
	ready = true
	cond.Signal()
	mu.Unlock()
	cond.Broadcast()
	within(t, "Wait on a Cond literal", func() { <-done })
}

func TestPlainOnce(t *testing.T) {
	var once sim.Once
	var calls atomic.Int32
	var initialized atomic.Bool
	parallel(16, func(int) {
		once.Do(func() {
			time.Sleep(5 * time.Millisecond)
			calls.Add(1)
			initialized.Store(true)
		})
		if !initialized.Load() {
			t.Error("Do returned before f finished")
		}
	})
	if n := calls.Load(); n != 1 {
		t.Fatalf("f ran %d times", n)
	}
}

func TestPlainOncePanic(t *testing.T) {
	var once sim.Once
	if msg := panicOf(func() { once.Do(func() { panic("first") }) }); msg != "first" {
		t.Fatalf("panic %q", msg)
	}
	ran := false
	once.Do(func() { ran = true })
	if ran {
		t.Fatal("f ran again after a panicking f")
	}
}

func TestPlainUnbuffered(t *testing.T) {
	ch := sim.NewChan[int](0)
	if ch.Cap() != 0 || ch.Len() != 0 {
		t.Fatalf("Cap %d Len %d", ch.Cap(), ch.Len())
	}
	var received atomic.Bool
	sim.Go(func() {
		time.Sleep(10 * time.Millisecond)
		received.Store(true)
		for i := range 100 {
			if v := ch.Recv(); v != i {
				t.Errorf("received %d, want %d", v, i)
			}
		}
	})
	ch.Send(0) // rendezvous: returns only once received
	if !received.Load() {
		t.Fatal("Send returned before the receiver came")
	}
	for i := 1; i < 100; i++ {
		ch.Send(i)
	}
}

func TestPlainBuffered(t *testing.T) {
	ch := sim.NewChan[string](3)
	ch.Send("a")
	ch.Send("b")
	if ch.Len() != 2 || ch.Cap() != 3 {
		t.Fatalf("Len %d Cap %d", ch.Len(), ch.Cap())
	}
	ch.Send("c")
	blocked, done := blocks(func() { ch.Send("d") })
	if !blocked {
		t.Fatal("Send on a full channel did not block")
	}
	if v := ch.Recv(); v != "a" {
		t.Fatalf("received %q", v)
	}
	within(t, "Send after a receive made room", func() { <-done })
	var got []string
	for range 3 {
		got = append(got, ch.Recv())
	}
	if !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("received %v", got)
	}
	if blocked, _ := blocks(func() { ch.Recv() }); !blocked {
		t.Fatal("Recv on an empty channel did not block")
	}
	ch.Send("unblock")
}

func TestPlainBufferedConcurrent(t *testing.T) {
	ch := sim.NewChan[int](4)
	var sum atomic.Int64
	var consumers sync.WaitGroup
	for range 3 {
		consumers.Add(1)
		sim.Go(func() {
			defer consumers.Done()
			for v := range ch.All() {
				sum.Add(int64(v))
			}
		})
	}
	parallel(4, func(int) {
		for i := 1; i <= 100; i++ {
			ch.Send(i)
		}
	})
	ch.Close()
	consumers.Wait()
	if s := sum.Load(); s != 4*5050 {
		t.Fatalf("sum %d, want %d", s, 4*5050)
	}
}

func TestPlainClose(t *testing.T) {
	ch := sim.NewChan[int](2)
	ch.Send(1)
	ch.Send(2)
	ch.Close()
	for _, want := range []struct {
		v  int
		ok bool
	}{{1, true}, {2, true}, {0, false}, {0, false}} {
		if v, ok := ch.RecvOK(); v != want.v || ok != want.ok {
			t.Fatalf("RecvOK: %d, %v; want %d, %v", v, ok, want.v, want.ok)
		}
	}
	if v := ch.Recv(); v != 0 {
		t.Fatalf("Recv from a closed channel: %d", v)
	}
	if msg := panicOf(func() { ch.Send(3) }); msg != "send on closed channel" {
		t.Errorf("send on closed: panic %q", msg)
	}
	if msg := panicOf(ch.Close); msg != "close of closed channel" {
		t.Errorf("close of closed: panic %q", msg)
	}
	var nilch *sim.Chan[int]
	if msg := panicOf(nilch.Close); msg != "close of nil channel" {
		t.Errorf("close of nil: panic %q", msg)
	}
	if nilch.Len() != 0 || nilch.Cap() != 0 {
		t.Errorf("nil channel: Len %d Cap %d", nilch.Len(), nilch.Cap())
	}
}

func TestPlainCloseWakesReceivers(t *testing.T) {
	ch := sim.NewChan[int](0)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		sim.Go(func() {
			defer wg.Done()
			if v, ok := ch.RecvOK(); ok || v != 0 {
				t.Errorf("receive from closed: %d, %v", v, ok)
			}
		})
	}
	time.Sleep(5 * time.Millisecond)
	ch.Close()
	within(t, "receivers woken by Close", wg.Wait)
}

func TestPlainAll(t *testing.T) {
	ch := sim.NewChan[int](0)
	sim.Go(func() {
		for i := range 5 {
			ch.Send(i)
		}
		ch.Close()
	})
	var got []int
	for v := range ch.All() {
		got = append(got, v)
	}
	if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("All yielded %v", got)
	}
	// Breaking out of the loop stops receiving.
	ch = sim.NewChan[int](3)
	ch.Send(1)
	ch.Send(2)
	for range ch.All() {
		break
	}
	if ch.Len() != 1 {
		t.Fatalf("Len after break: %d", ch.Len())
	}
}

func TestPlainNilChannelBlocks(t *testing.T) {
	var ch *sim.Chan[int]
	for name, f := range map[string]func(){
		"Send": func() { ch.Send(1) },
		"Recv": func() { ch.Recv() },
	} {
		if blocked, _ := blocks(f); !blocked {
			t.Errorf("%s on a nil channel returned", name)
		}
	}
}

func TestPlainSelectReady(t *testing.T) {
	a := sim.NewChan[int](1)
	b := sim.NewChan[int](1)
	chosen := map[int]int{}
	for range 200 {
		a.Send(1)
		b.Send(2)
		got := 0
		i := sim.Select(
			sim.OnRecv(a, func(v int) { got = v }),
			sim.OnRecv(b, func(v int) { got = v }),
		)
		if got != i+1 {
			t.Fatalf("case %d received %d", i, got)
		}
		chosen[i]++
		// Drain the other one.
		if i == 0 {
			b.Recv()
		} else {
			a.Recv()
		}
	}
	if chosen[0] == 0 || chosen[1] == 0 {
		t.Errorf("with two ready cases, the choices were %v", chosen)
	}
}

func TestPlainSelectDefault(t *testing.T) {
	a := sim.NewChan[int](1)
	u := sim.NewChan[int](0)
	var nilch *sim.Chan[int]
	ranDefault := false
	i := sim.Select(
		sim.OnRecv(a, func(int) { t.Error("received from an empty channel") }),
		sim.OnSend(u, 1, func() { t.Error("sent with no receiver") }),
		sim.OnRecv(nilch, nil),
		sim.OnSend(nilch, 1, nil),
		sim.OnDefault(func() { ranDefault = true }),
	)
	if i != 4 || !ranDefault {
		t.Fatalf("case %d, default ran %v", i, ranDefault)
	}
	a.Send(5)
	got := 0
	if i := sim.Select(sim.OnDefault(nil), sim.OnRecv(nilch, nil), sim.OnRecv(a, func(v int) { got = v })); i != 2 || got != 5 {
		t.Fatalf("case %d, got %d", i, got)
	}
	if i := sim.Select(sim.OnSend(a, 6, nil), sim.OnDefault(nil)); i != 0 || a.Recv() != 6 {
		t.Fatalf("send case %d", i)
	}
	if msg := panicOf(func() { sim.Select(sim.OnDefault(nil), sim.OnDefault(nil)) }); msg != "sim.Select: multiple default cases" {
		t.Fatalf("two defaults: panic %q", msg)
	}
}

func TestPlainSelectBlocks(t *testing.T) {
	a := sim.NewChan[int](0)
	b := sim.NewChan[string](0)
	var nilch *sim.Chan[int]
	sim.Go(func() {
		time.Sleep(10 * time.Millisecond)
		b.Send("late")
	})
	got := ""
	start := time.Now()
	i := sim.Select(
		sim.OnRecv(a, nil),
		sim.OnRecv(nilch, nil),
		sim.OnRecv(b, func(v string) { got = v }),
	)
	if i != 2 || got != "late" {
		t.Fatalf("case %d got %q", i, got)
	}
	if time.Since(start) < 5*time.Millisecond {
		t.Errorf("Select returned before the send")
	}

	// A blocking send case, and a closed channel in a receive case.
	sim.Go(func() {
		time.Sleep(5 * time.Millisecond)
		if v := a.Recv(); v != 9 {
			t.Errorf("received %d", v)
		}
	})
	if i := sim.Select(sim.OnSend(a, 9, nil), sim.OnSend(nilch, 1, nil)); i != 0 {
		t.Fatalf("send case %d", i)
	}
	c := sim.NewChan[int](0)
	sim.Go(func() {
		time.Sleep(5 * time.Millisecond)
		c.Close()
	})
	var ok = true
	if i := sim.Select(sim.OnRecv(a, nil), sim.OnRecvOK(c, func(_ int, k bool) { ok = k })); i != 1 || ok {
		t.Fatalf("closed case %d ok %v", i, ok)
	}
	if msg := panicOf(func() { sim.Select(sim.OnSend(c, 1, nil)) }); msg != "send on closed channel" {
		t.Fatalf("select send on closed: panic %q", msg)
	}
}

func TestPlainSelectNilOnlyBlocks(t *testing.T) {
	var nilch *sim.Chan[int]
	if blocked, _ := blocks(func() { sim.Select(sim.OnRecv(nilch, nil)) }); !blocked {
		t.Error("a select on a nil channel returned")
	}
	if blocked, _ := blocks(func() { sim.Select() }); !blocked {
		t.Error("an empty select returned")
	}
}

func TestPlainSleepNow(t *testing.T) {
	start := sim.Now()
	sim.Sleep(10 * time.Millisecond)
	if d := sim.Since(start); d < 10*time.Millisecond || d > time.Second {
		t.Errorf("Since after a 10ms sleep: %v", d)
	}
	if d := sim.Until(start.Add(time.Hour)); d > time.Hour || d < 59*time.Minute {
		t.Errorf("Until: %v", d)
	}
	if s := sim.Now().Sub(time.Now()); s > time.Second || s < -time.Second {
		t.Errorf("Now is %v off the wall clock", s)
	}
}

func TestPlainTimer(t *testing.T) {
	start := time.Now()
	tm := sim.NewTimer(10 * time.Millisecond)
	v := tm.C.Recv()
	if v.Sub(start) < 10*time.Millisecond {
		t.Errorf("fired after %v", v.Sub(start))
	}
	if tm.Stop() {
		t.Error("Stop after firing reported true")
	}
	if tm.Reset(5 * time.Millisecond) {
		t.Error("Reset of a fired timer reported true")
	}
	tm.C.Recv()

	tm = sim.NewTimer(20 * time.Millisecond)
	if !tm.Stop() {
		t.Error("Stop before firing reported false")
	}
	time.Sleep(30 * time.Millisecond)
	if i := sim.Select(sim.OnRecv(tm.C, nil), sim.OnDefault(nil)); i != 1 || tm.C.Len() != 0 {
		t.Error("a stopped timer fired")
	}
	if tm.Reset(5 * time.Millisecond) {
		t.Error("Reset of a stopped timer reported true")
	}
	within(t, "Recv after Reset", func() { tm.C.Recv() })

	tm = sim.NewTimer(time.Hour)
	if !tm.Reset(time.Millisecond) {
		t.Error("Reset of a pending timer reported false")
	}
	within(t, "Recv after Reset", func() { tm.C.Recv() })
}

func TestPlainTimerChannelOps(t *testing.T) {
	tm := sim.NewTimer(time.Hour)
	defer tm.Stop()
	if msg := panicOf(func() { tm.C.Send(time.Now()) }); msg == "" {
		t.Error("send on a timer's channel did not panic")
	}
	if msg := panicOf(tm.C.Close); msg == "" {
		t.Error("close of a timer's channel did not panic")
	}
}

func TestPlainAfter(t *testing.T) {
	never := sim.NewChan[int](0)
	i := sim.Select(sim.OnRecv(never, nil), sim.OnRecv(sim.After(5*time.Millisecond), nil))
	if i != 1 {
		t.Fatalf("case %d", i)
	}
}

func TestPlainAfterFunc(t *testing.T) {
	done := make(chan time.Time, 1)
	start := time.Now()
	sim.AfterFunc(5*time.Millisecond, func() { done <- time.Now() })
	select {
	case at := <-done:
		if at.Sub(start) < 5*time.Millisecond {
			t.Errorf("ran after %v", at.Sub(start))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("AfterFunc never ran")
	}

	var ran atomic.Bool
	tm := sim.AfterFunc(20*time.Millisecond, func() { ran.Store(true) })
	if tm.C != nil {
		t.Error("an AfterFunc timer has a channel")
	}
	if !tm.Stop() {
		t.Error("Stop before firing reported false")
	}
	time.Sleep(30 * time.Millisecond)
	if ran.Load() {
		t.Error("f ran after Stop")
	}
}

func TestPlainTicker(t *testing.T) {
	tk := sim.NewTicker(2 * time.Millisecond)
	defer tk.Stop()
	start := time.Now()
	prev := start
	for range 3 {
		v := tk.C.Recv()
		if !v.After(prev) {
			t.Errorf("tick %v not after %v", v, prev)
		}
		prev = v
	}
	if d := time.Since(start); d < 6*time.Millisecond {
		t.Errorf("3 ticks of 2ms in %v", d)
	}
	tk.Reset(time.Millisecond)
	tk.C.Recv()
	tk.Stop()
	time.Sleep(5 * time.Millisecond)
	if i := sim.Select(sim.OnRecv(tk.C, nil), sim.OnDefault(nil)); i != 1 {
		t.Error("a stopped ticker ticked")
	}
	if msg := panicOf(func() { sim.NewTicker(0) }); msg != "non-positive interval for NewTicker" {
		t.Errorf("NewTicker(0): panic %q", msg)
	}
	if msg := panicOf(func() { tk.Reset(-1) }); msg != "non-positive interval for Ticker.Reset" {
		t.Errorf("Reset(-1): panic %q", msg)
	}
	if sim.Tick(0) != nil || sim.Tick(-1) != nil {
		t.Error("Tick of a non-positive duration is not nil")
	}
	tick := sim.Tick(time.Millisecond)
	tick.Recv()
	tick.Recv()
}

func TestPlainIntn(t *testing.T) {
	seen := make([]int, 5)
	for range 1000 {
		v := sim.Intn(5)
		if v < 0 || v >= 5 {
			t.Fatalf("Intn(5) = %d", v)
		}
		seen[v]++
	}
	for v, n := range seen {
		if n == 0 {
			t.Errorf("Intn(5) never gave %d", v)
		}
	}
	if sim.Intn(1) != 0 {
		t.Error("Intn(1) != 0")
	}
	for _, n := range []int{0, -1} {
		if msg := panicOf(func() { sim.Intn(n) }); msg != "sim.Intn: invalid argument to Intn" {
			t.Errorf("Intn(%d): panic %q", n, msg)
		}
	}
}

func TestPlainVar(t *testing.T) {
	var x sim.Var[int]
	if x.Load() != 0 {
		t.Fatal("zero Var is not zero")
	}
	x.Store(3)
	if x.Load() != 3 {
		t.Fatal("Store did not store")
	}
	if y := sim.NewVar("s"); y.Load() != "s" {
		t.Fatal("NewVar")
	}
	// Guarded by a mutex, a Var is race-free.
	var mu sim.Mutex
	parallel(4, func(int) {
		for range 100 {
			mu.Lock()
			x.Store(x.Load() + 1)
			mu.Unlock()
		}
	})
	if x.Load() != 403 {
		t.Fatalf("x = %d", x.Load())
	}
}

func TestPlainAtomics(t *testing.T) {
	var i32 sim.Int32
	var i64 sim.Int64
	var u64 sim.Uint64
	var b sim.Bool
	var p sim.Pointer[int]
	var winners atomic.Int32
	parallel(8, func(i int) {
		for range 1000 {
			i32.Add(1)
			i64.Add(-1)
			u64.Add(2)
		}
		if b.CompareAndSwap(false, true) {
			winners.Add(1)
			v := i
			p.Store(&v)
		}
	})
	if i32.Load() != 8000 || i64.Load() != -8000 || u64.Load() != 16000 {
		t.Fatalf("Int32 %d Int64 %d Uint64 %d", i32.Load(), i64.Load(), u64.Load())
	}
	if winners.Load() != 1 || !b.Load() || p.Load() == nil {
		t.Fatalf("CompareAndSwap winners %d", winners.Load())
	}
	if old := i32.Swap(5); old != 8000 || !i32.CompareAndSwap(5, 6) || i32.CompareAndSwap(5, 7) || i32.Load() != 6 {
		t.Fatal("Int32 Swap/CompareAndSwap")
	}
	i32.Store(1)
	i64.Store(2)
	u64.Store(3)
	b.Store(false)
	if i32.Load() != 1 || i64.Swap(4) != 2 || !i64.CompareAndSwap(4, 5) || u64.Swap(6) != 3 ||
		!u64.CompareAndSwap(6, 7) || u64.Load() != 7 || b.Swap(true) || b.Load() != true {
		t.Fatal("Store/Swap/CompareAndSwap")
	}
	v := 1
	if old := p.Swap(&v); old == nil || !p.CompareAndSwap(&v, nil) || p.Load() != nil {
		t.Fatal("Pointer Swap/CompareAndSwap")
	}
}

func TestPlainYield(t *testing.T) {
	var flag atomic.Bool
	sim.Go(func() { flag.Store(true) })
	for !flag.Load() {
		sim.Yield()
	}
}

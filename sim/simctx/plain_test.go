package simctx_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/weftdev/weft/sim"
	"github.com/weftdev/weft/sim/simctx"
)

// Plain mode: outside an execution, simctx behaves like package context on
// real time. Where the two can be compared directly, the tests do.

// closed reports whether ch is closed, without waiting.
func closed(ch *sim.Chan[struct{}]) bool {
	return sim.Select(sim.OnRecv(ch, nil), sim.OnDefault(nil)) == 0
}

// waitDone waits up to a second for ctx to be canceled.
func waitDone(t *testing.T, ctx simctx.Context) {
	t.Helper()
	if sim.Select(sim.OnRecv(ctx.Done(), nil), sim.OnRecv(sim.After(time.Second), nil)) != 0 {
		t.Fatalf("%v not canceled after a second", ctx)
	}
}

func rawClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestPlainErrorsAreContexts(t *testing.T) {
	if simctx.Canceled != context.Canceled || simctx.DeadlineExceeded != context.DeadlineExceeded {
		t.Fatal("the errors are not package context's")
	}
}

func TestPlainBackground(t *testing.T) {
	for _, ctx := range []simctx.Context{simctx.Background(), simctx.TODO()} {
		if ctx.Done() != nil || ctx.Err() != nil || ctx.Value("k") != nil || simctx.Cause(ctx) != nil {
			t.Errorf("%v: Done %v, Err %v", ctx, ctx.Done(), ctx.Err())
		}
		if _, ok := ctx.Deadline(); ok {
			t.Errorf("%v has a deadline", ctx)
		}
	}
	if got := fmt.Sprint(simctx.Background(), " ", simctx.TODO()); got != "simctx.Background simctx.TODO" {
		t.Errorf("names %q", got)
	}
}

func TestPlainNilParentPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"WithCancel":    func() { simctx.WithCancel(nil) },
		"WithDeadline":  func() { simctx.WithDeadline(nil, time.Now()) },
		"WithValue":     func() { simctx.WithValue(nil, "k", 1) },
		"WithoutCancel": func() { simctx.WithoutCancel(nil) },
	} {
		if r := catch(f); r != "cannot create context from nil parent" {
			t.Errorf("%s(nil) panics with %v", name, r)
		}
	}
}

func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func TestPlainCancelPropagates(t *testing.T) {
	parent, cancelParent := simctx.WithCancel(simctx.Background())
	child, cancelChild := simctx.WithCancel(parent)
	defer cancelChild()
	grandchild, cancelGrandchild := simctx.WithTimeout(simctx.WithValue(child, "k", "v"), time.Hour)
	defer cancelGrandchild()
	for _, c := range []simctx.Context{parent, child, grandchild} {
		if c.Err() != nil || closed(c.Done()) {
			t.Fatalf("%v canceled before cancel", c)
		}
	}
	cancelParent()
	for _, c := range []simctx.Context{parent, child, grandchild} {
		if c.Err() != context.Canceled || !closed(c.Done()) || simctx.Cause(c) != context.Canceled {
			t.Errorf("%v after the parent's cancel: Err %v, Cause %v", c, c.Err(), simctx.Cause(c))
		}
	}
	cancelParent() // a second cancel does nothing
	if parent.Err() != context.Canceled {
		t.Errorf("Err after a second cancel: %v", parent.Err())
	}
	// Done is the same channel every time.
	if parent.Done() != parent.Done() {
		t.Error("Done returns different channels")
	}
}

func TestPlainChildCancelDoesNotCancelParent(t *testing.T) {
	parent, cancelParent := simctx.WithCancel(simctx.Background())
	defer cancelParent()
	child, cancelChild := simctx.WithCancel(parent)
	child2, cancelChild2 := simctx.WithTimeout(parent, time.Hour)
	stop := simctx.AfterFunc(parent, func() {})
	if n := simctx.NumChildren(parent); n != 3 {
		t.Fatalf("parent has %d children, want 3", n)
	}
	cancelChild()
	if child.Err() != context.Canceled || parent.Err() != nil || child2.Err() != nil {
		t.Errorf("after the child's cancel: child %v, parent %v, sibling %v", child.Err(), parent.Err(), child2.Err())
	}
	if n := simctx.NumChildren(parent); n != 2 {
		t.Errorf("after the child's cancel the parent has %d children, want 2", n)
	}
	cancelChild2()
	stop()
	if n := simctx.NumChildren(parent); n != 0 {
		t.Errorf("after every child's cancel the parent has %d children, want 0", n)
	}
}

func TestPlainChildOfCanceledParent(t *testing.T) {
	parent, cancel := simctx.WithCancelCause(simctx.Background())
	boom := errors.New("boom")
	cancel(boom)
	child, cancelChild := simctx.WithCancel(parent)
	defer cancelChild()
	if child.Err() != context.Canceled || simctx.Cause(child) != boom || !closed(child.Done()) {
		t.Errorf("child of a canceled parent: Err %v, Cause %v", child.Err(), simctx.Cause(child))
	}
	if n := simctx.NumChildren(parent); n != 0 {
		t.Errorf("a canceled parent holds %d children", n)
	}
}

func TestPlainCauseLikeContext(t *testing.T) {
	cause1, cause2 := errors.New("cause1"), errors.New("cause2")
	type outcome struct{ parentErr, parentCause, childErr, childCause error }

	// Both packages, the same steps.
	stdRun := func(childFirst bool, c1, c2 error) outcome {
		p, cp := context.WithCancelCause(context.Background())
		c, cc := context.WithCancelCause(p)
		if childFirst {
			cc(c2)
			cp(c1)
		} else {
			cp(c1)
			cc(c2)
		}
		return outcome{p.Err(), context.Cause(p), c.Err(), context.Cause(c)}
	}
	simRun := func(childFirst bool, c1, c2 error) outcome {
		p, cp := simctx.WithCancelCause(simctx.Background())
		c, cc := simctx.WithCancelCause(p)
		if childFirst {
			cc(c2)
			cp(c1)
		} else {
			cp(c1)
			cc(c2)
		}
		return outcome{p.Err(), simctx.Cause(p), c.Err(), simctx.Cause(c)}
	}
	for _, childFirst := range []bool{false, true} {
		for _, causes := range [][2]error{{cause1, cause2}, {nil, cause2}, {cause1, nil}, {nil, nil}} {
			want := stdRun(childFirst, causes[0], causes[1])
			if got := simRun(childFirst, causes[0], causes[1]); got != want {
				t.Errorf("childFirst %v causes %v: got %+v, want %+v", childFirst, causes, got, want)
			}
		}
	}

	// Not yet canceled, and WithoutCancel.
	p, cancel := simctx.WithCancelCause(simctx.Background())
	if simctx.Cause(p) != nil {
		t.Errorf("Cause before cancel: %v", simctx.Cause(p))
	}
	cancel(cause1)
	if c := simctx.WithoutCancel(p); simctx.Cause(c) != nil || c.Err() != nil {
		t.Errorf("WithoutCancel: Cause %v, Err %v", simctx.Cause(c), c.Err())
	}
	if c := simctx.WithValue(p, "k", 1); simctx.Cause(c) != cause1 {
		t.Errorf("Cause through WithValue: %v", simctx.Cause(c))
	}
}

func TestPlainDeadline(t *testing.T) {
	start := time.Now()
	ctx, cancel := simctx.WithTimeout(simctx.Background(), 20*time.Millisecond)
	defer cancel()
	d, ok := ctx.Deadline()
	if !ok || d.Before(start.Add(20*time.Millisecond)) || d.After(time.Now().Add(20*time.Millisecond)) {
		t.Errorf("Deadline %v, %v", d, ok)
	}
	if ctx.Err() != nil {
		t.Fatalf("Err before the deadline: %v", ctx.Err())
	}
	waitDone(t, ctx)
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Errorf("canceled after %v, before the deadline", el)
	}
	if ctx.Err() != context.DeadlineExceeded || simctx.Cause(ctx) != context.DeadlineExceeded {
		t.Errorf("Err %v, Cause %v", ctx.Err(), simctx.Cause(ctx))
	}
	cancel() // after the deadline: nothing changes
	if ctx.Err() != context.DeadlineExceeded {
		t.Errorf("Err after cancel: %v", ctx.Err())
	}
}

func TestPlainTimeoutCause(t *testing.T) {
	slow := errors.New("slow")
	ctx, cancel := simctx.WithTimeoutCause(simctx.Background(), time.Millisecond, slow)
	defer cancel()
	waitDone(t, ctx)
	if ctx.Err() != context.DeadlineExceeded || simctx.Cause(ctx) != slow {
		t.Errorf("Err %v, Cause %v", ctx.Err(), simctx.Cause(ctx))
	}
	// The CancelFunc does not set the cause.
	ctx, cancel = simctx.WithDeadlineCause(simctx.Background(), time.Now().Add(time.Hour), slow)
	cancel()
	if ctx.Err() != context.Canceled || simctx.Cause(ctx) != context.Canceled {
		t.Errorf("after cancel: Err %v, Cause %v", ctx.Err(), simctx.Cause(ctx))
	}
}

func TestPlainDeadlinePassed(t *testing.T) {
	parent, cancelParent := simctx.WithCancel(simctx.Background())
	defer cancelParent()
	for _, d := range []time.Time{time.Now().Add(-time.Second), time.Now()} {
		ctx, cancel := simctx.WithDeadline(parent, d)
		if ctx.Err() != context.DeadlineExceeded || !closed(ctx.Done()) {
			t.Errorf("deadline %v: Err %v", d, ctx.Err())
		}
		cancel()
		if ctx.Err() != context.DeadlineExceeded {
			t.Errorf("cancel changed Err to %v", ctx.Err())
		}
	}
	ctx, cancel := simctx.WithTimeout(parent, 0)
	defer cancel()
	if ctx.Err() != context.DeadlineExceeded {
		t.Errorf("WithTimeout(0): Err %v", ctx.Err())
	}
	if n := simctx.NumChildren(parent); n != 0 {
		t.Errorf("expired contexts left %d children in the parent", n)
	}
}

func TestPlainDeadlineOfParent(t *testing.T) {
	now := time.Now()
	parent, cancel := simctx.WithDeadline(simctx.Background(), now.Add(time.Hour))
	defer cancel()
	later, cancel2 := simctx.WithDeadline(parent, now.Add(2*time.Hour))
	defer cancel2()
	if d, _ := later.Deadline(); !d.Equal(now.Add(time.Hour)) {
		t.Errorf("a later deadline than the parent's: Deadline %v, want the parent's", d)
	}
	sooner, cancel3 := simctx.WithDeadline(parent, now.Add(time.Minute))
	defer cancel3()
	if d, _ := sooner.Deadline(); !d.Equal(now.Add(time.Minute)) {
		t.Errorf("a sooner deadline: Deadline %v", d)
	}
	if d, _ := simctx.WithValue(sooner, "k", 1).Deadline(); !d.Equal(now.Add(time.Minute)) {
		t.Errorf("Deadline through WithValue: %v", d)
	}
	cancel()
	if later.Err() != context.Canceled || sooner.Err() != context.Canceled {
		t.Errorf("children of a canceled parent with deadlines: %v, %v", later.Err(), sooner.Err())
	}
}

func TestPlainCancelStopsTimer(t *testing.T) {
	ctx, cancel := simctx.WithTimeout(simctx.Background(), 5*time.Millisecond)
	cancel()
	time.Sleep(20 * time.Millisecond)
	if ctx.Err() != context.Canceled {
		t.Errorf("Err %v after cancel then the deadline", ctx.Err())
	}
}

func TestPlainAfterFunc(t *testing.T) {
	ctx, cancel := simctx.WithCancel(simctx.Background())
	ran := make(chan struct{})
	stop := simctx.AfterFunc(ctx, func() { close(ran) })
	stopped := make(chan struct{})
	stop2 := simctx.AfterFunc(ctx, func() { close(stopped) })
	if !stop2() {
		t.Error("stop before cancel: false")
	}
	if stop2() {
		t.Error("second stop: true")
	}
	select {
	case <-ran:
		t.Fatal("f ran before cancel")
	default:
	}
	cancel()
	select {
	case <-ran:
	case <-time.After(time.Second):
		t.Fatal("f did not run after cancel")
	}
	if stop() {
		t.Error("stop after f started: true")
	}
	select {
	case <-stopped:
		t.Error("a stopped f ran")
	case <-time.After(5 * time.Millisecond):
	}

	// An already canceled context runs f at once.
	ran2 := make(chan struct{})
	simctx.AfterFunc(ctx, func() { close(ran2) })
	select {
	case <-ran2:
	case <-time.After(time.Second):
		t.Fatal("f did not run for a canceled context")
	}

	// A context that is never canceled never runs f; stop stops it.
	if stop := simctx.AfterFunc(simctx.Background(), func() { t.Error("f ran for Background") }); !stop() {
		t.Error("stop for Background: false")
	}
}

func TestPlainAfterFuncStopRace(t *testing.T) {
	// Exactly one of stop and cancel wins.
	for range 100 {
		ctx, cancel := simctx.WithCancel(simctx.Background())
		ran := make(chan struct{}, 1)
		stop := simctx.AfterFunc(ctx, func() { ran <- struct{}{} })
		var stopped bool
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); cancel() }()
		go func() { defer wg.Done(); stopped = stop() }()
		wg.Wait()
		if stopped {
			select {
			case <-ran:
				t.Fatal("stop reported true, and f ran")
			case <-time.After(time.Millisecond):
			}
		} else {
			select {
			case <-ran:
			case <-time.After(time.Second):
				t.Fatal("stop reported false, and f did not run")
			}
		}
	}
}

func TestPlainWithoutCancel(t *testing.T) {
	parent, cancel := simctx.WithTimeout(simctx.WithValue(simctx.Background(), "k", "v"), time.Hour)
	c := simctx.WithoutCancel(parent)
	cancel()
	if c.Err() != nil || c.Done() != nil || c.Value("k") != "v" {
		t.Errorf("WithoutCancel: Err %v, Done %v, Value %v", c.Err(), c.Done(), c.Value("k"))
	}
	if _, ok := c.Deadline(); ok {
		t.Error("WithoutCancel has a deadline")
	}
	child, cancelChild := simctx.WithCancel(c)
	if child.Err() != nil {
		t.Errorf("a child of WithoutCancel of a canceled context: %v", child.Err())
	}
	cancelChild()
	if got := fmt.Sprint(c); got != "simctx.Background.WithValue(k, v).WithDeadline("+mustDeadline(parent).String()+").WithoutCancel" {
		t.Errorf("name %q", got)
	}
}

func mustDeadline(c simctx.Context) time.Time {
	d, _ := c.Deadline()
	return d
}

type key1 struct{}
type key2 int

func TestPlainValue(t *testing.T) {
	c0 := simctx.Background()
	c1 := simctx.WithValue(c0, key1{}, "one")
	c2, cancel := simctx.WithCancel(c1)
	defer cancel()
	c3 := simctx.WithValue(c2, key2(2), "two")
	c4 := simctx.WithValue(c3, key1{}, "shadow")
	for _, tc := range []struct {
		c    simctx.Context
		k    any
		want any
	}{
		{c0, key1{}, nil},
		{c1, key1{}, "one"},
		{c1, key2(2), nil},
		{c2, key1{}, "one"},
		{c3, key1{}, "one"},
		{c3, key2(2), "two"},
		{c3, 2, nil}, // another type
		{c4, key1{}, "shadow"},
		{c4, key2(2), "two"},
		{simctx.WithoutCancel(c4), key2(2), "two"},
	} {
		if got := tc.c.Value(tc.k); got != tc.want {
			t.Errorf("%v.Value(%T) = %v, want %v", tc.c, tc.k, got, tc.want)
		}
	}

	// Panics match package context's.
	for _, k := range []any{nil, []int{1}, map[int]int{}, func() {}} {
		want := catch(func() { _ = context.WithValue(context.Background(), k, 1) })
		if got := catch(func() { simctx.WithValue(simctx.Background(), k, 1) }); got == nil || got != want {
			t.Errorf("WithValue key %T: panic %v, want %v", k, got, want)
		}
	}
}

// custom is a Context of its own, with its own Done channel.
type custom struct {
	done *sim.Chan[struct{}]
	mu   sync.Mutex
	err  error
}

func newCustom() *custom { return &custom{done: sim.NewChan[struct{}](0)} }

func (c *custom) Deadline() (time.Time, bool)      { return time.Time{}, false }
func (c *custom) Done() *sim.Chan[struct{}]        { return c.done }
func (c *custom) Value(any) any                    { return nil }
func (c *custom) Err() error                       { c.mu.Lock(); defer c.mu.Unlock(); return c.err }
func (c *custom) cancel(err error)                 { c.mu.Lock(); c.err = err; c.mu.Unlock(); c.done.Close() }
func (c *custom) String() string                   { return "custom" }
func (c *customAF) AfterFunc(f func()) func() bool { c.n++; return simctx.AfterFunc(c.custom, f) }

// customAF is a custom Context with an AfterFunc method.
type customAF struct {
	*custom
	n int
}

func TestPlainCustomParent(t *testing.T) {
	p := newCustom()
	child, cancel := simctx.WithCancel(p)
	defer cancel()
	p.cancel(context.Canceled)
	waitDone(t, child)
	if child.Err() != context.Canceled {
		t.Errorf("child of a custom parent: %v", child.Err())
	}

	// An already canceled custom parent.
	child2, cancel2 := simctx.WithCancel(p)
	defer cancel2()
	if child2.Err() != context.Canceled {
		t.Errorf("child of a canceled custom parent: %v", child2.Err())
	}

	// A custom parent with an AfterFunc method.
	pa := &customAF{custom: newCustom()}
	child3, cancel3 := simctx.WithCancel(pa)
	if pa.n != 1 {
		t.Errorf("AfterFunc method called %d times", pa.n)
	}
	cancel3()
	if child3.Err() != context.Canceled {
		t.Errorf("child3: %v", child3.Err())
	}
	child4, cancel4 := simctx.WithTimeout(pa, time.Hour)
	defer cancel4()
	pa.cancel(context.DeadlineExceeded)
	waitDone(t, child4)
	if child4.Err() != context.DeadlineExceeded {
		t.Errorf("child4: %v", child4.Err())
	}
}

func TestPlainConcurrent(t *testing.T) {
	// Cancels and checks from many goroutines: -race finds what is not
	// guarded.
	for range 20 {
		root, cancelRoot := simctx.WithCancel(simctx.Background())
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, cancel := simctx.WithTimeout(root, time.Duration(i)*time.Millisecond)
				defer cancel()
				c2, cancel2 := simctx.WithCancelCause(c)
				if i%2 == 0 {
					cancel2(errors.New("mine"))
				}
				for c2.Err() == nil {
					time.Sleep(100 * time.Microsecond)
				}
				if !closed(c2.Done()) || simctx.Cause(c2) == nil {
					t.Error("Err set, Done not closed or no cause")
				}
			}()
		}
		time.Sleep(time.Millisecond)
		cancelRoot()
		wg.Wait()
		if n := simctx.NumChildren(root); n > 0 {
			t.Errorf("root keeps %d children", n)
		}
	}
}

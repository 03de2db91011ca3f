package sim_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

func TestPlainOnceFunc(t *testing.T) {
	var calls atomic.Int32
	f := sim.OnceFunc(func() {
		time.Sleep(5 * time.Millisecond)
		calls.Add(1)
	})
	parallel(16, func(int) {
		f()
		if calls.Load() != 1 {
			t.Error("the function returned before f finished")
		}
	})
	f()
	if n := calls.Load(); n != 1 {
		t.Fatalf("f ran %d times", n)
	}
}

func TestPlainOnceValues(t *testing.T) {
	var calls atomic.Int32
	v := sim.OnceValue(func() int { return int(calls.Add(1)) * 10 })
	vs := sim.OnceValues(func() (string, error) { calls.Add(1); return "x", errors.New("e") })
	parallel(8, func(int) {
		if got := v(); got != 10 {
			t.Errorf("OnceValue: %d", got)
		}
		if s, err := vs(); s != "x" || err == nil || err.Error() != "e" {
			t.Errorf("OnceValues: %q, %v", s, err)
		}
	})
	if n := calls.Load(); n != 2 {
		t.Fatalf("the functions ran %d times, want once each", n)
	}
}

// As with sync's: if f panics, every call panics with the same value, and f
// does not run again.
func TestPlainOnceFuncPanic(t *testing.T) {
	calls := 0
	f := sim.OnceFunc(func() { calls++; panic("boom") })
	v := sim.OnceValue(func() int { calls++; panic(fmt.Errorf("value")) })
	vs := sim.OnceValues(func() (int, int) { calls++; panic(7) })
	for range 3 {
		if msg := panicOf(f); msg != "boom" {
			t.Errorf("OnceFunc panicked with %q", msg)
		}
		if msg := panicOf(func() { v() }); msg != "value" {
			t.Errorf("OnceValue panicked with %q", msg)
		}
		if msg := panicOf(func() { vs() }); msg != "7" {
			t.Errorf("OnceValues panicked with %q", msg)
		}
	}
	if calls != 3 {
		t.Errorf("the functions ran %d times, want once each", calls)
	}
}

// Under control the function runs once across goroutines, the others wait
// for it, and all see its results.
func TestControlledOnceFunc(t *testing.T) {
	exploreAll(t, func(c *checker) {
		calls, done := 0, false
		f := sim.OnceFunc(func() {
			calls++
			sim.Yield() // others arrive while f runs
			done = true
		})
		v := sim.OnceValue(func() int {
			calls++
			sim.Yield()
			return 42
		})
		vs := sim.OnceValues(func() (int, string) {
			calls++
			sim.Yield()
			return 1, "one"
		})
		var wg sim.WaitGroup
		for range 3 {
			wg.Go(func() {
				f()
				if !done {
					c.Errorf("OnceFunc's function returned before f finished")
				}
				c.Equal("OnceValue", v(), 42)
				a, b := vs()
				c.Equal("OnceValues", []any{a, b}, []any{1, "one"})
			})
		}
		wg.Wait()
		c.Equal("calls", calls, 3)
	})
}

func TestControlledOnceFuncPanic(t *testing.T) {
	exploreAll(t, func(c *checker) {
		calls := 0
		f := sim.OnceFunc(func() {
			calls++
			sim.Yield()
			panic("boom")
		})
		v := sim.OnceValue(func() int { calls++; panic("value") })
		var wg sim.WaitGroup
		for range 3 {
			wg.Go(func() {
				c.Equal("OnceFunc's panic", panicOf(f), "boom")
				c.Equal("OnceValue's panic", panicOf(func() { v() }), "value")
			})
		}
		wg.Wait()
		c.Equal("calls", calls, 2)
	})
}

// A function made outside the executions runs once in each, as a Once does.
func TestControlledOnceFuncPerExecution(t *testing.T) {
	calls := 0
	fail := true
	v := sim.OnceValue(func() int {
		calls++
		if fail {
			panic("first execution")
		}
		return calls
	})
	r := runOnce(func() { v() })
	if r.Failure == nil || r.Failure.Kind != sched.Panic || r.Failure.Message != "first execution" {
		t.Fatalf("first execution: %s", r.Failure.Summary())
	}
	fail = false
	got := 0
	r = runOnce(func() { got = v() + v() })
	if r.Failure != nil || got != 4 || calls != 2 {
		t.Fatalf("second execution: %s, got %d, calls %d", r.Failure.Summary(), got, calls)
	}
}

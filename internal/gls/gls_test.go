package gls_test

import (
	"bytes"
	"context"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
)

func TestBindGetRelease(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if gls.Get() != nil {
			t.Error("unbound goroutine has a value")
		}
		b := gls.Bind("mine", "k", "v")
		if gls.Get() != "mine" {
			t.Errorf("Get = %v", gls.Get())
		}
		inherited := make(chan any)
		go func() { inherited <- gls.Get() }() // a plain go statement inherits the labels
		if v := <-inherited; v != "mine" {
			t.Errorf("child sees %v", v)
		}
		b.Release()
		if gls.Get() != nil {
			t.Error("value after Release")
		}
	}()
	<-done
	if gls.Get() != nil {
		t.Error("another goroutine sees the value")
	}
}

func TestManyGoroutinesInParallel(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			b := gls.Bind(i)
			defer b.Release()
			for range 1000 {
				if v := gls.Get(); v != i {
					t.Errorf("goroutine %d sees %v", i, v)
					return
				}
			}
		})
	}
	wg.Wait()
	if gls.Active() {
		t.Error("bindings left after every goroutine released")
	}
}

// A worker keeps its binding and changes the value it holds: Set from
// another goroutine while the bound one waits, nil for no value.
func TestSetChangesTheValueOfABinding(t *testing.T) {
	bound := make(chan gls.Binding)
	next, seen := make(chan struct{}), make(chan any)
	go func() {
		b := gls.Bind(nil, "k", "v")
		bound <- b
		for range next {
			seen <- gls.Get()
		}
		b.Release()
		close(seen)
	}()
	b := <-bound
	for _, v := range []any{nil, "first", "second", nil} {
		if v == nil {
			b.Set(nil)
		} else {
			b.Set(&v)
		}
		next <- struct{}{}
		if got := <-seen; got != v {
			t.Errorf("after Set(%v), Get = %v", v, got)
		}
	}
	b.Set(nil)
	if gls.Active() {
		t.Error("a binding without a value counts as active")
	}
	close(next)
	<-seen
}

// Held reports whether the goroutine still carries its binding's labels.
func TestHeldAfterSetGoroutineLabels(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := gls.Bind("mine", "k", "v")
		defer b.Release()
		if !b.Held() {
			t.Error("not held right after Bind")
		}
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("other", "labels")))
		if b.Held() || gls.Get() != nil {
			t.Errorf("held (%v) or a value (%v) after the labels were replaced", b.Held(), gls.Get())
		}
	}()
	<-done
}

// Go starts a goroutine that does not inherit its starter's value.
func TestGoDoesNotInherit(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := gls.Bind("mine", "k", "v")
		defer b.Release()
		child := make(chan any)
		gls.Go(func() { child <- gls.Get() })
		if v := <-child; v != nil {
			t.Errorf("gls.Go's goroutine sees %v", v)
		}
		if gls.Get() != "mine" {
			t.Errorf("the starter sees %v after gls.Go", gls.Get())
		}
	}()
	<-done
}

// A bound goroutine's labels are real profiler labels: the goroutine
// profile, which reads them from the runtime's label pointer, lists them.
func TestLabelsInGoroutineProfile(t *testing.T) {
	bound, done := make(chan struct{}), make(chan struct{})
	go func() {
		b := gls.Bind("mine", "weft.test", "TestLabels", "weft.g", "0.1")
		defer b.Release()
		close(bound)
		<-done
	}()
	<-bound
	var buf bytes.Buffer
	err := pprof.Lookup("goroutine").WriteTo(&buf, 1)
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"weft.test":"TestLabels"`, `"weft.g":"0.1"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("goroutine profile lacks %s:\n%s", want, buf.String())
		}
	}
}

// Bind takes at most 7 pairs, and no key without its value.
func TestBindRejectsBadLabels(t *testing.T) {
	for _, labels := range [][]string{{"k"}, make([]string, 16)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Bind(%d labels) did not panic", len(labels))
				}
			}()
			gls.Bind(nil, labels...).Release()
		}()
	}
}

// Self and Key.Value, Get's inlined halves, agree with Get, or defer to
// it (under the race detector); Key.Slot holds Get's value where it
// answers.
func TestKeyValueAgreesWithGet(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if v, ok := gls.Self().Value(); v != nil || (ok == race.Enabled) {
			t.Errorf("unbound: Value = %v, %v", v, ok)
		}
		if p := gls.Self().Slot(); p != nil {
			t.Errorf("unbound: Slot holds %v", *p)
		}
		b := gls.Bind("mine", "k", "v")
		defer b.Release()
		if v, ok := gls.Self().Value(); ok == race.Enabled || (ok && v != "mine") {
			t.Errorf("bound: Value = %v, %v", v, ok)
		}
		if p := gls.Self().Slot(); race.Enabled != (p == nil) || (p != nil && *p != "mine") {
			t.Errorf("bound: Slot = %v", p)
		}
		b.Set(nil)
		if p := gls.Self().Slot(); p != nil {
			t.Errorf("bound without a value: Slot holds %v", *p)
		}
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("k", "v")))
		if p := gls.Self().Slot(); p != nil {
			t.Errorf("labelled by pprof: Slot holds %v", *p)
		}
	}()
	<-done
}

// TestLeave: a goroutine that inherited its starter's binding leaves it,
// and the goroutines it starts then see nothing either; its starter keeps
// its value.
func TestLeave(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := gls.Bind("mine", "k", "v")
		defer b.Release()
		seen := make(chan any, 3)
		go func() {
			seen <- gls.Get()
			gls.Leave()
			seen <- gls.Get()
			go func() { seen <- gls.Get() }()
		}()
		for i, want := range []any{"mine", nil, nil} {
			if v := <-seen; v != want {
				t.Errorf("child's Get #%d = %v, want %v", i, v, want)
			}
		}
		if !b.Held() || gls.Get() != "mine" {
			t.Errorf("the starter: held %v, Get = %v", b.Held(), gls.Get())
		}
	}()
	<-done
}

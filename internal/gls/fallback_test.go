package gls

import (
	"testing"
)

// The fallback, for a Go whose label sets gls does not know: Bind labels
// the goroutine through pprof and Get finds its entry in a map. The tests
// run it on this Go by pretending the layout is unknown.
func TestFallback(t *testing.T) {
	if !native {
		t.Fatal("this Go's label sets are not laid out as gls knows: every binding takes the fallback")
	}
	native = false
	defer func() { native = true }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := Bind("mine", "k", "v")
		if !b.Held() || Get() != "mine" {
			t.Errorf("held %v, Get = %v", b.Held(), Get())
		}
		if v, ok := Self().Value(); ok {
			t.Errorf("Key.Value answered (%v) in the fallback", v)
		}
		if p := Self().Slot(); p != nil {
			t.Errorf("Key.Slot answered (%v) in the fallback", *p)
		}
		child := make(chan any)
		Go(func() { child <- Get() })
		if v := <-child; v != nil {
			t.Errorf("Go's goroutine sees %v", v)
		}
		b.Release()
		if Get() != nil || b.Held() {
			t.Errorf("after Release: Get = %v, held %v", Get(), b.Held())
		}
	}()
	<-done
	n := 0
	slots.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Errorf("%d entries left in the fallback's map", n)
	}
}

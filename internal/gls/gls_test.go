package gls_test

import (
	"sync"
	"testing"

	"github.com/weftdev/weft/internal/gls"
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

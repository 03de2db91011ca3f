package errchan

import (
	"fmt"
	"testing"
)

func TestErrors(t *testing.T) {
	ch := make(chan error)
	go Work(4, ch)
	odd := 0
	for range 4 {
		if err := <-ch; err != nil {
			odd++
			_ = fmt.Sprint(err)
		}
	}
	if odd != 2 {
		t.Errorf("%d odd", odd)
	}
}

package lateflow

import (
	"fmt"
	"testing"
)

// TestDone waits on a Go channel that another goroutine closes: the
// receive polls it, so the closing goroutine runs.
func TestDone(t *testing.T) {
	task, stop := New[int]()
	go stop()
	<-task.Done()
	if s := fmt.Sprint(task.Done()); s == "" {
		t.Error("no text")
	}
}

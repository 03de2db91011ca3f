// Package timerpool keeps its timers in a sync.Pool, as hashicorp/yamux
// keeps its write timers: a timer made in one execution is reset in later
// ones, where it must fire (it stayed the earlier execution's, and the
// select on it waited forever: a deadlock in every later execution).
package timerpool

import (
	"sync"
	"time"
)

var timers = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

// Send sends v on ch, or gives up after d.
func Send(ch chan int, v int, d time.Duration) bool {
	t := timers.Get().(*time.Timer)
	t.Reset(d)
	defer func() {
		t.Stop()
		timers.Put(t)
	}()
	select {
	case ch <- v:
		return true
	case <-t.C:
		return false
	}
}

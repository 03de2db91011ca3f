package selects

import (
	"time"

	"example.com/selects/ext"
)

// Blank receives only whether a channel is closed.
func Blank(ch <-chan int, done <-chan bool) bool {
	select {
	case _, ok := <-ch:
		return ok
	case <-done:
		return false
	}
}

// Funcs sends a function literal that spans lines, with comments, and a
// raw string that does too.
func Funcs(ch chan func() string) bool {
	select {
	case ch <- func() string { // a comment
		/* another */
		return `a raw
string`
	}:
		return true
	default:
		return false
	}
}

// Tick receives a tick's time: the time package is otherwise only used in
// calls the rewrite replaces.
func Tick() time.Time {
	tk := time.NewTicker(1000)
	defer tk.Stop()
	select {
	case v := <-tk.C:
		return v
	}
}

// S keeps a timer in a field, set later.
type S struct{ timer *time.Timer }

// Wait waits for the timer or done.
func (s *S) Wait(done chan struct{}) bool {
	s.timer = time.NewTimer(time.Millisecond)
	select {
	case <-s.timer.C:
		return true
	case <-done:
		return false
	}
}

// Mixed waits on a local channel and on one from a package weft does not
// instrument.
func Mixed(done chan struct{}) bool {
	select {
	case <-done:
		return false
	case <-ext.Ready():
		return true
	}
}

// Clocked waits on a fake clock that another goroutine advances, or on a
// result: the select polls the fake clock's channel.
func Clocked(c *ext.Clock, results chan int) (int, bool) {
	after := c.After(10)
	select {
	case v := <-after:
		return v, true
	case r := <-results:
		return r, false
	}
}

// Outside waits on a channel a goroutine weft does not control feeds, or
// on a local one.
func Outside(done chan struct{}) bool {
	select {
	case <-ext.Later(5 * time.Millisecond):
		return true
	case <-done:
		return false
	}
}

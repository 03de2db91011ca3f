// Package goleakfound is goleak without its Stop: the loop runs on after
// the test, a leak that goleak.VerifyNone reports under go test and weft
// test alike.
package goleakfound

import (
	"sync/atomic"
	"time"
)

// Loop counts ticks until it is stopped.
type Loop struct {
	stop  chan struct{}
	ticks atomic.Int64
}

// Start starts a loop.
func Start() *Loop {
	l := &Loop{stop: make(chan struct{})}
	go l.run()
	return l
}

func (l *Loop) run() {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			time.Sleep(time.Millisecond) // its cleanup takes a while
			return
		case <-t.C:
			l.ticks.Add(1)
		}
	}
}

// Stop asks the loop to end, and returns at once.
func (l *Loop) Stop() { close(l.stop) }

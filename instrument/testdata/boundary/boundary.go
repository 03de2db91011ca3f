package boundary

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"example.com/boundary/ext"
)

// Notify hands its channel to os/signal, which weft does not instrument:
// the channel stays a Go channel, and so do the operations on it.
func Notify(ours chan int) os.Signal {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	ours <- 1
	select {
	case s := <-sigs:
		return s
	default:
	}
	return <-sigs
}

// Wait hands a timer's channel on: the timer stays the time package's.
func Wait(d time.Duration) time.Time {
	t := time.NewTimer(d)
	return waitOn(t.C)
}

func waitOn(c <-chan time.Time) time.Time { return <-c }

// Fetch hands its context to net/http and takes one back from it: the
// contexts are converted at the boundary.
func Fetch(ctx context.Context, url string) (context.Context, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return nil, err
	}
	back := req.Context()
	ctx2, cancel := context.WithTimeout(back, time.Second)
	defer cancel()
	return ctx2, nil
}

// Lock hands a mutex to code that expects sync's own: it stays a
// sync.Mutex, and its uses are not controlled.
func Lock(handoff func(*sync.Mutex)) {
	var mu sync.Mutex
	var other sync.Mutex
	other.Lock()
	defer other.Unlock()
	lockIt(&mu)
	_ = handoff
}

func lockIt(mu *sync.Mutex) { mu.Lock(); mu.Unlock() }

// Once hands a WaitGroup to a function of another package.
func Once() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done() }()
	wait(&wg)
}

func wait(w interface{ Wait() }) { w.Wait() }

// External hands weft's values to a package weft does not instrument, and
// takes a channel from it.
func External(d time.Duration) int {
	ext.Wait(time.After(d))
	var events <-chan int = ext.Events()
	var mu sync.Mutex
	ext.Lock(&mu)
	n := 0
	for range events {
		n++
	}
	more := ext.Events()
	<-more
	return n
}

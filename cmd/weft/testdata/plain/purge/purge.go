// Package purge is ants' default pool, reduced: a pool made at package
// initialization, whose purge loop, started there, takes the idle workers
// out of the pool and hands each a nil on its channel, in real time,
// whatever test runs meanwhile. A pool that Release closed while a worker
// still ran closes allDone when its last worker exits; Reboot waits for
// it.
package purge

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is Submit's error once the pool is released.
var ErrClosed = errors.New("purge: pool closed")

type worker struct {
	p    *pool
	task chan func()
}

type pool struct {
	lock    atomic.Int32 // a spin lock, as ants' is
	idle    []*worker
	nidle   atomic.Int32
	running atomic.Int32
	closed  atomic.Bool
	allDone chan struct{}
	once    *sync.Once
	stop    chan struct{}
}

var (
	defaultPool = newPool()

	// The purge loop writes a byte here each time it took idle workers:
	// WaitPurged reads it, in real time, as a test that runs long enough
	// lets the loop wake.
	purgedR, purgedW, _ = os.Pipe()
)

func newPool() *pool {
	p := &pool{allDone: make(chan struct{}), once: new(sync.Once), stop: make(chan struct{})}
	go p.purge(p.stop)
	return p
}

func (p *pool) lockIdle() {
	for !p.lock.CompareAndSwap(0, 1) {
		runtime.Gosched()
	}
}

func (p *pool) unlockIdle() { p.lock.Store(0) }

// purge hands the idle workers a nil, every millisecond.
func (p *pool) purge(stop chan struct{}) {
	ticker := time.NewTicker(time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ticker.C:
		}
		p.lockIdle()
		stale := p.idle
		p.idle = nil
		p.nidle.Store(0)
		p.unlockIdle()
		if len(stale) > 0 {
			purgedW.Write([]byte{1})
		}
		for _, w := range stale {
			w.task <- nil
		}
	}
}

func (w *worker) run() {
	p := w.p
	p.running.Add(1)
	go func() {
		defer func() {
			if p.running.Add(-1) == 0 && p.closed.Load() {
				p.once.Do(func() { close(p.allDone) })
			}
		}()
		for f := range w.task {
			if f == nil {
				return
			}
			f()
			if p.closed.Load() {
				return
			}
			p.lockIdle()
			p.idle = append(p.idle, w)
			p.nidle.Add(1)
			p.unlockIdle()
		}
	}()
}

// Submit runs task on an idle worker, or a new one.
func Submit(task func()) error {
	p := defaultPool
	if p.closed.Load() {
		return ErrClosed
	}
	p.lockIdle()
	var w *worker
	if n := len(p.idle); n > 0 {
		w = p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.nidle.Add(-1)
	}
	p.unlockIdle()
	if w == nil {
		w = &worker{p: p, task: make(chan func(), 1)}
		w.run()
	}
	w.task <- task
	return nil
}

// Idle returns the number of idle workers.
func Idle() int { return int(defaultPool.nidle.Load()) }

// WaitPurged waits, in real time, until the purge loop took idle workers.
func WaitPurged() {
	var b [1]byte
	purgedR.Read(b[:])
}

// Release closes the pool: its idle workers end, and allDone closes once
// no worker runs.
func Release() {
	p := defaultPool
	if !p.closed.CompareAndSwap(false, true) {
		return
	}
	close(p.stop)
	p.lockIdle()
	idle := p.idle
	p.idle = nil
	p.nidle.Store(0)
	p.unlockIdle()
	for _, w := range idle {
		w.task <- nil
	}
	if p.running.Load() == 0 {
		p.once.Do(func() { close(p.allDone) })
	}
}

// Reboot opens a released pool again, once its workers all ended.
func Reboot() {
	p := defaultPool
	if !p.closed.Load() {
		return
	}
	<-p.allDone
	p.allDone = make(chan struct{})
	p.once = new(sync.Once)
	p.stop = make(chan struct{})
	p.closed.Store(false)
	go p.purge(p.stop)
}

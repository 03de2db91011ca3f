package constructs

import (
	"context"
	"math/rand"
	randv2 "math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Hub has channels in fields, maps and slices, of every direction.
type Hub struct {
	in    chan int
	out   <-chan int
	sinks map[string]chan<- int
	lanes []chan chan string
	hits  atomic.Int64
	raw   int64
	once  sync.Once
	cache sync.Map
	rw    sync.RWMutex
}

func NewHub() *Hub {
	in := make(chan int)
	return &Hub{in: in, out: in, sinks: map[string]chan<- int{"a": make(chan int, 1)}, lanes: []chan chan string{make(chan chan string, 2)}}
}

func (h *Hub) Pump(ctx context.Context, vals ...int) error {
	for _, v := range vals {
		select {
		case h.in <- v:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (h *Hub) Drain(done <-chan struct{}) (sum int) {
	var nilch chan int
	for {
		select {
		case v, ok := <-h.out:
			if !ok {
				return sum
			}
			sum += v
		case nilch <- 1:
		case <-done:
			return sum
		}
	}
}

func (h *Hub) Counters() {
	atomic.AddInt64(&h.raw, 1)
	_ = atomic.LoadInt64(&h.raw)
	h.hits.Add(1)
	h.once.Do(func() { h.cache.Store("k", 1) })
	h.rw.RLock()
	defer h.rw.RUnlock()
	runtime.Gosched()
	_ = runtime.NumGoroutine()
}

func Rolls() (int, int, float64) {
	return rand.Intn(6), randv2.IntN(6), randv2.Float64()
}

func Lanes(h *Hub) {
	for c := range h.lanes[0] {
		for s := range c {
			_ = s
		}
	}
	var last chan string
	for last = range h.lanes[0] {
	}
	_ = last
	for range h.sinks {
	}
	for range h.lanes[0] {
	}
	if h.sinks["a"] != nil {
		h.sinks["a"] <- len(h.in) + cap(h.in)
	}
}

func Spawn(h *Hub, f func(int, ...string), xs []string) {
	go f(1, xs...)
	go h.Counters()
	go func(n int) { _ = n }(3)
	go Lanes(h)
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	<-timer.C
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = h.Pump(ctx, 1, 2)
	tick := time.NewTicker(time.Millisecond)
	<-tick.C
	tick.Stop()
	if time.Since(time.Now()) > time.Hour {
		select {}
	}
}

// Relay sends and receives in the bodies of select cases, not only in
// their communications.
func Relay(in, out chan int, quit chan struct{}) {
	select {
	case v := <-in:
		out <- v
		<-quit
	case <-quit:
		v, ok := <-in
		_, _ = v, ok
	}
}

// Canceler keeps a context and its cancel function in fields.
type Canceler struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// NewCanceler derives a context.
func NewCanceler(parent context.Context) *Canceler {
	ctx, cancel := context.WithCancel(parent)
	return &Canceler{ctx: ctx, cancel: cancel}
}

// Dump is what a leak checker reads (go.uber.org/goleak): weft's frames
// and goroutines left out.
func Dump() []byte {
	buf := make([]byte, 1<<16)
	return buf[:runtime.Stack(buf, true)]
}

// NewJanitored is go-cache's New: a finalizer and a cleanup stop what
// the cache started, and under control never run.
func NewJanitored(stop chan bool) *Hub {
	h := &Hub{in: make(chan int)}
	runtime.SetFinalizer(h, func(*Hub) { stop <- true })
	runtime.AddCleanup(h, func(c chan bool) { close(c) }, stop)
	return h
}

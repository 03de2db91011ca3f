package races

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSyncGo(t *testing.T) {
	x := 1
	var wg sync.WaitGroup
	wg.Go(func() { Read(x) })
	wg.Wait()
}

func TestRaceGo(t *testing.T) {
	x := 0
	var wg sync.WaitGroup
	wg.Go(func() { Read(x) })
	x = 1
	wg.Wait()
}

func TestSyncMutex(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for range 2 {
		wg.Go(func() {
			mu.Lock()
			n++
			mu.Unlock()
		})
	}
	wg.Wait()
	Read(n)
}

func TestRaceMutex(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	wg.Go(func() {
		mu.Lock()
		n++
		mu.Unlock()
	})
	wg.Go(func() { n++ })
	wg.Wait()
}

func TestSyncRWMutex(t *testing.T) {
	var rw sync.RWMutex
	var wg sync.WaitGroup
	x := 0
	for range 2 {
		wg.Go(func() {
			rw.RLock()
			Read(x)
			rw.RUnlock()
		})
	}
	wg.Go(func() {
		rw.Lock()
		x++
		rw.Unlock()
	})
	wg.Wait()
}

func TestRaceRWMutex(t *testing.T) {
	var rw sync.RWMutex
	var wg sync.WaitGroup
	x := 0
	wg.Go(func() {
		rw.RLock()
		Read(x)
		rw.RUnlock()
	})
	wg.Go(func() {
		rw.RLock()
		x++ // a write under a read lock
		rw.RUnlock()
	})
	wg.Wait()
}

func TestSyncUnbuffered(t *testing.T) {
	ch := make(chan *int)
	back := make(chan bool)
	y := 0
	go func() {
		p := <-ch
		*p++
		y = 1
		<-back
	}()
	x := 1
	ch <- &x
	back <- true
	Read(y)
}

func TestRaceUnbuffered(t *testing.T) {
	ch := make(chan *int)
	done := make(chan bool)
	go func() {
		p := <-ch
		*p++
		done <- true
	}()
	x := 1
	ch <- &x
	x++ // still writing what it gave away
	<-done
}

func TestSyncSemaphore(t *testing.T) {
	sem := make(chan struct{}, 1)
	var wg sync.WaitGroup
	n := 0
	for range 3 {
		wg.Go(func() {
			sem <- struct{}{}
			n++
			<-sem
		})
	}
	wg.Wait()
	Read(n)
}

func TestRaceSemaphore(t *testing.T) {
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	n := 0
	for range 2 {
		wg.Go(func() {
			sem <- struct{}{}
			n++
			<-sem
		})
	}
	wg.Wait()
}

func TestSyncClose(t *testing.T) {
	done := make(chan struct{})
	x := 0
	go func() {
		x = 1
		close(done)
	}()
	<-done
	Read(x)
}

func TestRaceClose(t *testing.T) {
	done := make(chan struct{})
	x := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		close(done)
		x = 1
	})
	<-done
	Read(x)
	wg.Wait()
}

func TestSyncWaitGroup(t *testing.T) {
	results := make([]int, 3)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = i
		}()
	}
	wg.Wait()
	for _, r := range results {
		Read(r)
	}
}

func TestRaceWaitGroup(t *testing.T) {
	results := make([]int, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			wg.Done()
			results[i] = i // after Done
		}()
	}
	wg.Wait()
	Read(results[0] + results[1])
}

// The first Add, from zero, happens before the goroutine it counts: the
// Wait that blocks on it is ordered after it.
func TestSyncWaitGroupAdd(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { wg.Done() }()
	wg.Wait()
}

// The goroutine counts itself: its Add, from zero, is not ordered with a
// Wait that blocks on it (Add called concurrently with Wait, a race under
// go test -race though no memory is shared).
func TestRaceWaitGroupAdd(t *testing.T) {
	var wg sync.WaitGroup
	go func() {
		wg.Add(1)
		wg.Done()
	}()
	wg.Wait()
}

func TestSyncOnce(t *testing.T) {
	var once sync.Once
	var config *int
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			once.Do(func() { config = new(int) })
			Read(*config)
		})
	}
	wg.Wait()
}

func TestRaceOnce(t *testing.T) {
	var once sync.Once
	var config *int
	var wg sync.WaitGroup
	wg.Go(func() { once.Do(func() { config = new(int) }) })
	wg.Go(func() {
		if config != nil { // without Do
			Read(*config)
		}
	})
	wg.Wait()
}

func TestSyncCond(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var queue []int
	go func() {
		mu.Lock()
		queue = append(queue, 1)
		mu.Unlock()
		cond.Signal()
	}()
	mu.Lock()
	for len(queue) == 0 {
		cond.Wait()
	}
	Read(queue[0])
	mu.Unlock()
}

func TestRaceCond(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var queue []int
	go func() {
		queue = append(queue, 1) // outside the lock
		mu.Lock()
		cond.Signal()
		mu.Unlock()
	}()
	mu.Lock()
	for len(queue) == 0 {
		cond.Wait()
	}
	mu.Unlock()
}

func TestSyncAtomic(t *testing.T) {
	var ready atomic.Bool
	data := 0
	go func() {
		data = 1
		ready.Store(true)
	}()
	for !ready.Load() {
		runtime.Gosched()
	}
	Read(data)
}

func TestRaceAtomic(t *testing.T) {
	var ready atomic.Bool
	data := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		ready.Store(true)
		data = 1 // after the flag
	})
	for !ready.Load() {
		runtime.Gosched()
	}
	Read(data)
	wg.Wait()
}

func TestSyncAfterFunc(t *testing.T) {
	done := make(chan struct{})
	x := 1
	time.AfterFunc(time.Second, func() {
		Read(x)
		close(done)
	})
	<-done
}

func TestRaceAfterFunc(t *testing.T) {
	done := make(chan struct{})
	x := 0
	time.AfterFunc(time.Second, func() {
		Read(x)
		close(done)
	})
	x = 1
	<-done
}

func TestSyncTimer(t *testing.T) {
	x := 1
	tm := time.NewTimer(time.Second)
	done := make(chan struct{})
	go func() {
		<-tm.C
		Read(x)
		close(done)
	}()
	<-done
}

func TestRaceTimer(t *testing.T) {
	x := 0
	tm := time.NewTimer(time.Second)
	done := make(chan struct{})
	go func() {
		<-tm.C
		Read(x)
		close(done)
	}()
	x = 1
	<-done
}

func TestSyncContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	x := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		<-ctx.Done()
		Read(x)
	})
	x = 1
	cancel()
	wg.Wait()
}

func TestRaceContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	x := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		<-ctx.Done()
		Read(x)
	})
	cancel()
	x = 1
	wg.Wait()
}

func TestSyncMap(t *testing.T) {
	var m sync.Map
	go func() { m.Store("k", &[]int{1}[0]) }()
	for {
		if v, ok := m.Load("k"); ok {
			Read(*v.(*int))
			return
		}
		runtime.Gosched()
	}
}

func TestRaceMap(t *testing.T) {
	var m sync.Map
	var wg sync.WaitGroup
	wg.Go(func() {
		p := new(int)
		m.Store("k", p)
		*p = 1 // after the store
	})
	for {
		if v, ok := m.Load("k"); ok {
			Read(*v.(*int))
			break
		}
		runtime.Gosched()
	}
	wg.Wait()
}

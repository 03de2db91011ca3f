package workload

import (
	"fmt"

	"github.com/weftdev/weft/sim"
)

// CacheParams configure the read-mostly cache workload (Cache), after the
// Cache4j example of the Light paper.
type CacheParams struct {
	// Keys is the number of cached objects (default 64).
	Keys int
	// Workers is the number of goroutines using the cache (default 4).
	Workers int
	// Size is the number of operations each worker makes (default 1000),
	// the knob of the workload's length: an operation is about 5
	// operations on sim primitives.
	Size int
	// PutPercent is the share of operations that are puts, in percent
	// (default 5); the others are gets.
	PutPercent int
	// TTL is how long, in ticks of the cache's logical clock (one tick per
	// put), an object stays valid (default 4*Keys).
	TTL int64
	// Buggy makes get check-then-act: it checks the object's createTime
	// under the object's lock, releases the lock, and locks it again to
	// read the value, which a put in between has replaced: the value
	// returned does not belong to the createTime checked.
	Buggy bool
}

// BuggyCacheParams are the tuned parameters of the buggy cache.
var BuggyCacheParams = CacheParams{Keys: 2, Workers: 2, Size: 300, PutPercent: 30, Buggy: true}

const cacheEventsPerOp = 5

func (p CacheParams) withDefaults() CacheParams {
	if p.Keys <= 0 {
		p.Keys = 64
	}
	if p.Workers <= 0 {
		p.Workers = 4
	}
	if p.Size <= 0 {
		p.Size = 1000
	}
	if p.PutPercent <= 0 {
		p.PutPercent = 5
	}
	if p.TTL <= 0 {
		p.TTL = 4 * int64(p.Keys)
	}
	return p
}

// Events estimates the operations of one run.
func (p CacheParams) Events() int {
	p = p.withDefaults()
	per := cacheEventsPerOp
	if p.Buggy {
		per += 2 // a get's second lock and unlock
	}
	return p.Workers*p.Size*per + 4*p.Keys + 3*p.Workers
}

// A cacheObject is an entry of the cache: its value is made from its key
// and createTime (cacheValue), so that a reader can tell whether the value
// it read belongs to the createTime it checked.
type cacheObject struct {
	mu         sim.Mutex
	createTime sim.Var[int64]
	value      sim.Var[int64]
}

func cacheValue(key int, createTime int64) int64 { return createTime<<20 | int64(key) }

type cache struct {
	p       CacheParams
	objects map[int]*cacheObject // read-only once the workers start
	clock   sim.Int64            // the logical clock: one tick per put
	bad     sim.Int64            // gets that returned an inconsistent value
	first   sim.Var[string]      // the first inconsistency, guarded by firstMu
	firstMu sim.Mutex
}

// put resets key's object: a new createTime, a new value.
func (c *cache) put(key int) {
	now := c.clock.Add(1)
	o := c.objects[key]
	o.mu.Lock()
	o.createTime.Store(now)
	o.value.Store(cacheValue(key, now))
	o.mu.Unlock()
}

// get returns key's value if the object is still valid, and reports
// whether it was; an expired object is reloaded (put).
func (c *cache) get(key int) (int64, bool) {
	now := c.clock.Load()
	o := c.objects[key]
	o.mu.Lock()
	created := o.createTime.Load()
	if now-created > c.p.TTL {
		o.mu.Unlock()
		c.put(key)
		return 0, false
	}
	if c.p.Buggy {
		// The check is done: let go of the lock, then take the value.
		o.mu.Unlock()
		o.mu.Lock()
	}
	v := o.value.Load()
	o.mu.Unlock()
	if want := cacheValue(key, created); v != want {
		if c.bad.Add(1) == 1 {
			c.firstMu.Lock()
			c.first.Store(fmt.Sprintf("get(%d) checked createTime %d but returned the value of createTime %d", key, created, v>>20))
			c.firstMu.Unlock()
		}
	}
	return v, true
}

// Cache returns the body of the cache workload: a map of p.Keys cache
// objects, each with a createTime and a value under its own sim.Mutex, and
// a logical clock (a sim.Int64) that ticks on every put. p.Workers
// goroutines each make p.Size operations on random keys, p.PutPercent
// percent of them puts (which reset createTime and the value under the
// lock) and the others gets (which read createTime under the lock, check
// it is within p.TTL of the clock, reload an expired object, and read the
// value). At the end the body checks that every get returned the value of
// the createTime it checked, and panics with "cache: ..." if not.
func Cache(p CacheParams) func() {
	p = p.withDefaults()
	return func() {
		c := &cache{p: p, objects: make(map[int]*cacheObject, p.Keys)}
		for k := range p.Keys {
			c.objects[k] = &cacheObject{}
			c.put(k)
		}
		g := newGate(p.Workers)
		var wg sim.WaitGroup
		for w := range p.Workers {
			wg.Go(func() {
				g.wait()
				r := rng(2, uint64(w))
				for range p.Size {
					key := r.IntN(p.Keys)
					if r.IntN(100) < p.PutPercent {
						c.put(key)
					} else {
						c.get(key)
					}
				}
			})
		}
		wg.Wait()
		if n := c.bad.Load(); n != 0 {
			c.firstMu.Lock()
			first := c.first.Load()
			c.firstMu.Unlock()
			panic(fmt.Sprintf("cache: %d inconsistent gets, first: %s", n, first))
		}
	}
}

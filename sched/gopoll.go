package sched

import "time"

// Polling Go channels. A goroutine that waits on a channel weft does not
// control (one that stays Go's, see the README) polls it: it tries the
// operation without blocking and lets the others run between two tries.
// Such a channel changes when a goroutine of the execution completes an
// operation on it (G.Changed), or in real time, from a goroutine outside
// the execution; no other event of the execution changes it. So a poller
// of Go channels alone (G.PollGo) that has polled twice in vain waits for
// one of its channels to change, not for any change: ants' PoolWithFunc
// keeps ten thousand idle workers ranging over Go channels of their own,
// and waking them all at every change of the execution made each task
// cost thousands of events (TestRestCodeCoverage's first execution ran
// 37 million events and was called a runaway). When nothing else can run,
// the stall rounds let them look again, waiting in real time for the
// goroutines outside (see unstall), as for every outside poller; and
// lest a goroutine that never stops (a ticker's loop) keep the stall from
// coming while a goroutine outside has fed their channel, they look again
// when a timer fires goLookEvery or more of virtual time after they last
// did (goTick).

// goLookEvery is the virtual time after which the firing of a timer lets
// every stale poller of Go channels look again: ants' test of 600,000
// tasks spans about three seconds of it.
const goLookEvery = 100 * time.Millisecond

// A goWatch registers stale poller g, in its wait of generation gen, with
// one of its Go channels.
type goWatch struct {
	g   *G
	gen uint64
}

// pollMark returns the count that g's polls are in vain against: the
// times it was woken, for a poller of Go channels alone, the changes of
// the execution's state for the others.
//
//go:norace
func (c *Controller) pollMark(g *G, goPoll bool) uint64 {
	if goPoll {
		return g.goWakes
	}
	return c.changes
}

// goWait makes g, a poller of Go channels alone just found stale, wait for
// one of its channels to change.
//
//go:norace
func (c *Controller) goWait(g *G) {
	if len(c.goStale) >= 64 && len(c.goStale) >= 2*c.goStaleN {
		c.goStale = keepStale(c.goStale)
		c.goStaleN = len(c.goStale)
	}
	c.goStale = append(c.goStale, g)
	c.goStaleN++
	for _, ch := range g.goChans {
		if ch == 0 {
			continue // a nil channel: never ready
		}
		l := c.goWaiting.list(ch)
		*l = append(*l, goWatch{g, g.goWakes})
	}
}

// goChanged records that Go channel ch changed: its stale pollers are
// candidates again.
//
//go:norace
func (c *Controller) goChanged(ch uintptr) {
	l := c.goWaiting.find(ch)
	if l == nil || ch == 0 {
		return
	}
	for i, w := range *l {
		if g := w.g; g.stale && g.goPoll && g.goWakes == w.gen {
			c.goWake(g)
		}
		(*l)[i] = goWatch{}
	}
	*l = (*l)[:0]
}

// goRound wakes every stale poller of Go channels, for a stall round.
//
//go:norace
func (c *Controller) goRound() {
	for _, g := range c.goStale {
		if g.stale {
			c.goWake(g)
		}
	}
	c.goStale, c.goStaleN = keepStale(c.goStale), 0
	c.goWaiting.empty()
	c.goLooked = c.now
}

// goTick lets every stale poller of Go channels look again, at a timer's
// firing, if they last did goLookEvery or more ago.
//
//go:norace
func (c *Controller) goTick() {
	if len(c.goStale) == 0 || c.now-c.goLooked < int64(goLookEvery) {
		return
	}
	c.goRound()
}

// goWake makes stale poller g a candidate again.
//
//go:norace
func (c *Controller) goWake(g *G) {
	g.stale = false
	g.goWakes++
	c.goStaleN--
	c.setFresh(g, g.cand && !g.done)
}

// A goTable holds the stale pollers of each Go channel: a hash table of
// open addressing, with loops, not a map, whose accesses the race detector
// checks even in a //go:norace function (the controller's state is touched
// by whichever goroutine holds the baton). A channel keeps its slot once
// it has one: the channels an execution polls are few.
type goTable struct {
	keys  []uintptr // 0: a free slot
	lists [][]goWatch
	n     int // slots taken
}

// slot returns the index of ch's slot, or of the free slot where it would
// go.
//
//go:norace
func (t *goTable) slot(ch uintptr) int {
	mask := len(t.keys) - 1
	i := int((uint64(ch) >> 3) * 0x9e3779b97f4a7c15 >> 32 & uint64(mask))
	for t.keys[i] != 0 && t.keys[i] != ch {
		i = (i + 1) & mask
	}
	return i
}

// find returns ch's list, nil if it has none.
//
//go:norace
func (t *goTable) find(ch uintptr) *[]goWatch {
	if t.n == 0 {
		return nil
	}
	if i := t.slot(ch); t.keys[i] == ch {
		return &t.lists[i]
	}
	return nil
}

// list returns ch's list, giving ch a slot if it has none.
//
//go:norace
func (t *goTable) list(ch uintptr) *[]goWatch {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	i := t.slot(ch)
	if t.keys[i] == 0 {
		t.keys[i] = ch
		t.n++
	}
	return &t.lists[i]
}

// grow doubles the table.
//
//go:norace
func (t *goTable) grow() {
	keys, lists := t.keys, t.lists
	size := max(16, 2*len(keys))
	t.keys, t.lists = make([]uintptr, size), make([][]goWatch, size)
	for i, k := range keys {
		if k != 0 {
			j := t.slot(k)
			t.keys[j], t.lists[j] = k, lists[i]
		}
	}
}

// empty empties every list, keeping the slots.
//
//go:norace
func (t *goTable) empty() {
	for i := range t.lists {
		l := t.lists[i]
		for j := range l {
			l[j] = goWatch{}
		}
		t.lists[i] = l[:0]
	}
}

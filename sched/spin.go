package sched

// Spinning. A spin lock is a loop that looks at one word, a
// CompareAndSwap that fails or a load of a value that is not the one it
// waits for, and yields (runtime.Gosched) between two looks:
//
//	for !atomic.CompareAndSwapUint32(&l, 0, 1) {
//		runtime.Gosched()
//	}
//
// As a poller (see G.Polled), such a goroutine waits until anything at all
// changes: every event of any other goroutine wakes it, and it must look
// again to be found stale again. With a hundred thousand goroutines on
// one spin lock (ants' pool), every acquisition of the lock would wake
// them all, and each critical section cost a hundred thousand events.
//
// So the controller watches the word instead, as a futex does: a goroutine
// that has looked at one object at least twice, with a yield in between and
// nothing else since its last change (only looks at that object, yields and
// reads of it), spins. At its next yield, and at its next look after a
// yield, it waits until the object holds another value than the one it saw
// last (a digest of it, G.Observe). The wait is a Waiter shared by every
// goroutine that saw the same value there, so that they form a group (see
// group.go): a release of the lock enables them all at once, the next
// acquisition disables them all at once. The controller
// knows an object's value from the reads of it (G.Observe) and the writes
// that tell it (G.Wrote); a write that does not tell makes it unknown, and
// a spinner whose value is unknown can run. A spinner is woken by its
// object's change alone, so a spin loop that also waits for something the
// controller does not see (a plain variable) waits until nothing else can
// run: then the spinners get rounds, as stale pollers do (see unstall), and
// each round lets every one of them look again.

// A spinWaiter is the wait of the goroutines spinning on one object that
// last saw one value there: ready when the object holds another, or when a
// stall round released them.
type spinWaiter struct {
	c     *Controller
	obj   uint32
	seen  uint64 // the digest of the value they saw
	round uint32 // the controller's spinRound when they began to wait
}

// Ready reports whether the object holds another value than the one seen,
// or a stall round released its spinners.
//
//go:norace
func (w *spinWaiter) Ready() bool {
	c := w.c
	if c.spinRound != w.round || int(w.obj) >= len(c.values) {
		return true
	}
	v := c.values[w.obj]
	return !v.known || v.digest != w.seen
}

// Shared marks spinWaiter as a SharedWaiter: spinners form groups.
func (*spinWaiter) Shared() {}

// An objValue is what the controller knows of an object's value.
type objValue struct {
	digest uint64
	known  bool
}

// A spin is what the controller knows of the loop a goroutine is in.
type spin struct {
	obj     uint32 // the object it looks at; 0 if none
	seen    uint64 // the digest of the value it saw there last
	looks   uint8  // its looks at obj separated by yields, up to 2
	yielded bool   // it yielded since its last look
}

// spinning reports whether g is in a spin loop: its next yield waits for
// its object to change.
//
//go:norace
func (g *G) spinning() bool { return g.spin.looks >= 2 }

// Wrote tells the controller the digest of the value that the operation g
// just performed left in its object (an atomic store, a read-modify-write),
// after G.Observe of the value it read, if any. Spinners on the object (see
// spin.go) wait until it holds another value than the one they saw; a
// write that does not tell makes the object's value unknown, and wakes
// them.
//
//go:norace
func (g *G) Wrote(v uint64) { g.wrote, g.wroteValue = v, true }

// changeValue records the value that a change of obj (not 0) left: its
// digest if the change told it (Wrote), unknown if not. It is setValue for
// account's changes, without setValue's queueing of obj for flush: account
// queues the object of every change that somebody waits on anyway.
//
//go:norace
func (c *Controller) changeValue(obj uint32, digest uint64, known bool) {
	if int(obj) >= len(c.values) {
		if !known {
			return // an object never known is unknown already
		}
		c.growValues(obj)
	}
	if !known {
		digest = 0
	}
	c.values[obj] = objValue{digest: digest, known: known}
}

// growValues makes room in values for obj.
//
//go:norace
func (c *Controller) growValues(obj uint32) {
	for int(obj) >= len(c.values) {
		c.values = append(c.values, objValue{})
	}
}

// accountSpin takes stock of g's previous event, which changed nothing, for
// its spin loop and the value of the event's object. Called by account.
//
//go:norace
func (c *Controller) accountSpin(g *G) {
	obj := g.obj
	switch {
	case g.wroteValue:
		c.setValue(obj, g.wrote, true)
	case g.observed && g.op != nil && g.op.access == Read:
		c.setValue(obj, g.seen, true)
	}
	look := g.observed && obj != 0 && g.op != nil && (g.op.access == Read || g.pollEvent)
	s := &g.spin
	switch {
	case look && obj == s.obj:
		if s.yielded && s.looks < 2 {
			s.looks++
		}
		s.seen, s.yielded = g.seen, false
	case look:
		*s = spin{obj: obj, seen: g.seen, looks: 1}
	case g.yieldEvent:
		s.yielded = true
	default:
		*s = spin{}
	}
}

// setValue records what the controller knows of obj's value: its digest
// if known, that it is unknown if not; a change of it asks the spinners
// on obj again.
//
//go:norace
func (c *Controller) setValue(obj uint32, digest uint64, known bool) {
	if obj == 0 || !known && int(obj) >= len(c.values) {
		return // an object never known is unknown already: no growth per event
	}
	c.growValues(obj)
	v := objValue{known: known}
	if known {
		v.digest = digest
	}
	if c.values[obj] == v {
		return
	}
	c.values[obj] = v
	if c.watched(obj) { // nobody else to ask: see account
		c.dirty = append(c.dirty, obj)
	}
}

// spinsAt reports whether spinning goroutine g waits for its object to
// change at its event op on obj: at a yield, and at a look at its object
// after a yield (a load, or a CompareAndSwap that would fail again).
//
//go:norace
func (c *Controller) spinsAt(g *G, op *Op, obj uint32) bool {
	if g.yieldEvent {
		return true
	}
	return obj == g.spin.obj && g.spin.yielded && (op.access == Read || op.try)
}

// spinWait returns the Waiter of spinning goroutine g's yield, shared with
// the others that saw the same value of its object in this round.
//
//go:norace
func (c *Controller) spinWait(g *G) *spinWaiter {
	obj := g.spin.obj
	for int(obj) >= len(c.spinners) {
		c.spinners = append(c.spinners, nil)
	}
	w := c.spinners[obj]
	if w == nil || w.seen != g.spin.seen || w.round != c.spinRound {
		w = &spinWaiter{c: c, obj: obj, seen: g.spin.seen, round: c.spinRound}
		c.spinners[obj] = w
		c.spinObjs = append(c.spinObjs, obj)
	}
	return w
}

// anySpinner reports whether some goroutine waits as a spinner.
//
//go:norace
func (c *Controller) anySpinner() bool {
	for _, obj := range c.spinObjs {
		for _, x := range c.watchers[obj] {
			if _, ok := x.g.wait.(*spinWaiter); ok && x.valid() {
				return true
			}
		}
		if int(obj) < len(c.grouped) {
			for _, gr := range c.grouped[obj] {
				if _, ok := gr.w.(*spinWaiter); ok && gr.n > 0 {
					return true
				}
			}
		}
	}
	return false
}

// releaseSpinners starts a stall round for the spinners: every one of them
// can run, and look again.
//
// Loops, not append of a slice or clear: the race detector checks those
// even in a //go:norace function, and the controller's state is touched
// by whichever goroutine holds the baton.
//
//go:norace
func (c *Controller) releaseSpinners() {
	c.spinRound++
	for _, obj := range c.spinObjs {
		c.dirty = append(c.dirty, obj)
		c.spinners[obj] = nil
	}
	c.spinObjs = c.spinObjs[:0]
}

// spinWaits reports whether g waits as a spinner for its object to change.
//
//go:norace
func (g *G) spinWaits() bool {
	w, ok := g.wait.(*spinWaiter)
	return ok && !w.Ready()
}

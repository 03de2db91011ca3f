package sched

import (
	"time"

	"github.com/weftdev/weft/internal/race"
)

// Under the race detector, the strategy runs on a goroutine of its own, the
// execution's adviser. A strategy's state is written by whichever goroutine
// reaches a scheduling point, and once the controller hides its handoffs
// (see race.go) the race detector sees those goroutines as concurrent: on
// one goroutine, a strategy's accesses are ordered, whatever the strategy
// does (maps, math/rand's generators). The controller asks its questions
// (Spawned, Next, Ran, Choose, Horizon) over channels it hides too, so the adviser
// neither learns nor passes on anything the goroutines of the execution
// did. Without -race the controller calls the strategy directly.

// An adviser is the goroutine a strategy runs on.
type adviser struct {
	ask, answer chan struct{}
	exited      chan struct{}
	q           question // written by the asker, answered by the adviser
}

type questionKind uint8

const (
	askSpawned questionKind = iota
	askNext
	askRan
	askChoose
	askHorizon
	askStop // the execution is over
)

// A question is one call of the strategy, and its answer.
type question struct {
	kind    questionKind
	g       *G
	d       *Decision
	n       int
	next    *G            // askNext's answer
	value   int           // askChoose's answer
	horizon time.Duration // askHorizon's answer
}

func (c *Controller) spawned(g *G) {
	if race.Enabled {
		c.ask(question{kind: askSpawned, g: g})
		return
	}
	c.strat.Spawned(g)
}

func (c *Controller) next(d *Decision) *G {
	if race.Enabled {
		return c.ask(question{kind: askNext, d: d}).next
	}
	return c.strat.Next(d)
}

func (c *Controller) ran(g *G) {
	if c.obs == nil {
		return
	}
	if race.Enabled {
		c.ask(question{kind: askRan, g: g})
		return
	}
	c.obs.Ran(g)
}

func (c *Controller) choose(g *G, n int) int {
	if race.Enabled {
		return c.ask(question{kind: askChoose, g: g, n: n}).value
	}
	return c.strat.Choose(g, n)
}

// horizon returns how far ahead of the work the strategy lets the clock
// run (Horizon), or -1 if it does not say.
//
//go:norace
func (c *Controller) horizon() time.Duration {
	if c.hz == nil {
		return -1
	}
	if race.Enabled {
		return c.ask(question{kind: askHorizon}).horizon
	}
	return c.hz.Horizon()
}

// startAdviser starts the execution's adviser, on the goroutine that runs
// the execution.
func (c *Controller) startAdviser() {
	a := &adviser{ask: make(chan struct{}), answer: make(chan struct{}), exited: make(chan struct{})}
	c.adv = a
	helpers.Add(1)
	go a.run(c.strat, c.obs, c.hz)
}

// stopAdviser ends the adviser once the execution is over, on the
// goroutine that runs it: what the strategy did happens before what that
// goroutine does next (say, read a replay's drift).
func (c *Controller) stopAdviser() {
	c.ask(question{kind: askStop})
	<-c.adv.exited
}

// ask asks the adviser q and returns q with its answer.
//
//go:norace
func (c *Controller) ask(q question) question {
	a := c.adv
	race.Disable()
	a.q = q
	a.ask <- struct{}{}
	<-a.answer
	q = a.q
	race.Enable()
	return q
}

// run answers the questions until the execution is over.
//
//go:norace
func (a *adviser) run(s Strategy, obs Observer, hz Horizon) {
	defer helpers.Add(-1) // last
	defer close(a.exited)
	for {
		race.Disable()
		<-a.ask
		race.Enable()
		stop := a.q.kind == askStop
		if !stop {
			a.answerQuestion(s, obs, hz)
		}
		race.Disable()
		a.answer <- struct{}{}
		race.Enable()
		if stop {
			return
		}
	}
}

// answerQuestion calls the strategy.
//
//go:norace
func (a *adviser) answerQuestion(s Strategy, obs Observer, hz Horizon) {
	q := &a.q
	switch q.kind {
	case askSpawned:
		s.Spawned(q.g)
	case askNext:
		q.next = s.Next(q.d)
	case askRan:
		obs.Ran(q.g)
	case askChoose:
		q.value = s.Choose(q.g, q.n)
	case askHorizon:
		q.horizon = hz.Horizon()
	}
}

package explore

import (
	"fmt"
	"strings"

	"github.com/weftdev/weft/sched"
)

// A Deviation is one departure from the default policy: when goroutine G
// (numbered in creation order, the root 0) is at its N-th event (its
// counter, from 1), the strategy takes alternative Alt instead of the
// default, modulo the alternatives there are. At a scheduling decision the
// alternatives are the enabled goroutines other than the default one, in
// creation order, then the clock if a timer is pending; at a data choice of
// n values they are 1 to n-1 (the default is 0).
//
// A list of deviations is a schedule drawn as data, for property mode: a
// test's inputs and its deviations come from one stream of random draws, so
// that one shrinker removes deviations (fewer preemptions) and inputs
// together. Removing a deviation makes that event follow the default
// policy, which keeps the running goroutine running; naming events by
// goroutine and counter, as saved schedules do, keeps a deviation where it
// was when the shrinker removes operations of other goroutines.
type Deviation struct {
	G, N int
	Alt  int
}

// Deviations is a list of deviations, printed in a form a reader can follow
// (rapid logs its draws with %#v).
type Deviations []Deviation

// GoString describes the deviations.
func (ds Deviations) GoString() string {
	if len(ds) == 0 {
		return "none: the default policy"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("goroutine #%d event %d: alternative %d", d.G, d.N, d.Alt)
	}
	return strings.Join(parts, ", ")
}

// Deviate returns the strategy that follows the default policy except at the
// events ds names (where two deviations name one event, the first applies;
// after the clock fires at an event, the decisions made again there follow
// the default). It runs a starving goroutine first
// (sched.Decision.Starving), as every exploring strategy does.
func Deviate(ds Deviations) sched.Strategy {
	at := make(map[point]int, len(ds))
	for _, d := range ds {
		p := point{d.G, d.N}
		if _, dup := at[p]; !dup {
			at[p] = max(d.Alt, 0)
		}
	}
	return &deviate{at: at, index: map[*sched.G]int{}}
}

type point struct{ g, n int }

type deviate struct {
	at    map[point]int
	index map[*sched.G]int // creation order
}

func (s *deviate) Spawned(g *sched.G) { s.index[g] = len(s.index) }

func (s *deviate) Next(d *sched.Decision) *sched.G {
	if g := d.Starving(); g != nil {
		return g
	}
	alt, ok := s.at[point{s.index[d.Current], d.Current.Events()}]
	if !ok || d.Sub > 0 {
		return d.Default
	}
	n := d.Len()
	others := n
	if d.Default != sched.Clock {
		others-- // the default is one of the candidates
	}
	if d.Timer && d.Default != sched.Clock {
		others++
	}
	if others == 0 {
		return d.Default
	}
	k := alt % others
	for i := range n {
		g := d.At(i)
		if g == d.Default {
			continue
		}
		if k == 0 {
			return g
		}
		k--
	}
	return sched.Clock
}

func (s *deviate) Choose(g *sched.G, n int) int {
	alt, ok := s.at[point{s.index[g], g.Events()}]
	if !ok {
		return 0
	}
	return 1 + alt%(n-1)
}

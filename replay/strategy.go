package replay

import (
	"fmt"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// maxProblems bounds the departures a replay reports one by one.
const maxProblems = 20

// strategy is the sched.Strategy of a replay: at each scheduling point it
// runs an enabled goroutine whose pending operation the oracle allows,
// preferring the default (fewest switches), and it draws the recorded
// values of random choices and selects.
type strategy struct {
	log      *record.Log
	oracle   record.Oracle
	byID     map[string]int    // lineage → index in the log
	gs       []*replayed       // by the controller's goroutine index
	objLoc   map[uint32]uint32 // the controller's objects → the log's locations
	problems []string
	stuck    int
}

// replayed is the replay's view of one goroutine.
type replayed struct {
	thread  int               // index in the log, -1 if the log has no such goroutine
	touches map[uint64]uint32 // operation counter → location it touched
	choices map[uint64][]int  // operation counter → the values it chose, in order
	none    map[uint64]bool   // operations that touched no location after all
	done    uint64            // operations performed so far
}

func newStrategy(log *record.Log, o record.Oracle) *strategy {
	s := &strategy{log: log, oracle: o, byID: map[string]int{}, objLoc: map[uint32]uint32{}}
	for i, t := range log.Threads {
		s.byID[t.ID] = i
	}
	return s
}

func (s *strategy) problem(format string, args ...any) {
	if len(s.problems) < maxProblems {
		s.problems = append(s.problems, fmt.Sprintf(format, args...))
	} else if len(s.problems) == maxProblems {
		s.problems = append(s.problems, "…")
	}
}

// Spawned implements sched.Strategy.
func (s *strategy) Spawned(g *sched.G) {
	r := &replayed{thread: -1}
	if i, ok := s.byID[g.ID()]; ok {
		r.thread = i
		r.touches = map[uint64]uint32{}
		r.choices = map[uint64][]int{}
		r.none = map[uint64]bool{}
		var touches record.TouchDecoder
		for _, e := range s.log.Threads[i].Entries {
			switch e.Tag {
			case record.TagTouch:
				r.touches[e.N] = touches.Next(e)
			case record.TagNoAccess:
				r.none[e.N] = true
			case record.TagChoice:
				if len(e.Args) > 0 {
					r.choices[e.N] = append(r.choices[e.N], int(e.Args[0]))
				}
			}
		}
	} else {
		s.problem("goroutine %s is not in the recording", g.ID())
	}
	for len(s.gs) <= g.Index() {
		s.gs = append(s.gs, nil)
	}
	s.gs[g.Index()] = r
}

// pending returns g's pending operation in the log's terms, and whether it
// is one the oracle rules on: a new operation of a recorded goroutine that
// touches a location.
func (s *strategy) pending(g *sched.G) (record.Access, bool) {
	r := s.gs[g.Index()]
	op := g.Op()
	if r.thread < 0 || op == nil || g.Done() {
		return record.Access{}, false
	}
	a := record.Access{Thread: r.thread, N: uint64(g.Ops()), Kind: op.Access(), Op: op.String()}
	if a.Kind == sched.NoAccess || a.N <= r.done || r.none[a.N] {
		return a, false // no shared access, or the continuation of one performed
	}
	if loc, ok := r.touches[a.N]; ok {
		a.Loc = loc
		if obj := g.Obj(); obj != 0 {
			s.objLoc[obj] = loc
		}
	} else if obj := g.Obj(); obj != 0 {
		a.Loc = s.objLoc[obj]
	}
	return a, true
}

func (s *strategy) allowed(g *sched.G) bool {
	a, ruled := s.pending(g)
	return !ruled || s.oracle.Allow(a)
}

// Next implements sched.Strategy.
func (s *strategy) Next(d *sched.Decision) *sched.G {
	if s.allowed(d.Default) {
		return d.Default
	}
	for _, g := range d.Enabled() {
		if g != d.Default && s.allowed(g) {
			return g
		}
	}
	// No enabled goroutine may go: the log's order cannot be followed
	// from here (a goroutine the oracle waits for is blocked). Go on with
	// the default, and say so.
	s.stuck++
	if a, ok := s.pending(d.Default); ok {
		s.problem("step %d: the log allows none of the %d enabled goroutines; ran %s", d.Step, len(d.Enabled()), a)
	}
	return d.Default
}

// Ran implements sched.Observer: g performs its pending operation.
func (s *strategy) Ran(g *sched.G) {
	a, ruled := s.pending(g)
	if !ruled {
		return
	}
	r := s.gs[g.Index()]
	r.done = a.N
	s.oracle.Performed(a)
}

// Choose implements sched.Strategy: the recorded choice of g's current
// operation.
func (s *strategy) Choose(g *sched.G, n int) int {
	r := s.gs[g.Index()]
	n64 := uint64(g.Ops())
	if r.thread >= 0 {
		if vs := r.choices[n64]; len(vs) > 0 {
			v := vs[0]
			r.choices[n64] = vs[1:]
			if cases := g.Cases(); cases != nil {
				for i, c := range cases {
					if c == v {
						return i
					}
				}
				s.problem("goroutine %s: the select of operation %d chose case %d in the recording, which is not ready", g.ID(), n64, v)
				return 0
			}
			if v < n {
				return v
			}
			s.problem("goroutine %s: operation %d chose %d in the recording, out of [0, %d) now", g.ID(), n64, v, n)
			return 0
		}
	}
	s.problem("goroutine %s: operation %d makes a choice the recording does not have", g.ID(), n64)
	return 0
}

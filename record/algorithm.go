package record

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/weftdev/weft/sched"
)

// An Algorithm is a recording algorithm: how to record a run, and how to
// replay its log. Its package registers it once (Register), from init.
type Algorithm struct {
	// Name names the algorithm in logs and for New ("light").
	Name string
	// New returns a fresh recorder for one run.
	New func() Recorder
	// Plan reads a complete log the recorder wrote and returns the Oracle
	// that makes a replay follow it (package replay).
	Plan Planner
}

// A Planner builds the Oracle of a log.
type Planner func(log *Log) (Oracle, error)

// An Oracle enforces one log's constraints during a replay.
type Oracle interface {
	// Allow reports whether a may be performed now.
	Allow(a Access) bool
	// Performed tells the oracle that a was performed.
	Performed(a Access)
}

// An Access is a pending operation of a replayed goroutine, in the log's
// terms.
type Access struct {
	// Thread is the goroutine's index in the log (Log.Threads).
	Thread int
	// N is the operation's counter: the goroutine's N-th operation.
	N uint64
	// Loc is the log's location the operation touches, or 0 if it touches
	// none or is not known yet.
	Loc uint32
	// Kind is how the operation touches Loc.
	Kind sched.Access
	// Op names the operation ("Var.Load"), for messages.
	Op string
}

// String describes the access for messages.
func (a Access) String() string {
	return fmt.Sprintf("%s #%d of goroutine %d (location %d)", a.Op, a.N, a.Thread, a.Loc)
}

var (
	algorithmsMu sync.RWMutex
	algorithms   = map[string]Algorithm{}
)

// Register makes an algorithm available to New and to replays. It panics
// if the algorithm is incomplete or its name is taken: a registration is a
// program's constant, made from init.
func Register(a Algorithm) {
	if a.Name == "" || a.New == nil || a.Plan == nil {
		panic(fmt.Sprintf("record: Register: algorithm %q lacks a name, a recorder or a planner", a.Name))
	}
	algorithmsMu.Lock()
	defer algorithmsMu.Unlock()
	if _, dup := algorithms[a.Name]; dup {
		panic(fmt.Sprintf("record: Register: algorithm %q registered twice", a.Name))
	}
	algorithms[a.Name] = a
}

// Lookup returns the registered algorithm of that name.
func Lookup(name string) (Algorithm, bool) {
	algorithmsMu.RLock()
	defer algorithmsMu.RUnlock()
	a, ok := algorithms[name]
	return a, ok
}

// Algorithms returns the names of the registered algorithms, sorted.
func Algorithms() []string {
	algorithmsMu.RLock()
	defer algorithmsMu.RUnlock()
	names := make([]string, 0, len(algorithms))
	for n := range algorithms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns a fresh recorder of the named algorithm ("light", "stride",
// "aggreplay", "leap": import record/all to register them all) for one run.
func New(algorithm string) (Recorder, error) {
	a, ok := Lookup(algorithm)
	if !ok {
		names := Algorithms()
		if len(names) == 0 {
			return nil, fmt.Errorf("record: unknown algorithm %q: none is registered (import record/all, or the algorithm's package)", algorithm)
		}
		return nil, fmt.Errorf("record: unknown algorithm %q (want one of %s)", algorithm, strings.Join(names, ", "))
	}
	return a.New(), nil
}

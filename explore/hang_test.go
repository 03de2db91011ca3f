package explore_test

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Hangs: an exploration ends within its budget and the hang time, whatever
// its worker processes do, and a hung worker is reported with its stacks,
// never blamed on an execution.

// runWithin runs an exploration, and fails the test if it still runs a
// minute past its budget: a hang.
func runWithin(t *testing.T, body func(), cfg explore.Config) explore.Summary {
	t.Helper()
	done := make(chan explore.Summary, 1)
	go func() {
		s, err := explore.Run(body, cfg)
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	select {
	case s := <-done:
		return s
	case <-time.After(cfg.Duration + time.Minute):
		t.Fatalf("the exploration still runs a minute past its budget (%v)", cfg.Duration)
		return explore.Summary{}
	}
}

// stuck makes one execution in 50 wait for an hour outside weft's
// control, which a longer block timeout lets it do.
func stuck() {
	if sim.Intn(50) == 0 {
		time.Sleep(time.Hour)
	}
}

// stalling is a worker that starts the chunk holding execution at only
// once the chunk's deadline has passed, the first time it is handed out
// (every time without once): the worker runs none of it, as one whose
// chunk the budget cut short.
type stalling struct {
	explore.Worker
	at   int
	once *sync.Once
}

func (w stalling) Run(c explore.Chunk) (explore.ChunkResult, error) {
	if c.Start <= w.at && w.at < c.Start+c.Count && !c.Deadline.IsZero() {
		stall := func() { time.Sleep(time.Until(c.Deadline) + 10*time.Millisecond) }
		if w.once == nil {
			stall()
		} else {
			w.once.Do(stall)
		}
	}
	return w.Worker.Run(c)
}

// The executions below a failure found before the deadline run past it, so
// that the failure is committed: the outcome is the one of one sequential
// exploration. They once ran none of it, handed out again and again with
// the deadline passed, and the exploration never ended.
func TestFailureFoundBeforeTheDeadlineIsCommittedAfterIt(t *testing.T) {
	t.Parallel()
	one, err := explore.Run(ordered, explore.Config{Seed: 2, Iterations: 5000})
	if err != nil || one.Finding == nil || one.Finding.Iteration < 20 {
		t.Fatalf("1 worker: %+v, %v", one.Finding, err)
	}
	// The worker processes must reach the failure before the deadline:
	// a loaded machine gets a longer budget.
	for budget := time.Second; ; budget *= 2 {
		var once sync.Once
		start := spawn("ordered", time.Minute)
		cfg := explore.Config{Seed: 2, Duration: budget, Workers: 2, Spawn: func(oneProc bool) (explore.Worker, error) {
			w, err := start(oneProc)
			return stalling{Worker: w, at: 8, once: &once}, err
		}}
		two := runWithin(t, ordered, cfg)
		if two.Finding == nil && budget < 8*time.Second {
			t.Logf("no failure in %v (%d executions): again with more time", budget, two.Executions)
			continue
		}
		if f := two.Finding; f == nil || f.Iteration != one.Finding.Iteration || f.Result.Hash != one.Finding.Result.Hash || two.Executions != one.Executions {
			t.Fatalf("2 worker processes: %+v in %d executions, lost %q; 1 worker: %+v in %d", f, two.Executions, two.Lost, one.Finding, one.Executions)
		}
		return
	}
}

func TestWorkerThatLosesItsChunkIsGivenUp(t *testing.T) {
	t.Parallel()
	cfg := explore.Config{Seed: 2, Iterations: 100, Workers: 2, Spawn: spawn("deaf-twice", 4*time.Second, "WEFT_EXPLORE_MARKS="+t.TempDir())}
	s := runWithin(t, ordered, cfg)
	if s.Finding != nil || s.Executions != 100 || len(s.Lost) == 0 {
		t.Fatalf("found %+v in %d executions, lost %q", s.Finding, s.Executions, s.Lost)
	}
	for _, l := range s.Lost {
		if !strings.Contains(l, "hung running executions 0 to 7 (its heartbeats name no request, not 1,") || !strings.Contains(l, "TestWorkerProcess") {
			t.Fatalf("lost %q", l)
		}
	}
}

func TestWorkerStuckPastTheDeadlineIsGivenUp(t *testing.T) {
	t.Parallel()
	seed, _ := lateFailure(t)
	// The worker processes must reach an execution that sticks before the
	// deadline: a loaded machine gets a longer budget.
	for budget := time.Second; ; budget *= 2 {
		cfg := explore.Config{Seed: seed, Duration: budget, Workers: 2, Spawn: spawn("stuck", 4*time.Second),
			Options: sched.Options{BlockTimeout: time.Hour}}
		s := runWithin(t, stuck, cfg)
		if len(s.Lost) == 0 && budget < 8*time.Second {
			t.Logf("no execution stuck in %v (%d executions): again with more time", budget, s.Executions)
			continue
		}
		if s.Finding != nil || len(s.Lost) == 0 {
			t.Fatalf("found %+v in %d executions, lost %q", s.Finding, s.Executions, s.Lost)
		}
		if l := s.Lost[0]; !strings.Contains(l, "(no result 4s past the chunk's deadline)") || !strings.Contains(l, "time.Sleep") {
			t.Fatalf("lost %q", l)
		}
		return
	}
}

// quitting is a worker process that someone sends SIGQUIT, as one does to
// a process that seems hung, when it is handed execution 8 alone, the
// first time.
type quitting struct {
	explore.Worker
	proc *os.Process
	once *sync.Once
}

func (w quitting) Run(c explore.Chunk) (explore.ChunkResult, error) {
	if c.Start == 8 && c.Count == 1 {
		w.once.Do(func() {
			w.proc.Signal(syscall.SIGQUIT)
			for w.proc.Signal(syscall.Signal(0)) == nil {
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	return w.Worker.Run(c)
}

// A worker sent SIGQUIT from outside is hung, not killed by its execution:
// it was once reported as a crash of the execution it ran.
func TestWorkerSentSIGQUITIsNotACrash(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGQUIT")
	}
	t.Parallel()
	var once sync.Once
	cfg := explore.Config{Seed: 2, Iterations: 100, Workers: 2, Spawn: func(oneProc bool) (explore.Worker, error) {
		cmd := workerCommand("ordered", oneProc)
		w, err := explore.StartProcess(cmd, time.Minute)
		if err != nil {
			return nil, err
		}
		return quitting{Worker: w, proc: cmd.Process, once: &once}, nil
	}}
	s := runWithin(t, ordered, cfg)
	if s.Finding != nil || s.Executions != 100 || len(s.Lost) != 1 {
		t.Fatalf("found %+v in %d executions, lost %q", s.Finding, s.Executions, s.Lost)
	}
	if l := s.Lost[0]; !strings.Contains(l, "hung running execution 8 (it was sent SIGQUIT: exit status 2)") || !strings.Contains(l, "goroutine ") {
		t.Fatalf("lost %q", l)
	}
}

// A failure whose lower executions cannot run before the overtime ends is
// judged without them, not dropped.
func TestFailureIsJudgedWhenTheOvertimeEnds(t *testing.T) {
	t.Parallel()
	one, err := explore.Run(ordered, explore.Config{Seed: 2, Iterations: 5000})
	if err != nil || one.Finding == nil || one.Finding.Iteration < 20 {
		t.Fatalf("1 worker: %+v, %v", one.Finding, err)
	}
	for budget := time.Second; ; budget *= 2 {
		start := spawn("ordered", time.Minute)
		cfg := explore.Config{Seed: 2, Duration: budget, Workers: 2, Spawn: func(oneProc bool) (explore.Worker, error) {
			w, err := start(oneProc)
			return stalling{Worker: w, at: 8}, err
		}}
		two := runWithin(t, ordered, cfg)
		if two.Finding == nil && budget < 8*time.Second {
			t.Logf("no failure in %v (%d executions): again with more time", budget, two.Executions)
			continue
		}
		if f := two.Finding; f == nil || f.Iteration != one.Finding.Iteration || two.Executions != 8 ||
			len(two.Notes) != 1 || !strings.Contains(two.Notes[0], "its failure is judged without them") {
			t.Fatalf("2 worker processes: %+v in %d executions, notes %q; 1 worker: %+v", f, two.Executions, two.Notes, one.Finding)
		}
		return
	}
}

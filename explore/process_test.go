package explore_test

import (
	"encoding/gob"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sim"
)

// The test binary is its own worker process: run by the tests below with
// WEFT_EXPLORE_WORKER set, TestWorkerProcess serves the body it names.
func TestWorkerProcess(t *testing.T) {
	in, out := explore.WorkerPipes()
	switch os.Getenv("WEFT_EXPLORE_WORKER") {
	case "":
		t.Skip("a worker process of the tests below")
	case "ordered":
		if err := explore.Serve(in, out, ordered); err != nil {
			t.Fatal(err)
		}
	case "crash":
		if err := explore.Serve(in, out, crashes(true)); err != nil {
			t.Fatal(err)
		}
	case "silent":
		// Ready, and then nothing: no heartbeat, no result.
		gob.NewEncoder(out).Encode(struct{ Hello bool }{true})
		time.Sleep(time.Hour)
	}
}

// crashes fails one execution in 50, by a panic in a controlled goroutine,
// or in a plain goroutine that kills the process if kill is set.
func crashes(kill bool) func() {
	return func() {
		if sim.Intn(50) != 0 {
			return
		}
		if !kill {
			panic("boom")
		}
		go panic("boom")
		time.Sleep(time.Hour)
	}
}

func spawn(body string, hang time.Duration) func(bool) (explore.Worker, error) {
	return func(oneProc bool) (explore.Worker, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$")
		cmd.Env = append(os.Environ(), "WEFT_EXPLORE_WORKER="+body)
		if oneProc {
			cmd.Env = append(cmd.Env, "GOMAXPROCS=1")
		}
		return explore.StartProcess(cmd, hang)
	}
}

func TestWorkerProcessesGiveTheSameOutcome(t *testing.T) {
	t.Parallel()
	cfg := explore.Config{Seed: 1, Iterations: 5000}
	one, err := explore.Run(ordered, cfg)
	if err != nil || one.Finding == nil {
		t.Fatalf("1 worker: %+v, %v", one, err)
	}
	cfg.Workers, cfg.Spawn = 2, spawn("ordered", time.Minute)
	two, err := explore.Run(ordered, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if two.Finding == nil || two.Finding.Iteration != one.Finding.Iteration || two.Finding.Result.Hash != one.Finding.Result.Hash ||
		two.Finding.Result.Failure.Message != one.Finding.Result.Failure.Message || two.Executions != one.Executions || len(two.Lost) != 0 {
		t.Fatalf("2 worker processes: %+v in %d executions, lost %q; 1 worker: %+v in %d", two.Finding, two.Executions, two.Lost, one.Finding, one.Executions)
	}
}

func TestExecutionThatKillsItsWorkerIsFound(t *testing.T) {
	t.Parallel()
	// The calling process runs the first executions itself: a seed whose
	// first failure comes later.
	var want *explore.Finding
	cfg := explore.Config{Iterations: 1000}
	for cfg.Seed = 1; want == nil || want.Iteration < 20; cfg.Seed++ {
		s, err := explore.Run(crashes(false), cfg)
		if err != nil || s.Finding == nil {
			t.Fatalf("seed %d: %+v, %v", cfg.Seed, s.Finding, err)
		}
		want = s.Finding
	}
	cfg.Seed--
	cfg.Workers, cfg.Spawn = 2, spawn("crash", time.Minute)
	got, err := explore.Run(crashes(false), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := got.Finding
	if f == nil || f.Iteration != want.Iteration || f.Seed != want.Seed || f.Result != nil || f.Crash == nil ||
		!strings.HasPrefix(f.Crash.Output, "panic: boom") || !strings.Contains(f.Crash.Output, "goroutine ") {
		t.Fatalf("found %+v; want a crash of execution %d", f, want.Iteration)
	}
}

func TestHungWorkerIsReportedWithItsStacks(t *testing.T) {
	t.Parallel()
	var failed bool
	s, err := explore.Run(transfer(&failed), explore.Config{Seed: 1, Iterations: 50, Workers: 2, Spawn: spawn("silent", time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Finding != nil || s.Executions != 50 || len(s.Lost) == 0 {
		t.Fatalf("found %+v in %d executions, lost %q", s.Finding, s.Executions, s.Lost)
	}
	if !strings.Contains(s.Lost[0], "hung running executions 0 to 7") || !strings.Contains(s.Lost[0], "TestWorkerProcess") {
		t.Fatalf("lost %q", s.Lost[0])
	}
}

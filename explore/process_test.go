package explore_test

import (
	"encoding/gob"
	"os"
	"os/exec"
	"path/filepath"
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
	serve := func(body func()) {
		if err := explore.Serve(in, out, body); err != nil {
			t.Fatal(err)
		}
	}
	switch os.Getenv("WEFT_EXPLORE_WORKER") {
	case "":
		t.Skip("a worker process of the tests below")
	case "ordered":
		serve(ordered)
	case "crash":
		serve(crashes(true))
	case "stuck":
		serve(stuck)
	case "elsewhere":
		serve(elsewhere)
	case "silent":
		// Ready, and then nothing: no heartbeat, no result.
		gob.NewEncoder(out).Encode(struct{ Hello bool }{true})
		time.Sleep(time.Hour)
	case "deaf-twice":
		// The first two processes (those that create a mark) are ready,
		// and then never read a request: their heartbeats name none. The
		// next ones serve ordered.
		dir := os.Getenv("WEFT_EXPLORE_MARKS")
		mark, err := os.OpenFile(filepath.Join(dir, "1"), os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			mark, err = os.OpenFile(filepath.Join(dir, "2"), os.O_CREATE|os.O_EXCL, 0o600)
		}
		if err != nil {
			serve(ordered)
			return
		}
		mark.Close()
		enc := gob.NewEncoder(out)
		enc.Encode(struct{ Hello bool }{true})
		for {
			time.Sleep(time.Second)
			enc.Encode(struct{ Heartbeat bool }{true})
		}
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

// spawn starts worker processes that serve body, with env added to their
// environment.
// elsewhere runs differently in a worker process, and fails there one
// execution in 50, as a test that reads its process's environment can.
func elsewhere() {
	if os.Getenv("WEFT_EXPLORE_WORKER") == "" {
		return
	}
	sim.Yield()
	if sim.Intn(50) == 0 {
		panic("only in a worker process")
	}
}

func spawn(body string, hang time.Duration, env ...string) func(bool) (explore.Worker, error) {
	return func(oneProc bool) (explore.Worker, error) {
		return explore.StartProcess(workerCommand(body, oneProc, env...), hang)
	}
}

func workerCommand(body string, oneProc bool, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$")
	cmd.Env = append(append(os.Environ(), "WEFT_EXPLORE_WORKER="+body), env...)
	if oneProc {
		cmd.Env = append(cmd.Env, "GOMAXPROCS=1")
	}
	return cmd
}

// lateFailure returns a seed whose first execution that crashes (see
// crashes) comes after the ones the calling process runs, and it.
func lateFailure(t *testing.T) (uint64, *explore.Finding) {
	t.Helper()
	cfg := explore.Config{Iterations: 1000}
	for cfg.Seed = 1; ; cfg.Seed++ {
		s, err := explore.Run(crashes(false), cfg)
		if err != nil || s.Finding == nil {
			t.Fatalf("seed %d: %+v, %v", cfg.Seed, s.Finding, err)
		}
		if s.Finding.Iteration >= 20 {
			return cfg.Seed, s.Finding
		}
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
	seed, want := lateFailure(t)
	cfg := explore.Config{Seed: seed, Iterations: 1000, Workers: 2, Spawn: spawn("crash", time.Minute)}
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

// Failures found by worker processes that run the executions differently
// would not replay in the test process: the exploration goes on there.
func TestWorkerProcessThatRunsDifferentlyIsLeft(t *testing.T) {
	t.Parallel()
	s, err := explore.Run(elsewhere, explore.Config{Seed: 1, Iterations: 500, Workers: 2, Spawn: spawn("elsewhere", time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Finding != nil || s.Executions != 500 || len(s.Lost) != 0 || len(s.Notes) != 2 ||
		!strings.Contains(s.Notes[0], "with GOMAXPROCS=1") || !strings.Contains(s.Notes[1], "it runs in the test's process alone") {
		t.Fatalf("found %+v in %d executions, lost %q, notes %q", s.Finding, s.Executions, s.Lost, s.Notes)
	}
}

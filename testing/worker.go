package weft

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
)

// Worker processes: with -explore and more than one worker, the test
// process starts the test binary again, once per worker, with -test.run
// selecting exactly the test and -explore.worker telling which of its Check
// calls to serve. There Check runs the executions the test process hands
// out (explore.Serve), one at a time, then skips the rest of the test: its
// cleanups run as usual.

var flagWorker = flag.String("explore.worker", "", "weft: internal, set by weft on its worker processes: the exploration this process serves")

// workerSetup is what a worker process is told on its command line.
type workerSetup struct {
	Test      string // the name of the test that calls Check
	Index     int    // which of its Check calls, from 0
	Container string // the go test name the execution's subtests show under
	Run, Skip string // the test process's -run and -skip, which select subtests
	Parallel  int    // the test process's -parallel (see parallelLimit)
}

// checks counts the Check calls of each running test, so that a worker
// process serves the same one as its test process explores.
var checks struct {
	mu sync.Mutex
	n  map[*testing.T]int
}

// checkIndex returns which Check call of t this is, from 0.
func checkIndex(t *testing.T) int {
	checks.mu.Lock()
	defer checks.mu.Unlock()
	if checks.n == nil {
		checks.n = map[*testing.T]int{}
	}
	i, seen := checks.n[t]
	if !seen {
		t.Cleanup(func() {
			checks.mu.Lock()
			delete(checks.n, t)
			checks.mu.Unlock()
		})
	}
	checks.n[t] = i + 1
	return i
}

// inWorker reports whether this process is a worker process, and serves
// the exploration if this Check call is the one it was started for.
func inWorker(t *testing.T, body func(*T), cfg *config, index int) bool {
	if *flagWorker == "" {
		return false
	}
	var w workerSetup
	if err := json.Unmarshal([]byte(*flagWorker), &w); err != nil {
		t.Fatalf("weft: -explore.worker: %v", err)
	}
	if w.Test != t.Name() || w.Index != index {
		return true
	}
	c := *cfg
	c.sel = selection{container: w.Container, run: w.Run, skip: w.Skip, parallel: w.Parallel}
	ignoreSignals() // the coordinator ends its workers (signal.go)
	in, out := explore.WorkerPipes()
	if err := explore.Serve(in, out, wrap(body, &c, nil)); err != nil {
		t.Fatal(err)
	}
	t.SkipNow()
	return true
}

// spawner returns how to start a worker process for the exploration of
// Check call index of test t, or nil where worker processes cannot run.
func spawner(t *testing.T, index int, cfg *config) func(bool) (explore.Worker, error) {
	if !cfg.explore || cfg.exploreWorkers() < 2 || runtime.GOOS == "windows" { // Windows: no inherited pipes
		return nil
	}
	setup, err := json.Marshal(workerSetup{Test: t.Name(), Index: index, Container: cfg.sel.container,
		Run: cfg.sel.run, Skip: cfg.sel.skip, Parallel: cfg.sel.parallel})
	if err != nil {
		panic(err) // strings and an int
	}
	exe, exeErr := os.Executable()
	args := childArgs(t.Name(), "-explore.worker="+string(setup))
	// A worker answers at least every second; one that does not for longer
	// than the watchdog of its executions allows is hung.
	hang := cfg.blockTimeout + sched.HangSlack + 10*time.Second
	return func(oneProc bool) (explore.Worker, error) {
		if exeErr != nil {
			return nil, fmt.Errorf("weft: starting a worker process: %w", exeErr)
		}
		cmd := exec.Command(exe, args...)
		procs := runtime.GOMAXPROCS(0)
		if oneProc {
			procs = 1
		}
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
		return explore.StartProcess(cmd, hang)
	}
}

// workerFlags are the test binary's flags a worker process (or a fresh
// process that confirms a failure) does not inherit: those that select
// other tests, repeat them, bound them in time, print them, or write files
// the test process writes.
var workerFlags = map[string]bool{
	"test.run": true, "test.skip": true, "test.count": true, "test.timeout": true, "test.v": true,
	"test.failfast": true, "test.shuffle": true, "test.bench": true, "test.list": true, "test.cpu": true,
	"test.cpuprofile": true, "test.memprofile": true, "test.blockprofile": true, "test.mutexprofile": true,
	"test.trace": true, "test.coverprofile": true, "test.testlogfile": true, "explore.worker": true,
	"test.parallel": true, // given again, as the test process sees it: its default is GOMAXPROCS
}

// childArgs is the command line of a process of the test binary that runs
// test alone (a worker process, a fresh process that confirms a failure):
// the test process's own, but for workerFlags, then extra.
func childArgs(test string, extra ...string) []string {
	var kept []string
	given := os.Args[1:]
	flags := given[:len(given)-len(flag.Args())]
	for i := 0; i < len(flags); i++ {
		arg := flags[i]
		if arg == "--" {
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		f := flag.Lookup(name)
		takesNext := !hasValue && f != nil && !isBool(f)
		drop := workerFlags[name] || strings.HasPrefix(name, "test.fuzz")
		if !drop {
			kept = append(kept, arg)
			if takesNext && i+1 < len(flags) {
				kept = append(kept, flags[i+1])
			}
		}
		if takesNext {
			i++
		}
	}
	var run []string
	for _, elem := range strings.Split(test, "/") {
		run = append(run, "^"+regexp.QuoteMeta(elem)+"$")
	}
	kept = append(kept, "-test.run="+strings.Join(run, "/"), "-test.count=1", "-test.timeout=0",
		"-test.parallel="+strconv.Itoa(parallelLimit()))
	if !flagsSet()["explore.timelimit"] {
		// The executions keep the test process's time limit.
		kept = append(kept, "-explore.timelimit="+timeLimit().String())
	}
	kept = append(kept, extra...)
	if rest := flag.Args(); len(rest) > 0 {
		kept = append(append(kept, "--"), rest...)
	}
	return kept
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

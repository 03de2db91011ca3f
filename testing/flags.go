package weft

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// The command-line flags, registered with the test binary's flags so that
// go test -run X -explore works. Read them only after flag.Parse, through
// flagConfig.
var (
	flagExplore      = flag.Bool("explore", false, "weft: explore interleavings until a failure or the budget (-explore.iters, -explore.time) ends")
	flagIters        = flag.Int("explore.iters", 0, "weft: with -explore, executions at most (0: no limit but -explore.time)")
	flagTime         = flag.Duration("explore.time", time.Minute, "weft: with -explore, time at most per test")
	flagStrategy     = flag.String("explore.strategy", explore.DefaultStrategy, "weft: exploration strategy: "+strings.Join(explore.Strategies, " or "))
	flagSeed         = flag.Uint64("explore.seed", 0, "weft: base seed (default: derived from the test name; with -explore, from the clock)")
	flagDepth        = flag.Int("explore.depth", explore.DefaultDepth, "weft: PCT bug depth: the ordering constraints a bug needs, plus one")
	flagWorkers      = flag.Int("explore.workers", 0, "weft: with -explore, worker processes that run executions in parallel, one at a time each (default GOMAXPROCS; 1: the test process alone)")
	flagBlockTimeout = flag.Duration("explore.blocktimeout", sched.DefaultBlockTimeout, "weft: how long a controlled goroutine may block outside weft's control before the execution fails")
	flagMaxSteps     = flag.Int("explore.maxsteps", sched.DefaultMaxSteps, "weft: events per execution before it fails as a runaway")
	flagTimeLimit    = flag.Duration("explore.timelimit", 0, "weft: the virtual time an execution may reach when all its goroutines wait for a timer, before it fails as a timeout (default: go test's -timeout; weft passes it on to the processes it starts)")
	flagLag          = flag.Duration("explore.lag", explore.DefaultLag, "weft: how far ahead of the work the clock may run, firing timers while goroutines that could run have not (0: only when due)")
	flagStrictLeaks  = flag.Bool("explore.strictleaks", false, "weft: fail a test whose goroutines kept running after it returned, as goleak would")
	flagContinue     = flag.Bool("explore.continue", false, "weft: with -explore, go on after a failure until the budget ends, minimizing and saving each distinct failure (by signature) once")
	flagShard        = flag.String("explore.shard", "", "weft: with -explore, explore part I of N of the seed space, as I/N (0 ≤ I < N): N processes or machines with the same -explore.seed explore disjoint executions")
	flagQuiet        = flag.Bool("explore.quiet", false, "weft: with -explore, print no progress line")
	flagJSON         = flag.String("explore.json", "", "weft: write a JSON report of the explorations to this file (relative to the package's directory)")
	flagProfile      = flag.String("explore.profile", "", "weft: write a pprof profile of where the explored executions spent their events and where failing schedules preempted to this file")
	flagHTML         = &htmlFlag{}
	flagTimeline     = flag.String("explore.timeline", "", "weft: internal, set by weft show: write the timeline of the saved schedule replayed to this file, as JSON")

	flagRecord        = flag.String("record", "", "weft: run the test free (truly parallel) and record each run with this recorder: "+strings.Join(record.Algorithms(), ", ")+"; a failing run is replayed from its log, minimized and saved")
	flagRecordRuns    = flag.Int("record.runs", defaultRuns, "weft: with -record, free runs at most")
	flagRecordLog     = flag.String("record.log", "", "weft: with -record, keep the logs of failing runs in this directory")
	flagRecordLocks   = flag.Bool("record.lockorder", true, "weft: with -record, watch the order in which goroutines take sim.Mutexes (go-deadlock) and fail a run that inverts it")
	flagRecordTimeout = flag.Duration("record.timeout", record.DefaultStallTimeout, "weft: with -record, how long a run may make no progress before it is reported as deadlocked")
)

func init() {
	flag.Var(flagHTML, "explore.html", "weft: write the timeline of each failure reported as an HTML page to this directory (default: weft-html in the temporary directory) and print a link to it")
}

// htmlFlag is -explore.html: given alone, it writes the pages to a default
// directory; =DIR names one.
type htmlFlag struct{ dir string }

func (f *htmlFlag) IsBoolFlag() bool { return true }
func (f *htmlFlag) String() string   { return f.dir }
func (f *htmlFlag) Set(s string) error {
	switch s {
	case "true":
		f.dir = filepath.Join(os.TempDir(), "weft-html")
	case "false":
		f.dir = ""
	default:
		f.dir = s
	}
	return nil
}

// parseShard reads -explore.shard's I/N.
func parseShard(s string) (index, count int, err error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 0 || index >= count {
		return 0, 0, fmt.Errorf("weft: -explore.shard=%s: want I/N with 0 ≤ I < N, such as 0/4 (a Kubernetes Indexed Job passes $(JOB_COMPLETION_INDEX)/N)", s)
	}
	return index, count, nil
}

// flagsSet returns the names of the flags given on the command line.
func flagsSet() map[string]bool {
	set := map[string]bool{}
	if flag.Parsed() {
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	}
	return set
}

// validate checks flag and option values that can be wrong.
func (c *config) validate() error {
	if _, err := explore.New(c.strategy, 0, max(c.depth, 1), 1); err != nil {
		return fmt.Errorf("weft: -explore.strategy: unknown strategy %q (want one of: %s)", c.strategy, strings.Join(explore.Strategies, ", "))
	}
	if c.depth < 1 {
		return fmt.Errorf("weft: -explore.depth must be at least 1, not %d", c.depth)
	}
	if c.iterations < 0 || c.exploreIters < 0 {
		return fmt.Errorf("weft: iteration budget must not be negative")
	}
	if c.recorder != "" {
		if _, err := record.New(c.recorder); err != nil {
			return fmt.Errorf("weft: -record: unknown recorder %q (want one of: %s)", c.recorder, strings.Join(record.Algorithms(), ", "))
		}
	}
	if c.workers < 0 {
		return fmt.Errorf("weft: -explore.workers must not be negative, not %d", c.workers)
	}
	if c.runs < 1 {
		return fmt.Errorf("weft: -record.runs must be at least 1, not %d", c.runs)
	}
	if c.explore && c.exploreIters == 0 && c.exploreTime <= 0 {
		return fmt.Errorf("weft: -explore needs a budget: -explore.iters or a positive -explore.time")
	}
	return nil
}

// timeLimit is the time limit of an execution (sched.Options.TimeLimit):
// -explore.timelimit where set, else go test's -timeout, which weft's
// child processes do not inherit (see childArgs).
func timeLimit() time.Duration {
	if flagsSet()["explore.timelimit"] {
		return *flagTimeLimit
	}
	if f := flag.Lookup("test.timeout"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if d, ok := g.Get().(time.Duration); ok {
				return d
			}
		}
	}
	return 0
}

package weft

import (
	"fmt"
	"hash/fnv"
	"os"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
)

// An Option configures Check and Find. Flags given on the command line take
// precedence over options.
type Option func(*config)

// Iterations sets the executions of plain go test's exploration (default
// 100, or fewer if they run more than 2^19 events or take more than 10
// seconds), and of Find.
// A property test (Property) runs at most n cases.
func Iterations(n int) Option { return func(c *config) { c.iterations, c.iterSet = n, true } }

// Strategy selects the exploration strategy: "mix" (the default: each
// execution a random walk or PCT, by a coin flip of its seed), "pct" or
// "random" (explore.Strategies).
func Strategy(name string) Option { return func(c *config) { c.strategy = name } }

// Depth sets PCT's bug depth (default 3).
func Depth(d int) Option { return func(c *config) { c.depth = d } }

// Seed fixes the base seed of the exploration.
func Seed(s uint64) Option { return func(c *config) { c.seed, c.seedSet = s, true } }

// MaxSteps bounds the events of an execution (default sched.DefaultMaxSteps);
// past it the execution fails as a runaway.
func MaxSteps(n int) Option { return func(c *config) { c.maxSteps = n } }

// BlockTimeout bounds how long a controlled goroutine may block outside
// weft's control (a raw channel, a sync.Mutex, I/O) before the execution
// fails (default sched.DefaultBlockTimeout).
func BlockTimeout(d time.Duration) Option { return func(c *config) { c.blockTimeout = d } }

// Lag sets the largest lag an execution may draw: how far ahead of the
// work the clock may run, firing timeouts and ending sleeps while
// goroutines that could run have not (default explore.DefaultLag; 0 fires
// timers only when they are due).
func Lag(d time.Duration) Option {
	return func(c *config) {
		c.lag = d
		if d <= 0 {
			c.lag = -1
		}
	}
}

// StrictLeaks makes goroutines that kept running after the test body
// returned (a loop on a ticker, say) a failure, as goleak would; by default
// they are a line in the log, as under go test.
func StrictLeaks() Option { return func(c *config) { c.strictLeaks = true } }

// CorpusDir sets the directory of the test's saved schedules (default
// testdata/weft/<TestName>).
func CorpusDir(dir string) Option { return func(c *config) { c.dir = dir } }

// Name names the test in Find's reports and saved entries (Check uses the
// test's own name).
func Name(name string) Option { return func(c *config) { c.name = name } }

// config is what Check and Find run with: options, then flags.
type config struct {
	name         string
	iterations   int
	iterSet      bool          // Iterations was given
	plainTime    time.Duration // plain go test's time bound, without Iterations
	plainEvents  int           // plain go test's events bound, without Iterations
	strategy     string
	depth        int
	seed         uint64
	seedSet      bool
	maxSteps     int
	timeLimit    time.Duration // sched.Options.TimeLimit: go test's -timeout
	blockTimeout time.Duration
	lag          time.Duration // explore.Config.Lag
	strictLeaks  bool
	epoch        time.Time // the virtual clock's start, shared by the test's executions
	dir          string
	command      string // the command that replays a saved entry: "go test", or "weft test" for instrumented tests
	inline       bool   // explore in the test itself, not a subtest: for instrumented tests
	rewritten    bool   // the test's code is weft test's rewrite (sched.Options.Rewritten)

	explore      bool // -explore
	exploreIters int
	exploreTime  time.Duration
	workers      int
	cont         bool     // -explore.continue: go on past failures
	shard        int      // -explore.shard: this process explores part shard of shards
	shards       int      // 0 or 1: the whole seed space
	quiet        bool     // -explore.quiet
	known        []string // signatures of the saved schedules that fail
	// stop and hurry end an exploration and its minimizations early:
	// closed on SIGINT or SIGTERM, and a grace period later (signal.go).
	stop, hurry <-chan struct{}
	sel         selection // how T.Run selects subtests, and where they show
	// spawn starts a worker process of the exploration, for -explore with
	// more than one worker; nil: the test process runs every execution.
	spawn func(oneProc bool) (explore.Worker, error)

	recorder      string // -record: the recorder of free runs; "" for none
	runs          int    // -record.runs
	logDir        string // -record.log
	recordTimeout time.Duration
	lockOrder     bool // -record.lockorder
}

const defaultIterations = 100

// plainTime bounds plain go test's exploration of a test in wall time, when
// Iterations was not given: a stress test whose executions take seconds
// each would otherwise take a hundred times as long as under go test, and
// time out. The executions that run are the same on every machine, only
// fewer on a slow one; the first always runs.
const plainTime = 10 * time.Second

// plainEvents bounds plain go test's exploration of a test in events, when
// Iterations was not given: a test whose executions run thousands of
// goroutines (40,000 events for 8,000 that each sleep and call Done) would
// otherwise run a hundred times what go test runs once, the executions
// costing the same per event as small ones. About half a second at the
// 0.5–1.4 µs an event costs on 2 cores; a test of up to 5,242 events an
// execution runs its 100. Unlike plainTime, the bound does not depend on
// the machine: the executions that run are the same on every one. The
// first always runs.
const plainEvents = 1 << 19

func newConfig(name string, opts []Option, useFlags bool) (*config, error) {
	c := defaultConfig(name)
	for _, o := range opts {
		o(c)
	}
	if useFlags {
		if err := c.applyFlags(); err != nil {
			return c, err
		}
	}
	if c.dir == "" {
		c.dir = corpus.Dir(c.name)
	}
	if !c.seedSet {
		c.seed = c.defaultSeed()
	}
	return c, c.validate()
}

// defaultConfig is the configuration of test name before its options and
// flags.
func defaultConfig(name string) *config {
	c := &config{
		// One virtual epoch for all the test's executions and replays,
		// so that they agree on absolute times, and later than any time
		// taken before the test (package init, earlier tests).
		epoch:        time.Now(),
		name:         name,
		iterations:   defaultIterations,
		plainTime:    plainTime,
		plainEvents:  plainEvents,
		strategy:     explore.DefaultStrategy,
		depth:        explore.DefaultDepth,
		maxSteps:     sched.DefaultMaxSteps,
		blockTimeout: sched.DefaultBlockTimeout,
		command:      "go test",
		runs:         defaultRuns,
		lockOrder:    true,
	}
	if cmd := os.Getenv("WEFT_COMMAND"); cmd != "" {
		c.command = cmd // weft test runs the test: it replays what it saves
	}
	return c
}

// applyFlags sets what the command line's flags say, over the options: a
// flag counts where it is set, but -explore and its budget always do.
func (c *config) applyFlags() error {
	set := flagsSet()
	c.explore = *flagExplore
	c.exploreIters, c.exploreTime, c.workers = *flagIters, *flagTime, *flagWorkers
	if set["explore.strategy"] {
		c.strategy = *flagStrategy
	}
	if set["explore.depth"] {
		c.depth = *flagDepth
	}
	if set["explore.seed"] {
		c.seed, c.seedSet = *flagSeed, true
	}
	if set["explore.blocktimeout"] {
		c.blockTimeout = *flagBlockTimeout
	}
	if set["explore.maxsteps"] {
		c.maxSteps = *flagMaxSteps
	}
	c.timeLimit = timeLimit()
	if set["explore.lag"] {
		Lag(*flagLag)(c)
	}
	if set["explore.strictleaks"] {
		c.strictLeaks = *flagStrictLeaks
	}
	if set["explore.iters"] && !set["explore.time"] {
		c.exploreTime = 0
	}
	c.cont, c.quiet = *flagContinue, *flagQuiet
	if *flagShard != "" {
		i, n, err := parseShard(*flagShard)
		if err != nil {
			return err
		}
		c.shard, c.shards = i, n
	}
	c.applyRecordFlags(set)
	return nil
}

// applyRecordFlags sets what -record and its flags say, where they are set.
func (c *config) applyRecordFlags(set map[string]bool) {
	if set["record"] {
		c.recorder = *flagRecord
	}
	if set["record.runs"] {
		c.runs = *flagRecordRuns
	}
	if set["record.log"] {
		c.logDir = *flagRecordLog
	}
	if set["record.lockorder"] {
		c.lockOrder = *flagRecordLocks
	}
	if set["record.timeout"] {
		c.recordTimeout = *flagRecordTimeout
	}
}

// defaultSeed is the seed where neither an option nor -explore.seed sets
// one: from the test's name for plain go test, so that it is
// deterministic; from the clock for -explore; from the name and the day
// (UTC) for the shards of an -explore run, which must agree on it.
func (c *config) defaultSeed() uint64 {
	switch {
	case c.explore && c.shards > 1:
		h := fnv.New64a()
		fmt.Fprintf(h, "%s %s", c.name, time.Now().UTC().Format(time.DateOnly))
		return h.Sum64()
	case c.explore:
		return uint64(time.Now().UnixNano())
	default:
		h := fnv.New64a()
		h.Write([]byte(c.name))
		return h.Sum64()
	}
}

func (c *config) schedOptions() sched.Options {
	return sched.Options{MaxSteps: c.maxSteps, TimeLimit: c.timeLimit, BlockTimeout: c.blockTimeout, Name: c.name,
		Epoch: c.epoch, StrictLeaks: c.strictLeaks, Rewritten: c.rewritten}
}

// exploreConfig is the exploration budget: -explore's, or plain go test's
// small deterministic one.
func (c *config) exploreConfig() explore.Config {
	ec := explore.Config{
		Strategy: c.strategy,
		Seed:     c.seed,
		Depth:    c.depth,
		Lag:      c.lag,
		Options:  c.schedOptions(),
	}
	if c.explore {
		ec.Iterations, ec.Duration = c.exploreIters, c.exploreTime
		ec.Workers, ec.Spawn = c.exploreWorkers(), c.spawn
		ec.Continue, ec.Known, ec.Stop = c.cont, c.known, c.stop
		if c.shards > 1 {
			// Execution i of the whole exploration is this shard's if
			// i mod shards is shard: of an iteration budget, its share.
			ec.Shard, ec.Shards = c.shard, c.shards
			if ec.Iterations > 0 {
				ec.Iterations = (ec.Iterations - c.shard + c.shards - 1) / c.shards
			}
		}
		if race.Enabled && ec.Spawn == nil {
			// Executions in one process share the test's variables: under
			// the race detector, two run at once would race for real.
			ec.Workers = 1
		}
	} else {
		ec.Iterations, ec.Workers = c.iterations, 1
		if !c.iterSet {
			ec.Duration, ec.Events = c.plainTime, c.plainEvents
		}
	}
	return ec
}

// exploreWorkers is -explore.workers, or its default.
func (c *config) exploreWorkers() int {
	if c.workers > 0 {
		return c.workers
	}
	return explore.DefaultWorkers()
}

package weft

import (
	"hash/fnv"
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
// 100), and of Find.
func Iterations(n int) Option { return func(c *config) { c.iterations = n } }

// Strategy selects the exploration strategy: "pct" (the default) or
// "random".
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
	strategy     string
	depth        int
	seed         uint64
	seedSet      bool
	maxSteps     int
	blockTimeout time.Duration
	dir          string
	command      string // the command that replays a saved entry: "go test", or "weft test" for instrumented tests
	inline       bool   // explore in the test itself, not a subtest: for instrumented tests

	explore      bool // -explore
	exploreIters int
	exploreTime  time.Duration
	workers      int

	recorder      string // -record: the recorder of free runs; "" for none
	runs          int    // -record.runs
	logDir        string // -record.log
	recordTimeout time.Duration
	lockOrder     bool // -record.lockorder
}

const defaultIterations = 100

func newConfig(name string, opts []Option, useFlags bool) (*config, error) {
	c := &config{
		name:         name,
		iterations:   defaultIterations,
		strategy:     explore.DefaultStrategy,
		depth:        explore.DefaultDepth,
		maxSteps:     sched.DefaultMaxSteps,
		blockTimeout: sched.DefaultBlockTimeout,
		command:      "go test",
		runs:         defaultRuns,
		lockOrder:    true,
	}
	for _, o := range opts {
		o(c)
	}
	if useFlags {
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
		if set["explore.iters"] && !set["explore.time"] {
			c.exploreTime = 0
		}
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
	if c.dir == "" {
		c.dir = corpus.Dir(c.name)
	}
	if !c.seedSet {
		if c.explore {
			c.seed = uint64(time.Now().UnixNano())
		} else {
			h := fnv.New64a()
			h.Write([]byte(c.name))
			c.seed = h.Sum64()
		}
	}
	return c, c.validate()
}

func (c *config) schedOptions() sched.Options {
	return sched.Options{MaxSteps: c.maxSteps, BlockTimeout: c.blockTimeout, Name: c.name}
}

// exploreConfig is the exploration budget: -explore's, or plain go test's
// small deterministic one.
func (c *config) exploreConfig() explore.Config {
	ec := explore.Config{
		Strategy: c.strategy,
		Seed:     c.seed,
		Depth:    c.depth,
		Options:  c.schedOptions(),
	}
	if c.explore {
		ec.Iterations, ec.Duration = c.exploreIters, c.exploreTime
		ec.Workers = c.workers
		if ec.Workers <= 0 {
			ec.Workers = explore.DefaultWorkers()
		}
		if race.Enabled {
			// Executions in one process share the test's variables: under
			// the race detector, two run at once would race for real.
			ec.Workers = 1
		}
	} else {
		ec.Iterations, ec.Workers = c.iterations, 1
	}
	return ec
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// weft nightly is the fuzz-style job of a CI schedule: one command that
// explores every weft test of every package given (tests written with sim
// and unmodified tests alike, built as weft test builds them) for a total
// time, split across the tests by weight; goes on past failures, saving
// each distinct one once; and ends with a summary, a JSON report and, if
// asked, a profile and the failures' timelines. Shards (-explore.shard)
// split it across machines.
//
// Each test runs in a test process of its own (the package's test binary,
// built once), with -explore -explore.continue and its share of the time;
// the test process runs its executions in worker processes, as go test
// -explore does.

// nightlyArgs is a weft nightly command line.
type nightlyArgs struct {
	total    time.Duration // -explore.time: for the whole run
	iters    int           // -explore.iters: per test
	shard    string        // -explore.shard, as given
	seed     string        // -explore.seed, as given
	json     string        // -explore.json
	html     string        // -explore.html's directory, "" if not asked
	profile  string        // -explore.profile
	quiet    bool          // -explore.quiet
	verbose  bool          // -v: every test's output
	run      *regexp.Regexp
	weights  []weight
	test     testArgs // the build: patterns, -instrument..., build flags
	binFlags []string // flags for the test binaries
}

// A weight gives the tests whose full name (import path, dot, test name)
// matches re a share of the time in proportion to w.
type weight struct {
	re *regexp.Regexp
	w  float64
}

// defaultNightlyTime is weft nightly's budget without -explore.time.
const defaultNightlyTime = time.Hour

// nightlyBuildFlags are the go test flags that change how test binaries are
// built; with a value unless in goTestBoolFlags.
var nightlyBuildFlags = map[string]bool{
	"race": true, "msan": true, "asan": true, "tags": true, "gcflags": true, "ldflags": true, "asmflags": true,
	"trimpath": true, "cover": true, "covermode": true, "coverpkg": true, "mod": true, "buildvcs": true, "pgo": true,
}

func parseNightlyArgs(args []string) (nightlyArgs, error) {
	a := nightlyArgs{total: defaultNightlyTime}
	var build []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.test.patterns = append(a.test.patterns, arg)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		boolean := goTestBoolFlags[name] || name == "explore.quiet" || name == "explore.html" || name == "v"
		if !hasValue && !boolean {
			if !nightlyFlag(name) {
				return a, fmt.Errorf("unknown flag %s (weft nightly -h lists them)", arg)
			}
			if i+1 == len(args) {
				return a, fmt.Errorf("-%s needs a value", name)
			}
			i++
			value, hasValue = args[i], true
		}
		if err := a.set(name, value, hasValue, arg, &build); err != nil {
			return a, err
		}
	}
	t, err := parseTestArgs(append(build, a.test.patterns...))
	if err != nil {
		return a, err
	}
	a.test = t
	if a.total <= 0 {
		return a, errors.New("-explore.time must be positive: the run's budget")
	}
	return a, nil
}

// set takes one flag of weft nightly's command line.
func (a *nightlyArgs) set(name, value string, hasValue bool, arg string, build *[]string) error {
	var err error
	switch name {
	case "explore.time":
		a.total, err = time.ParseDuration(value)
	case "explore.iters":
		a.iters, err = strconv.Atoi(value)
	case "explore.shard":
		a.shard = value
		if i, n, ok := strings.Cut(value, "/"); !ok || !isIndex(i, n) {
			return fmt.Errorf("-explore.shard=%s: want I/N with 0 ≤ I < N, such as 0/4", value)
		}
	case "explore.seed":
		a.seed = value
	case "explore.json":
		a.json, err = filepath.Abs(value)
	case "explore.profile":
		a.profile, err = filepath.Abs(value)
	case "explore.html":
		switch {
		case !hasValue || value == "true":
			a.html = filepath.Join(os.TempDir(), "weft-html")
		case value == "false":
			a.html = ""
		default:
			a.html, err = filepath.Abs(value)
		}
	case "explore.quiet":
		a.quiet = !hasValue || value == "true"
	case "v":
		a.verbose = !hasValue || value == "true"
	case "run":
		a.run, err = regexp.Compile(value)
	case "weight":
		pat, w, ok := strings.Cut(value, "=")
		f, perr := strconv.ParseFloat(w, 64)
		if !ok || perr != nil || f < 0 {
			return fmt.Errorf("-weight %s: want REGEXP=WEIGHT, a weight of 0 or more", value)
		}
		re, rerr := regexp.Compile(pat)
		if rerr != nil {
			return fmt.Errorf("-weight %s: %w", value, rerr)
		}
		a.weights = append(a.weights, weight{re, f})
	case "explore", "explore.continue", "explore.worker", "explore.timeline", "test.run", "test.timeout", "test.count", "test.list":
		return fmt.Errorf("-%s: weft nightly sets it", name)
	case "instrument", "instrument.skip":
		*build = append(*build, "-"+name+"="+value)
	default:
		switch {
		case nightlyBuildFlags[name]:
			*build = append(*build, flagArg(name, value, hasValue))
		case strings.HasPrefix(name, "explore.") || strings.HasPrefix(name, "record.") || strings.HasPrefix(name, "test."):
			a.binFlags = append(a.binFlags, flagArg(name, value, hasValue))
		case name == "short" || name == "cpu" || name == "parallel" || name == "failfast":
			a.binFlags = append(a.binFlags, flagArg("test."+name, value, hasValue))
		default:
			return fmt.Errorf("unknown flag %s (weft nightly -h lists them)", arg)
		}
	}
	if err != nil {
		return fmt.Errorf("-%s: %w", name, err)
	}
	return nil
}

// flagArg is a flag as passed on: a boolean flag given alone stays alone.
func flagArg(name, value string, hasValue bool) string {
	if !hasValue {
		return "-" + name
	}
	return "-" + name + "=" + value
}

// nightlyFlag reports whether weft nightly takes a flag: its own, the
// build's, or the test binaries'.
func nightlyFlag(name string) bool {
	switch name {
	case "explore.time", "explore.iters", "explore.shard", "explore.seed", "explore.json", "explore.profile", "explore.html",
		"explore.quiet", "v", "run", "weight", "instrument", "instrument.skip", "short", "cpu", "parallel", "failfast":
		return true
	}
	return nightlyBuildFlags[name] || strings.HasPrefix(name, "explore.") || strings.HasPrefix(name, "record.") || strings.HasPrefix(name, "test.")
}

func isIndex(i, n string) bool {
	x, err1 := strconv.Atoi(i)
	y, err2 := strconv.Atoi(n)
	return err1 == nil && err2 == nil && y >= 1 && x >= 0 && x < y
}

// weightOf returns the weight of a test: the first -weight that matches its
// full name, or 1.
func (a *nightlyArgs) weightOf(t *nightlyTest) float64 {
	full := t.pkg.path + "." + t.name
	for _, w := range a.weights {
		if w.re.MatchString(full) {
			return w.w
		}
	}
	return 1
}

const nightlyUsage = `usage: weft nightly [flags] [packages]

Explores every weft test of the packages (tests written with sim, and
unmodified tests as weft test runs them) for -explore.time in all, from
the end of the build, split across the tests by weight, going on past
failures: each distinct failure (by signature) is minimized and saved
once. Time a test leaves goes to the tests after it, then to further
rounds. Ends with a summary; exits 1 if it found a failure. SIGINT or
SIGTERM ends it cleanly: what was found is saved and reported. The
corpora of shards merge with weft merge.

  -explore.time D        the run's budget (default 1h)
  -explore.iters N       executions at most per test (default: no limit but time)
  -explore.shard I/N     explore part I of N of every test's seed space
  -explore.seed S        base seed of every test (shards must agree on it)
  -explore.json FILE     write the run's JSON report
  -explore.html[=DIR]    write each failure's timeline as an HTML page
  -explore.profile FILE  write a pprof profile of the run
  -explore.quiet         no progress line
  -run REGEXP            only the tests whose names match
  -weight REGEXP=W       weight of the tests whose import path.TestName
                         matches (default 1; 0 leaves them out); repeatable
  -v                     print every test's output, not only the failing ones'
  -instrument, -instrument.skip, -race, -tags, ... : as weft test
  -explore.strategy, -explore.workers, ... : passed to every test
`

// nightlyCmd is weft nightly.
func nightlyCmd(args []string) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Print(nightlyUsage)
			return nil
		}
	}
	a, err := parseNightlyArgs(args)
	if err != nil {
		return err
	}
	code, err := runNightly("", a, os.Stdout, os.Stderr)
	if err != nil {
		return err
	}
	if code != 0 {
		os.Exit(code)
	}
	return nil
}

// runNightly runs a nightly in dir (the current directory if empty) and
// returns its exit code: 1 if it found a failure or a test process failed
// without a report of its exploration.
func runNightly(dir string, a nightlyArgs, stdout, stderr io.Writer) (int, error) {
	n, err := newNightly(dir, a, stdout, stderr)
	if err != nil {
		return 0, err
	}
	defer n.close()
	if err := n.build(); err != nil {
		return 0, err
	}
	n.explore()
	return n.finish()
}

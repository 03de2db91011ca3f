// Command measure produces the README's table of weft's examples: for each
// bug, the executions weft needs to find it (median and max over 20 seeds)
// with each strategy, and how often the same test fails under the real Go
// scheduler in 1000 plain runs, the stress-testing baseline.
//
//	go run ./examples/measure [-seeds 20] [-stress 1000] [-cap 10000]
//
// Plain runs happen in child processes: a bug can crash the program (a
// panic in a goroutine), hang it (a deadlock) or leak goroutines, and each
// counts as a failing run. Leaks are found with go.uber.org/goleak.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"go.uber.org/goleak"

	"github.com/weftdev/weft/examples"
	weft "github.com/weftdev/weft/testing"
)

var (
	seeds      = flag.Int("seeds", 20, "seeds per strategy")
	stress     = flag.Int("stress", 1000, "plain runs per example")
	capIters   = flag.Int("cap", 10000, "executions at most per seed")
	strategies = flag.String("strategies", "random,pct", "strategies to compare, comma-separated")
	only       = flag.String("only", "", "measure only the named example")
	child      = flag.String("child", "", "internal: run plain runs of this example and print one byte per run")
	hang       = flag.Duration("hang", 2*time.Second, "a plain run taking longer is counted as hung (deadlocked)")
)

func main() {
	flag.Parse()
	if *child != "" {
		runChild(*child, *stress)
		return
	}
	names := strings.Split(*strategies, ",")
	fmt.Printf("| example | bug |")
	for _, s := range names {
		fmt.Printf(" %s: median / max |", s)
	}
	fmt.Printf(" plain go test fails |\n|---|---|")
	for range names {
		fmt.Printf("---|")
	}
	fmt.Printf("---|\n")
	for _, ex := range examples.All {
		if *only != "" && ex.Name != *only {
			continue
		}
		fmt.Printf("| %s | %s |", ex.Name, ex.Bug)
		for _, s := range names {
			med, worst, misses := executionsToFind(ex, s)
			cell := fmt.Sprintf(" %s / %s", count(med), count(worst))
			if misses > 0 {
				cell += fmt.Sprintf(" (%d of %d seeds missed)", misses, *seeds)
			}
			fmt.Printf("%s |", cell)
		}
		failed, err := plainFailures(ex.Name, *stress)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf(" %d of %d |\n", failed, *stress)
	}
}

func count(n int) string {
	if n > *capIters {
		return fmt.Sprintf(">%d", *capIters)
	}
	return fmt.Sprint(n)
}

// executionsToFind explores ex.Buggy with each seed and returns the median
// and maximum of the executions needed to find the bug (cap+1 for a miss).
func executionsToFind(ex examples.Example, strategy string) (median, worst, misses int) {
	var runs []int
	for seed := range *seeds {
		f, err := weft.Find(ex.Buggy, weft.Strategy(strategy), weft.Seed(uint64(seed)), weft.Iterations(*capIters))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if f == nil {
			runs = append(runs, *capIters+1)
			misses++
			continue
		}
		if f.Failure.Kind != ex.Kind {
			fmt.Fprintf(os.Stderr, "%s: found %s, expected %s\n", ex.Name, f.Failure.Summary(), ex.Kind)
		}
		runs = append(runs, f.Found.Iteration+1)
	}
	slices.Sort(runs)
	return runs[len(runs)/2], runs[len(runs)-1], misses
}

// plainFailures runs ex.Buggy n times under the real scheduler, in child
// processes, restarting one whenever a run crashes or hangs it.
func plainFailures(name string, n int) (failed int, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	for done := 0; done < n; {
		cmd := exec.Command(self, "-child", name, "-stress", fmt.Sprint(n-done), "-hang", hang.String())
		cmd.Stderr = io.Discard
		out, err := cmd.StdoutPipe()
		if err != nil {
			return 0, err
		}
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		r := bufio.NewReader(out)
		for {
			b, err := r.ReadByte()
			if err != nil {
				break
			}
			done++
			if b != '.' {
				failed++
			}
		}
		if err := cmd.Wait(); err != nil {
			// The run in progress crashed the child: a panic in a goroutine.
			done++
			failed++
		}
	}
	return failed, nil
}

// runChild runs the plain runs of one example, printing '.' for a pass and
// 'F' for a failure (an error, a panic, a leak) after each, and 'H' before
// exiting when a run hangs.
func runChild(name string, n int) {
	var ex examples.Example
	for _, e := range examples.All {
		if e.Name == name {
			ex = e
		}
	}
	if ex.Buggy == nil {
		fmt.Fprintf(os.Stderr, "unknown example %q\n", name)
		os.Exit(2)
	}
	for range n {
		before := goleak.IgnoreCurrent()
		watchdog := time.AfterFunc(*hang, func() {
			os.Stdout.Write([]byte("H"))
			os.Exit(3)
		})
		errs := weft.RunPlain(ex.Buggy)
		watchdog.Stop()
		if len(errs) == 0 && goleak.Find(before) == nil {
			os.Stdout.Write([]byte("."))
		} else {
			os.Stdout.Write([]byte("F"))
		}
	}
}

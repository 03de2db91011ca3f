// Command linmeasure produces the figures of the README's section on
// linearizability: for each example of a concurrent data structure, the
// scenarios lin.Check runs until it finds the bug (median and max over 20
// seeds), the size of the first failing scenario against the shrunk one,
// the scenarios per second it runs on the fixed twin, and that the twin
// passes thousands of scenarios.
//
//	go run ./examples/linmeasure [-seeds 20] [-fixed 10000]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/weftdev/weft/examples/batchcounter"
	"github.com/weftdev/weft/examples/freelist"
	"github.com/weftdev/weft/examples/loadorstore"
	"github.com/weftdev/weft/examples/twolockqueue"
	"github.com/weftdev/weft/lin"
	weft "github.com/weftdev/weft/testing"
)

// An example is a buggy spec and its fixed twin, made into searches.
type example struct {
	name, bug  string
	find       func(seed uint64, budget int) (*weft.Finding, error)
	fixedCases func(n int) (*weft.Finding, error)
}

func of[O, S any](name, bug string, buggy, fixed lin.Spec[O, S]) example {
	return example{name: name, bug: bug,
		find: func(seed uint64, budget int) (*weft.Finding, error) {
			return lin.Find(buggy, weft.Seed(seed), weft.Iterations(budget))
		},
		fixedCases: func(n int) (*weft.Finding, error) { return lin.Find(fixed, weft.Iterations(n)) },
	}
}

func main() {
	seeds := flag.Int("seeds", 20, "searches per example")
	budget := flag.Int("budget", 100000, "scenarios per search at most")
	fixedN := flag.Int("fixed", 10000, "scenarios the fixed twins run")
	flag.Parse()
	examples := []example{
		of("twolockqueue", "a queue that loses an element", twolockqueue.Spec(twolockqueue.NewRacy), twolockqueue.Spec(twolockqueue.New)),
		of("loadorstore", "a cache whose check-then-insert is not atomic", loadorstore.Spec(loadorstore.NewRacy), loadorstore.Spec(loadorstore.New)),
		of("batchcounter", "a counter with a batched flush", batchcounter.Spec(batchcounter.NewRacy), batchcounter.Spec(batchcounter.New)),
		of("freelist", "ABA on a lock-free stack", freelist.Spec(freelist.NewRacy), freelist.Spec(freelist.New)),
	}
	fmt.Println("| example | bug | scenarios to find it: median / max | first failing scenario (median) | shrunk (median) | fixed twin: scenarios passed, per second |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, ex := range examples {
		var cases, firstOps, firstPre, ops, pre []int
		for s := range *seeds {
			f, err := ex.find(uint64(s+1), *budget)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if f == nil || f.Property.First == nil {
				cases = append(cases, -1)
				continue
			}
			p := f.Property
			cases = append(cases, p.Cases)
			firstOps, firstPre = append(firstOps, count(p.FirstInputs)), append(firstPre, p.First.Schedule().Preemptions())
			ops, pre = append(ops, count(p.Inputs)), append(pre, f.Final.Schedule().Preemptions())
		}
		start := time.Now()
		f, err := ex.fixedCases(*fixedN)
		elapsed := time.Since(start)
		fixed := fmt.Sprintf("%d, %.0f/s", *fixedN, float64(*fixedN)/elapsed.Seconds())
		if err != nil || f != nil {
			fixed = fmt.Sprintf("FAILED: %v %v", f, err)
		}
		fmt.Printf("| %s | %s | %s / %s | %d operations, %d preemptions | %d operations, %d preemptions | %s |\n",
			ex.name, ex.bug, show(median(cases)), show(slices.Max(cases)), median(firstOps), median(firstPre), median(ops), median(pre), fixed)
	}
}

// count reads the number of operations in "N operations on M goroutines".
func count(inputs string) int {
	var n int
	fmt.Sscanf(inputs, "%d", &n)
	return n
}

func median(xs []int) int {
	if len(xs) == 0 {
		return -1
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if slices.Contains(s, -1) {
		return -1 // a search that found nothing
	}
	return s[len(s)/2]
}

func show(n int) string {
	if n < 0 {
		return "not found"
	}
	return fmt.Sprint(n)
}

package workload

import (
	"flag"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/weftdev/weft/record"
)

var ratesRuns = flag.Int("rates", 0, "measure the failure rates of the buggy variants over this many plain runs each, and a tenth as many recorded by each recorder (TestFailureRates)")

// TestFailureRates measures the failure rates of the buggy variants with
// GOMAXPROCS=2, in plain mode and recorded:
//
//	go test -run FailureRates -rates 10000 -v ./internal/workload
func TestFailureRates(t *testing.T) {
	if *ratesRuns <= 0 {
		t.Skip("-rates not set")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, w := range Buggy() {
		start := time.Now()
		n, first := FailureRate(w.Body, *ratesRuns)
		t.Logf("%-14s %-9s %5d/%d failed (%4.1f%%), ~%d events, %v/run; first: %v", w.Name, "plain", n, *ratesRuns,
			100*float64(n)/float64(*ratesRuns), w.Events, time.Since(start)/time.Duration(*ratesRuns), first)
	}
	runs := max(1, *ratesRuns/10)
	dir := t.TempDir()
	for _, w := range Buggy() {
		for _, alg := range record.Algorithms() {
			start := time.Now()
			n := 0
			var events uint64
			for range runs {
				res := recordRun(t, alg, w.Body, dir)
				os.Remove(res.Log)
				events += res.Events
				if res.Failure != nil {
					n++
				}
			}
			t.Logf("%-14s %-9s %5d/%d failed (%4.1f%%), %d events, %v/run", w.Name, alg, n, runs,
				100*float64(n)/float64(runs), events/uint64(runs), time.Since(start)/time.Duration(runs))
		}
	}
}

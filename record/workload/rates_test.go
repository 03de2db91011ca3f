package workload

import (
	"flag"
	"runtime"
	"testing"
	"time"
)

var ratesRuns = flag.Int("rates", 0, "measure the plain-mode failure rates of the buggy variants over this many runs each (TestFailureRates)")

// TestFailureRates measures the failure rates of the buggy variants in
// plain mode with GOMAXPROCS=2:
//
//	go test -run FailureRates -rates 10000 -v ./record/workload
func TestFailureRates(t *testing.T) {
	if *ratesRuns <= 0 {
		t.Skip("-rates not set")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, w := range Buggy() {
		start := time.Now()
		n, first := FailureRate(w.Body, *ratesRuns)
		t.Logf("%-14s %5d/%d failed (%.1f%%), ~%d events, %v/run; first: %v", w.Name, n, *ratesRuns,
			100*float64(n)/float64(*ratesRuns), w.Events, time.Since(start)/time.Duration(*ratesRuns), first)
	}
}

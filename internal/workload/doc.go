// Package workload holds the test fixtures that the record and replay
// benchmarks and tests run (internal: weft's own tests): concurrent
// programs written with package sim's primitives, each a plain func() that
// works in plain mode (called on any goroutine), recorded (record.Record)
// and under the controller (wrapped in a func(*weft.T)).
//
// # The workloads
//
//   - Bank: lock-heavy transfers between accounts (sim.Var[int] balances,
//     a sim.Mutex each, locked in index order); checks that the total is
//     conserved.
//   - Cache: a read-mostly cache after the Light paper's Cache4j example:
//     objects with a createTime and a value under a lock, a logical clock,
//     mostly gets (which check validity against a TTL), some puts.
//   - Pipeline: three stages connected by an unbuffered and a buffered
//     sim.Chan, with a fan-out middle stage; checks the final sum.
//   - Jacobi: a read-heavy numeric kernel, smoothing sim.Var[int64] arrays
//     in sweeps separated by a barrier of sim.WaitGroups; checks the result
//     against a sequential computation.
//   - Counter: a hot sim.Int64 incremented with Add by every worker;
//     checks the final count.
//   - Compute: work between shared accesses, as in the programs the
//     recording papers measure: each item is about 1 µs of arithmetic
//     (splitmix64 rounds) and then four operations (a bucket's lock, a
//     load and a store of its sum, the unlock); checks the sums.
//
// Each is built from a parameter struct (BankParams, CacheParams, ...)
// whose Size field is the knob of its length, and whose Events method
// estimates the operations of a run. Correct returns them all sized to a
// number of operations, as the benchmarks use them.
//
// Bodies allocate their state afresh on every call, draw their random
// choices from per-worker math/rand generators seeded by the worker's index
// (not sim.Intn, to keep the operations to the workload's own), and report
// a failed check by panicking, on the goroutine that called the body, with
// a message that starts with the workload's name: "bank: total 990, want
// 1000". Under record.Record such a panic is the run's Failure, of kind
// sched.Panic; RunPlain returns it as an error.
//
// # Buggy variants
//
// Buggy returns variants, with a Buggy parameter set, that fail in some
// runs only: a bank transfer that checks the balance in one critical
// section and debits it in another (a lost update), a cache get that checks
// createTime and then reads the value in a second critical section (check
// then act), and a counter incremented by a separate atomic Load and Store
// (a lost update). Their bugs are logic races, not data races: the suite
// runs under the race detector. They perform a few thousand operations,
// and fail in about 5 to 10 percent of plain runs with GOMAXPROCS=2 on an
// idle machine (1 or 2 percent on a loaded one, where the workers seldom
// run in parallel), and in 15 to 30 percent of recorded runs (recorders
// and the race detector slow the workers down, which makes them overlap
// more). Their workers start together, through a gate that spins outside
// the sim operations and steps aside under the controller. FailureRate
// measures the rate; TestFailureRates reports plain and recorded rates,
// their runs interleaved, and each recorder's ratio to plain (a recorder
// whose runs fail less often hides the bug it is there to catch) and to a
// recorder that records nothing (the framework alone):
//
//	go test -run FailureRates -v ./internal/workload -rates 2000
//
// # Benchmarks
//
// BenchmarkRecord/<workload>/impl=<impl> runs each correct workload in
// plain mode (impl=plain) and recorded by each recorder (impl=light,
// stride, aggreplay, leap; skipped while record.New does not know it),
// and reports the log's bytes per run (logB/op) and per event (B/event),
// the events of a run (events/op: the estimate for plain), allocations,
// and the peak growth of the heap's objects during the benchmark, above
// what it held when the benchmark began (peakMB). The -events flag sets
// the size of the runs (default 100000: about 1 ms a run in plain mode,
// 10 to 100 ms recorded). Compare the implementations with benchstat
// (the impl= form of the names is what -col /impl selects):
//
//	GOMAXPROCS=2 go test -run XXX -bench Record -count 6 ./internal/workload | tee /tmp/rec.txt
//	benchstat -col /impl /tmp/rec.txt
//
// (benchstat: go install golang.org/x/perf/cmd/benchstat@latest.)
package workload

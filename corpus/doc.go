// Package corpus stores the failing executions weft finds, so that every
// later go test replays them. Like Go's fuzzing corpus
// (testdata/fuzz/FuzzX/<hash>), each failure is a file
// testdata/weft/<TestName>/<id>, named by a hash of its content, meant to be
// committed with the code it tests.
//
// A file is versioned text, readable and editable by a person:
//
//	weft schedule v2
//	test: TestLostUpdate
//	found: strategy=pct seed=0x1b2c3d4e iteration=7 depth=3
//	failure: error in goroutine 0 at counter_test.go:31: counter = 1, want 2
//	signature: error counter_test.go:31
//	preemptions: 1 (minimized from 4)
//	hash: 0x8f3a11c2d4e5f607
//
//	# goroutine#event: the event at which a choice differs from the default policy
//	preempt 0#3 -> 0.2 @ Var.Load counter.go:12
//	switch 0.2#4 -> 0.1 @ Var.Store counter.go:12
//	pick 0.1#7 2/3 @ Select worker.go:30
//	switch 0.1.2#1 -> 0 @ RWMutex.Lock(wait readers) rw.go:40
//	preempt 0#9 -> clock @ Chan.Send fetch.go:21
//	switch 0#9+1 -> 0.1
//	preempt 0#12 -> 0.1
//
// The first line names the format and its version. Header lines "key: value"
// follow, up to the first blank line; test is required, keys this version
// does not know are kept and written back, and lines starting with # are
// comments. A schedule found in a test with parallel subtests records go
// test's -parallel limit it ran under ("parallel: 2"), which its replays
// keep. Then come the choices of the schedule (see sched.Schedule), one
// a line, in order; empty lines and lines starting with # are ignored:
//
//	switch G#N -> H [@ OP SITE]   at goroutine G's N-th event, H runs next
//	preempt G#N -> H [@ OP SITE]  the same, and G could have continued
//	pick G#N V/OF [@ OP SITE]     at that event, value V of [0, OF) was chosen
//
// G and H are goroutine lineages: 0 is the test body, 0.2 its second child,
// and so on. H may also be clock: the earliest pending timer fired there
// (a timeout that fires while goroutines could still run); then the
// strategy decided again at the same event, and that decision is named
// G#N+1 (and so on). Version 1 files, without clock choices, are read too. The optional annotation names the operation at the event and
// its file:line, "-" standing for an unknown one; the operation may contain
// spaces, the site is the last field.
package corpus

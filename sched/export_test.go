package sched

// Ungrouped returns opts with groups of waiters turned off (see group.go),
// so that a test can check that they change no decision.
func Ungrouped(opts Options) Options {
	opts.ungrouped = true
	return opts
}

// HeapTimers returns opts with every timer in the heap, none in the queue
// of timers set in order (see timerqueue.go), so that a test can check
// that the queue changes no decision.
func HeapTimers(opts Options) Options {
	opts.heapTimers = true
	return opts
}

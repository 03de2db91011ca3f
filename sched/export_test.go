package sched

// Ungrouped returns opts with groups of waiters turned off (see group.go),
// so that a test can check that they change no decision.
func Ungrouped(opts Options) Options {
	opts.ungrouped = true
	return opts
}

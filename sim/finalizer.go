package sim

import "runtime"

// Finalizers and cleanups. The garbage collector runs them in a goroutine
// of its own, at a moment no schedule chooses: one set on an object of an
// execution would use the execution's objects from outside it (go-cache's
// stopJanitor sends on its janitor's stop channel when the cache is
// collected), and if the execution is over, block the process's finalizer
// goroutine on a channel that nobody receives from. Go does not promise
// that a finalizer ever runs, so under control the collector is taken not
// to run one: they are checked as Go checks them, then dropped.

// SetFinalizer is runtime.SetFinalizer. Under control the finalizer is
// checked, then never runs (as if no collection found obj unreachable):
// a goroutine it would stop (a janitor) keeps running after the test, as
// under go test until a collection.
func SetFinalizer(obj any, finalizer any) {
	runtime.SetFinalizer(obj, finalizer)
	if g, _ := who(); g != nil && finalizer != nil {
		runtime.SetFinalizer(obj, nil)
	}
}

// AddCleanup is runtime.AddCleanup. Under control the cleanup is checked,
// then never runs, as SetFinalizer's finalizer.
func AddCleanup[T, S any](ptr *T, cleanup func(S), arg S) runtime.Cleanup {
	c := runtime.AddCleanup(ptr, cleanup, arg)
	if g, _ := who(); g != nil {
		c.Stop()
	}
	return c
}

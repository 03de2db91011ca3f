package sim

import (
	"context"
	"runtime/pprof"

	"github.com/weftdev/weft/internal/gls"
)

// PprofDo is runtime/pprof.Do, for the rewrite. A goroutine of weft's
// (under control, or recorded) is known by its profiler label set (see
// internal/gls), which pprof.Do would replace while f runs and leave
// replaced by ctx's after: the goroutine, and those f starts, would no
// longer be the execution's (cilium/hive's jobs start their goroutines in
// pprof.Do). Such a goroutine calls f with ctx itself, and keeps its own
// label set: the labels are dropped (profiles, and pprof.Label in f, do not
// see them). Not ctx with the labels added: a standard context derived
// from simctx.ToStd's view is converted back by simctx.FromStd into one
// whose cancellation is found only when it is checked, and a goroutine
// waiting on its Done was not woken (hive's jobs, under cilium/statedb's
// reconciler). Elsewhere it is pprof.Do.
func PprofDo(ctx context.Context, labels pprof.LabelSet, f func(context.Context)) {
	if weftLabeled() {
		f(ctx)
		return
	}
	pprof.Do(ctx, labels, f)
}

// PprofSetGoroutineLabels is runtime/pprof.SetGoroutineLabels, for the
// rewrite: a goroutine of weft's keeps its own label set (see PprofDo).
func PprofSetGoroutineLabels(ctx context.Context) {
	if weftLabeled() {
		return
	}
	pprof.SetGoroutineLabels(ctx)
}

// weftLabeled reports whether the calling goroutine is known by its label
// set: a goroutine of an execution, or a recorded one.
func weftLabeled() bool { return gls.Active() && gls.Get() != nil }

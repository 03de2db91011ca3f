// Package ctxiface has methods and function literals that must keep the
// standard library's context: they implement an interface of log/slog, or
// are handed to ext or runtime/pprof, which weft does not instrument.
package ctxiface

import (
	"context"
	"log/slog"
	"reflect"
	"runtime/pprof"
	"sync"

	"example.com/ctxiface/ext"
)

// counter implements slog.Handler: it counts the records it handles.
type counter struct {
	mu *sync.Mutex
	n  *int
}

func (c counter) Enabled(ctx context.Context, _ slog.Level) bool { return ctx.Err() == nil }

func (c counter) Handle(ctx context.Context, _ slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.n++
	return work(ctx)
}

func (c counter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c counter) WithGroup(string) slog.Handler      { return c }

func work(ctx context.Context) error { return ctx.Err() }

// handler is an interface of the package that slog.Handler's values go
// through: its Handle must keep the standard context too, and so must the
// Handle of the types converted to it.
type handler interface {
	Enabled(context.Context, slog.Level) bool
	Handle(context.Context, slog.Record) error
	WithAttrs([]slog.Attr) slog.Handler
	WithGroup(string) slog.Handler
}

// Log logs from n goroutines, and returns the number of records handled.
func Log(ctx context.Context, n int) int {
	c := counter{mu: new(sync.Mutex), n: new(int)}
	var h handler = c
	log := slog.New(h)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			log.InfoContext(ctx, "hello", "i", i)
		}()
	}
	wg.Wait()
	if !c.Enabled(ctx, slog.LevelDebug) || h.Handle(ctx, slog.Record{}) != nil || left(ctx) != nil {
		return -1
	}
	return *c.n
}

// Through calls f through ext.Do: the function literal handed to it keeps
// the standard context.
func Through(ctx context.Context, f func(context.Context) error) (err error) {
	ext.Do(ctx, func(ctx context.Context) {
		err = f(ctx)
	})
	return err
}

// Labeled starts f in a goroutine labeled for the profiler, as cilium/hive's
// jobs are: the goroutines stay the execution's.
func Labeled(ctx context.Context, f func(context.Context) error) error {
	errs := make(chan error, 1)
	pprof.Do(ctx, pprof.Labels("job", "f"), func(ctx context.Context) {
		go func() { errs <- f(ctx) }()
	})
	pprof.SetGoroutineLabels(ctx)
	return <-errs
}

// hookContext is a context type of the package, as cilium/hive's
// cell.HookContext is.
type hookContext context.Context

// Hook hands a hookContext to ext: it is converted as a context is.
func Hook(ctx hookContext) (err error) {
	ext.Do(ctx, func(ctx context.Context) { err = ctx.Err() })
	return err
}

// Selected waits for ctx through reflect.Select, as cilium/statedb's
// WatchSet.Wait does: the channel of ctx.Done() it hands to reflect is a
// Go channel, closed when ctx is done.
func Selected(ctx context.Context) int {
	chosen, _, _ := reflect.Select([]reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}})
	return chosen
}

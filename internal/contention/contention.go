// Package contention builds pprof profiles of explorations
// (github.com/google/pprof/profile): where executions spent their events,
// and where failing schedules preempted, by call stack, so that go tool
// pprof -top and -http show the hot spots of contention. The stacks are
// those of traced executions with sched.Options.Stacks, cut to the code
// under test (weft's own frames and the standard library's are dropped,
// but for events weft performs on its own);
// every sample is labeled with its test and operation (pprof -tagfocus
// op=Mutex.Lock).
package contention

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"
	"github.com/weftdev/weft/sched"
)

// The profile's sample types, in the order of each sample's values.
var sampleTypes = []*profile.ValueType{
	{Type: "events", Unit: "count"},
	{Type: "preemptions", Unit: "count"},
}

// A Builder accumulates samples. Its methods may be called from several
// goroutines.
type Builder struct {
	mu        sync.Mutex
	samples   map[key]*profile.Sample
	functions map[frame]*profile.Function
	locations map[frame]*profile.Location
	p         *profile.Profile
	start     time.Time
}

// A frame is a function at a line.
type frame struct {
	fn, file string
	line     int
}

// key identifies a sample: its stack (locations, innermost first) and
// labels.
type key struct {
	stack    string
	test, op string
}

// New returns an empty Builder.
func New() *Builder {
	return &Builder{
		samples:   map[key]*profile.Sample{},
		functions: map[frame]*profile.Function{},
		locations: map[frame]*profile.Location{},
		p:         &profile.Profile{SampleType: sampleTypes, DefaultSampleType: "events", Period: 1, PeriodType: &profile.ValueType{Type: "events", Unit: "count"}},
		start:     time.Now(),
	}
}

// AddEvents counts the events of a traced execution of test by their call
// stacks (the execution must have been run with sched.Options.Stacks).
func (b *Builder) AddEvents(test string, r *sched.Result) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range r.Trace {
		b.add(test, e, 0)
	}
}

// AddPreemptions counts the preemptions of a traced failing execution of
// test (its schedule's) by the call stacks of the events they preempted.
func (b *Builder) AddPreemptions(test string, r *sched.Result) {
	at := map[[2]any]sched.Event{}
	for _, e := range r.Trace {
		at[[2]any{e.G, e.N}] = e
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range r.Schedule() {
		if c.Kind != sched.RunChoice || !c.Preempt {
			continue
		}
		if e, ok := at[[2]any{c.G, c.N}]; ok {
			b.add(test, e, 1)
		}
	}
}

// add counts one event in the sample type of index value. Called with b.mu
// held.
func (b *Builder) add(test string, e sched.Event, value int) {
	locs := b.stack(e.Stack)
	if len(locs) == 0 {
		return
	}
	k := key{test: test, op: e.Op}
	for _, l := range locs {
		k.stack += fmt.Sprintf("%d,", l.ID)
	}
	s, ok := b.samples[k]
	if !ok {
		s = &profile.Sample{Location: locs, Value: make([]int64, len(sampleTypes)),
			Label: map[string][]string{"test": {test}, "op": {e.Op}}}
		b.samples[k] = s
		b.p.Sample = append(b.p.Sample, s)
	}
	s.Value[value]++
}

// stack returns the locations of a stack's frames that are the code under
// test, innermost first; for an event weft's machinery performs on its own
// (the Done of a WaitGroup.Go), its frames but the runtime's.
func (b *Builder) stack(pcs []uintptr) []*profile.Location {
	var user, weft []frame
	frames := runtime.CallersFrames(pcs)
	for more := len(pcs) > 0; more; {
		var f runtime.Frame
		f, more = frames.Next()
		fr := frame{fn: f.Function, file: f.File, line: f.Line}
		switch {
		case f.Function == "":
		case !sched.Internal(f.Function, f.File):
			user = append(user, fr)
		case !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "internal/"):
			weft = append(weft, fr)
		}
	}
	if len(user) == 0 {
		user = weft
	}
	locs := make([]*profile.Location, len(user))
	for i, f := range user {
		locs[i] = b.location(f)
	}
	return locs
}

func (b *Builder) location(f frame) *profile.Location {
	if l, ok := b.locations[f]; ok {
		return l
	}
	fk := frame{fn: f.fn, file: f.file}
	fn, ok := b.functions[fk]
	if !ok {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.fn, SystemName: f.fn, Filename: f.file}
		b.functions[fk] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Line: []profile.Line{{Function: fn, Line: int64(f.line)}}}
	b.locations[f] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

// Profile returns the profile built so far, a copy.
func (b *Builder) Profile() *profile.Profile {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.p.Copy()
	p.TimeNanos = b.start.UnixNano()
	p.DurationNanos = int64(time.Since(b.start))
	return p
}

// Write writes the profile built so far to w, gzipped, as pprof reads it.
func (b *Builder) Write(w io.Writer) error {
	return b.Profile().Write(w)
}

// WriteFile writes the profile to path, atomically.
func (b *Builder) WriteFile(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-profile-*")
	if err != nil {
		return fmt.Errorf("contention: %w", err)
	}
	defer os.Remove(f.Name())
	if err := b.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("contention: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("contention: %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("contention: %w", err)
	}
	return nil
}

// Merge reads profiles written by Write (of several processes) and merges
// them into one.
func Merge(paths []string) (*profile.Profile, error) {
	var ps []*profile.Profile
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("contention: %w", err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("contention: %s: %w", path, err)
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return New().Profile(), nil
	}
	p, err := profile.Merge(ps)
	if err != nil {
		return nil, fmt.Errorf("contention: merging %d profiles: %w", len(ps), err)
	}
	return p, nil
}

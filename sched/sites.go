package sched

import "runtime"

// siteSlots is the number of program counters a siteCache holds: the
// distinct call sites of weft's primitives in a test are far fewer.
const siteSlots = 1 << 12

// A siteCache memoizes the site of a frame by its program counter, for a
// traced execution, which names the site of each of its events: resolving
// a program counter to its function, file and line took 80% of the traced
// replay of a runaway of 33 million events (xsync's
// TestMapParallelRangeRelaxed), where the stacks of the events come from a
// few dozen sites. runtime.Callers gives one counter per logical frame,
// inlined ones included, so a counter alone tells its frame. The cache is
// direct-mapped, a fixed array rather than a Go map: it is written by the
// goroutine that holds the baton, unseen by the race detector (see package
// internal/race).
type siteCache struct {
	slots [siteSlots]siteSlot
}

type siteSlot struct {
	pc   uintptr // 0: empty
	site string  // "": weft's or Go's frame, or one without a file
}

// callerSite is CallerSite, through the cache: the file:line of the
// innermost frame of the calling goroutine that is user code, skipping
// skip frames first.
//
//go:norace
func (s *siteCache) callerSite(skip int) string {
	var pcs [32]uintptr
	// Most events are a few frames below their user frame: unwind those
	// first, and the whole stack only if they are all internal.
	n := runtime.Callers(skip+2, pcs[:8])
	if site, ok := s.first(pcs[:n]); ok || n < 8 {
		return site
	}
	n = runtime.Callers(skip+2, pcs[:])
	site, _ := s.first(pcs[8:n])
	return site
}

// first returns the site of the first frame among pcs that is user code.
//
//go:norace
func (s *siteCache) first(pcs []uintptr) (string, bool) {
	for _, pc := range pcs {
		slot := &s.slots[(pc^pc>>12)%siteSlots]
		if slot.pc != pc {
			slot.pc, slot.site = pc, frameSite(pc)
		}
		if slot.site != "" {
			return slot.site, true
		}
	}
	return "", false
}

// frameSite returns the site of the frame of a program counter that
// runtime.Callers gave, or "" if it is weft's or Go's, or has no file.
func frameSite(pc uintptr) string {
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	if Internal(f.Function, f.File) || f.File == "" {
		return ""
	}
	return Site(f.File, f.Line)
}

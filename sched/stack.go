package sched

import (
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/weftdev/weft/internal/frames"
)

// The prefixes of the names of the controller's own functions: package
// sched's, and those of weft's internal packages.
const (
	schedPrefix        = "github.com/weftdev/weft/sched."
	weftInternalPrefix = "github.com/weftdev/weft/internal/"
)

// goPrefixes are Go's functions that are machinery rather than the code
// under test, for frames whose file is not known.
var goPrefixes = []string{"runtime.", "runtime/", "internal/", "testing."}

// Internal reports whether a frame belongs to weft's machinery or to Go's
// standard library rather than to the code under test. Test files of
// weft's own packages are user code.
func Internal(function, file string) bool {
	if strings.HasSuffix(file, "_test.go") {
		return false
	}
	if file != "" && (frames.WeftFile(file) || frames.StdFile(file)) {
		return true
	}
	if frames.WeftFunction(function) {
		return true
	}
	for _, p := range goPrefixes {
		if strings.HasPrefix(function, p) {
			return true
		}
	}
	return false
}

// Site formats a file and line as shown to users: the file's base name.
func Site(file string, line int) string {
	// Not fmt: under the race detector, fmt's pool of printers would
	// order the goroutines that format (see package internal/race).
	return filepath.Base(file) + ":" + strconv.Itoa(line)
}

// CallerSite returns the file:line of the innermost frame of the calling
// goroutine that is user code, skipping skip frames first.
func CallerSite(skip int) string {
	var pcs [32]uintptr
	n := runtime.Callers(skip+2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !Internal(f.Function, f.File) && f.File != "" {
			return Site(f.File, f.Line)
		}
		if !more {
			return ""
		}
	}
}

// callers returns the program counters of the calling goroutine's stack,
// innermost first, skipping skip frames first, in a slice of its own.
//
//go:norace
func callers(skip int) []uintptr {
	var pcs [64]uintptr
	n := runtime.Callers(skip+2, pcs[:])
	out := make([]uintptr, n)
	for i := range n {
		out[i] = pcs[i]
	}
	return out
}

// userSite returns the file:line of the innermost user frame of a stack
// dump block, and the block's frames without weft's internal ones and
// without the runtime's goroutine header, whose state would only show
// where the controller parks the goroutine.
func userSite(block string) (site, stack string) {
	lines := strings.Split(block, "\n")
	var kept []string
	for i := 1; i+1 < len(lines); i += 2 {
		fn, loc := lines[i], strings.TrimSpace(lines[i+1])
		if j := strings.LastIndexByte(loc, ' '); j > 0 && strings.HasPrefix(loc[j+1:], "+0x") {
			loc = loc[:j]
		}
		file, line := loc, 0
		if j := strings.LastIndexByte(loc, ':'); j > 0 {
			file = loc[:j]
			line, _ = strconv.Atoi(loc[j+1:])
		}
		name := strings.TrimPrefix(fn, "created by ")
		if j := strings.LastIndexByte(name, '('); j > 0 && !strings.HasPrefix(fn, "created by ") {
			name = name[:j]
		}
		if j := strings.Index(name, " in goroutine "); j > 0 {
			name = name[:j]
		}
		if Internal(name, file) {
			continue
		}
		if site == "" && !strings.HasPrefix(fn, "created by ") {
			site = Site(file, line)
		}
		kept = append(kept, fn, "\t"+loc)
	}
	return site, strings.Join(kept, "\n")
}

func itoa(n int) string { return strconv.Itoa(n) }

// stdCreator returns the function of the standard library whose go
// statement started the goroutine of a stack dump block ("net/http.(*Server).Serve"),
// or "" if user code (or weft) started it, or the block does not say.
func stdCreator(block string) string {
	name, file := creator(block)
	if !frames.StdFile(file) {
		return ""
	}
	return name
}

// plainCreator returns the function whose go statement started the
// goroutine of a stack dump block, if it is none of weft's runtime
// packages' ("" if it is, or the block does not say): under weft test,
// code weft does not rewrite (see Options.Rewritten).
func plainCreator(block string) string {
	name, _ := creator(block)
	return name
}

// creator returns the function whose go statement started the goroutine
// of a stack dump block, and its file; none if weft's runtime started it,
// or the block does not say.
func creator(block string) (name, file string) {
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	n := len(lines)
	if n < 2 || !strings.HasPrefix(lines[n-2], "created by ") {
		return "", ""
	}
	name = strings.TrimPrefix(lines[n-2], "created by ")
	if j := strings.Index(name, " in goroutine "); j > 0 {
		name = name[:j]
	}
	file = strings.TrimSpace(lines[n-1])
	if j := strings.LastIndexByte(file, ':'); j > 0 {
		file = file[:j]
	}
	if frames.WeftFunction(name) {
		return "", ""
	}
	return name, file
}

package sched

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// internalPrefixes are the packages whose frames are weft's machinery, not
// the user's code: sites and stacks shown to users skip them.
var internalPrefixes = []string{
	"github.com/weftdev/weft/sched.",
	"github.com/weftdev/weft/sim.",
	"github.com/weftdev/weft/explore.",
	"github.com/weftdev/weft/internal/",
	"github.com/weftdev/weft/testing.",
	"runtime.",
	"testing.",
}

// Internal reports whether a frame belongs to weft's machinery or the Go
// runtime rather than to the code under test. Test files of weft's own
// packages are user code.
func Internal(function, file string) bool {
	if strings.HasSuffix(file, "_test.go") {
		return false
	}
	for _, p := range internalPrefixes {
		if strings.HasPrefix(function, p) {
			return true
		}
	}
	return false
}

// Site formats a file and line as shown to users: the file's base name.
func Site(file string, line int) string {
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
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

// callerPC returns the program counter of the innermost user frame of the
// calling goroutine, for the trace.
func callerPC() uintptr {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !Internal(f.Function, f.File) && f.File != "" {
			return f.PC
		}
		if !more {
			return 0
		}
	}
}

// PCSite formats the site of a program counter from callerPC.
func PCSite(pc uintptr) string {
	if pc == 0 {
		return ""
	}
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	return Site(f.File, f.Line)
}

// goid returns the runtime's id of the calling goroutine. It parses the
// header of runtime.Stack ("goroutine 18 [running]:"), which costs about a
// microsecond: it is called once per controlled goroutine, so that blocked
// goroutines can be found in a dump of all stacks.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		id, err := strconv.ParseInt(string(b[:i]), 10, 64)
		if err == nil {
			return id
		}
	}
	return 0
}

// A goroutineDump is one goroutine of runtime.Stack(all).
type goroutineDump struct {
	id    int64
	state string // "chan receive", "running", ...
	text  string // the whole block, header included
}

// dumpAll returns the stacks of all goroutines, by runtime id.
func dumpAll() map[int64]goroutineDump {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := make(map[int64]goroutineDump)
	for _, block := range strings.Split(string(buf), "\n\n") {
		d, ok := parseDumpHeader(block)
		if ok {
			out[d.id] = d
		}
	}
	return out
}

func parseDumpHeader(block string) (goroutineDump, bool) {
	header, _, _ := strings.Cut(block, "\n")
	rest, ok := strings.CutPrefix(header, "goroutine ")
	if !ok {
		return goroutineDump{}, false
	}
	idText, rest, ok := strings.Cut(rest, " [")
	if !ok {
		return goroutineDump{}, false
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return goroutineDump{}, false
	}
	state, _, _ := strings.Cut(rest, "]")
	state, _, _ = strings.Cut(state, ",") // "chan receive, 2 minutes"
	return goroutineDump{id: id, state: state, text: block}, true
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

// blockingState reports whether a goroutine state from a stack dump means
// the goroutine waits for something, rather than running.
func blockingState(state string) bool {
	switch state {
	case "running", "runnable", "preempted", "":
		return false
	}
	return true
}

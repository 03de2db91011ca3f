package record

import (
	"fmt"
	"strings"

	"github.com/weftdev/weft/sched"
)

// userSite returns the file:line of the innermost frame of a stack (as
// debug.Stack prints it) that is user code, not weft's or the runtime's.
func userSite(stack string) string {
	lines := strings.Split(stack, "\n")
	for i := 1; i+1 < len(lines); i += 2 {
		fn := strings.TrimSpace(lines[i])
		if p := strings.LastIndexByte(fn, '('); p > 0 {
			fn = fn[:p]
		}
		loc := strings.TrimSpace(lines[i+1])
		if sp := strings.IndexByte(loc, ' '); sp > 0 {
			loc = loc[:sp]
		}
		c := strings.LastIndexByte(loc, ':')
		if c < 0 {
			continue
		}
		if !sched.Internal(fn, loc[:c]) {
			var line int
			fmt.Sscan(loc[c+1:], &line)
			return sched.Site(loc[:c], line)
		}
	}
	return ""
}

func sprint(v any) string { return fmt.Sprint(v) }

package weft

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/weftdev/weft/internal/text"
	"github.com/weftdev/weft/sched"
)

// Confirmation in a fresh process. A test that keeps state from one run to
// the next (a package variable, a default pool its first run closes: ants'
// TestAntsPool hangs under go test -count=2) starts every execution after
// its first from what the earlier ones left; so does the first execution
// of a test after others (groupcache's tests register their groups in a
// package-level registry, guarded by a package-level sync.Once that weft
// starts afresh in each execution). A failure found there may be that
// state's, not the schedule's, and the saved schedule would pass when go
// test follows it in a fresh process. So a failure found after any other
// execution of the process is confirmed before it is reported: the test
// binary runs again, following the saved schedule alone, as the replay
// command will. If it passes there, the entry is removed and the test logs
// why instead of failing.

// confirmTimeout bounds the fresh process: one execution, followed.
const confirmTimeout = 5 * time.Minute

// A verdict is what the fresh process made of a saved schedule.
type verdict int

const (
	undecided verdict = iota // it did not run the schedule: the failure stands
	reproduced
	refuted // it followed the schedule, and the test passed
	differs // it followed the schedule, and the test failed otherwise
)

// confirmFresh follows the entry saved at path in a fresh process of the
// test binary, for the test named test; for a verdict of differs, it also
// returns the failure the fresh process reported.
func confirmFresh(test, path string) (verdict, string) {
	exe, err := os.Executable()
	if err != nil {
		return undecided, ""
	}
	name := test + "/" + filepath.Base(path)
	ctx, cancel := context.WithTimeout(context.Background(), confirmTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, childArgs(name, "-test.v=true")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), confirmingEnv+"=1")
	err = cmd.Run()
	switch s := out.String(); {
	case ctx.Err() != nil || !strings.Contains(s, "=== RUN   "+name+"\n"):
		return undecided, ""
	case err == nil && strings.Contains(s, "--- PASS: "+name+" "):
		return refuted, ""
	case strings.Contains(s, "--- FAIL: "+name+" ") && strings.Contains(s, savedAs):
		return differs, failureLine(s)
	case strings.Contains(s, "--- FAIL: "+name+" "):
		return reproduced, ""
	}
	return undecided, ""
}

// failureLine returns the summary of the failure a followed schedule
// reported (its "failure:" line), "" if there is none.
func failureLine(out string) string {
	for line := range strings.Lines(out) {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "failure: "); ok {
			return f
		}
	}
	return ""
}

// differsNote is what a failure's report adds when a fresh process
// following its schedule failed otherwise.
func differsNote(fresh string) string {
	return fmt.Sprintf("  in a fresh process, as go test will follow it, this schedule fails otherwise: %s; the failure above came from state that earlier executions left in the process",
		text.OrDash(fresh))
}

// outsideFresh reports whether a fresh process's failure line is an
// Outside failure: a goroutine outside the execution used its objects,
// which no replay shows again.
func outsideFresh(fresh string) bool {
	return strings.HasPrefix(fresh, sched.Outside.String()+" ")
}

// outsideFreshError says why a failure whose fresh process failed as
// Outside is not saved: neither failure is one a replay shows.
func outsideFreshError(fresh string) error {
	return fmt.Errorf("in a fresh process, as go test will follow it, the schedule fails otherwise: %s; "+
		"the failure above came from state that earlier executions left in the process, and the fresh process's from a goroutine outside the execution, which weft does not run", fresh)
}

// savedAs begins the line of a followed schedule's report that names the
// failure it was saved for, when it failed otherwise.
const savedAs = "  (saved as: "

// confirmingEnv marks the fresh process: it confirms nothing itself.
const confirmingEnv = "WEFT_CONFIRMING"

// confirming reports whether this process is a fresh process following a
// schedule for its parent.
func confirming() bool { return os.Getenv(confirmingEnv) != "" }

// refutedNote is what a test logs for a failure that a fresh process did
// not reproduce, with the failures before it that did not replay: in a
// test that does not run the same twice, no replay in this process tells.
// path is the entry removed, "" for a failure that was not saved (it did
// not replay identically in this process).
func refutedNote(f *Finding, path string) string {
	saved := "not saved"
	if path != "" {
		saved = "not saved (" + path + " removed), and not explored further"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "weft: execution %d failed (%s), but passes when a fresh process follows its schedule, as go test will: "+
		"the failure came from state that earlier executions (this test's, or earlier tests') left in the process (a package variable, a registry, a closed default pool, a sync.Once); "+
		"%s. weft runs a test many times in one process: go test -count=2 shows whether it runs the same twice\n",
		f.Found.Iteration+1, f.Failure.Summary(), saved)
	writeUnreplayed(&b, f.Unreplayed, f.Unlisted)
	return strings.TrimRight(b.String(), "\n")
}

package weft_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// TestTimelineShowsLastPreemptions: a report shows the last 16
// preemptions of an execution that keeps more (a blocked failure, not
// minimized: eapache/channels' showed up to 16,000, 40,000 lines each).
func TestTimelineShowsLastPreemptions(t *testing.T) {
	const n = 40
	r := &sched.Result{}
	var s sched.Schedule
	for i := 1; i <= n; i++ {
		r.Trace = append(r.Trace, sched.Event{G: "0", N: i, Op: "Yield", Site: "p.go:" + strconv.Itoa(i)})
		s = append(s, sched.Choice{Kind: sched.RunChoice, G: "0", N: i, Next: "0.1", Preempt: true})
	}
	r.SetSchedule(s)
	var b strings.Builder
	weft.WriteTimeline(&b, r)
	out := b.String()
	if !strings.Contains(out, "preemptions 1 to 24 of 40 not shown") {
		t.Errorf("no note of the preemptions left out:\n%s", out)
	}
	if got := strings.Count(out, "  preemption "); got != 16 {
		t.Errorf("%d preemptions shown, want 16:\n%s", got, out)
	}
	if strings.Contains(out, "preemption 24 of 40") || !strings.Contains(out, "preemption 25 of 40") {
		t.Errorf("not the last 16 shown:\n%s", out)
	}
}

// TestTooLongNotSaved: a schedule minimization could not shrink below
// MaxSavedChoices is not written to the corpus (karlseguin/ccache's was
// 320 MB); the report says why and how to find it again, and a short one
// is saved as ever.
func TestTooLongNotSaved(t *testing.T) {
	dir := t.TempDir()
	long := make(sched.Schedule, weft.MaxSavedChoices+1)
	for i := range long {
		long[i] = sched.Choice{Kind: sched.RunChoice, G: "0", N: i + 1, Next: "0.1", Preempt: true}
	}
	report, path := weft.SaveFinding(dir, "TestLong", long)
	if path != "" {
		t.Errorf("saved to %s", path)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("the corpus directory holds %d files", len(entries))
	}
	for _, want := range []string{"not saved: its schedule has 65537 choices", "-explore.seed 0x5eed -explore.iters 3"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report does not say %q:\n%s", want, report)
		}
	}
	if len(report) > 10_000 {
		t.Errorf("a report of %d bytes", len(report))
	}
	if _, path := weft.SaveFinding(dir, "TestShort", long[:10]); path == "" {
		t.Error("a short schedule was not saved")
	}
}

// TestWaitingGrouped: goroutines that wait in the same operation at the
// same place with the same stack are listed as one group, their stack
// once; the others one by one, as before.
func TestWaitingGrouped(t *testing.T) {
	f := &sched.Failure{Kind: sched.Leak}
	for i := range 6 {
		f.Waiting = append(f.Waiting, sched.Waiting{Goroutine: "0." + strconv.Itoa(i+1), Op: "Chan.Send", Site: "cache.go:204", Stack: "p.set\n\tcache.go:204"})
	}
	f.Waiting = append(f.Waiting, sched.Waiting{Goroutine: "0.9", Op: "Chan.Send", Site: "cache.go:196", Stack: "p.delete\n\tcache.go:196"})
	var b strings.Builder
	weft.WriteFailure(&b, f, nil)
	out := b.String()
	for _, want := range []string{
		"goroutines 0.1, 0.2, 0.3, 0.4 and 2 more blocked in Chan.Send at cache.go:204\n",
		"goroutine 0.9 blocked in Chan.Send at cache.go:196\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "p.set"); n != 1 {
		t.Errorf("the shared stack written %d times:\n%s", n, out)
	}
}

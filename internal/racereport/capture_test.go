package racereport

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestCapture runs captureChild in a process of its own, whose standard
// error the test reads: what an execution prints goes through, but for the
// reports it claims.
func TestCapture(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("standard error cannot be redirected here")
	}
	if os.Getenv("WEFT_CAPTURE_CHILD") != "" {
		captureChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCapture$")
	cmd.Env = append(os.Environ(), "WEFT_CAPTURE_CHILD=1", "GORACE=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr.String())
	}
	if !strings.Contains(string(out), "reports: 2\n") {
		t.Errorf("the child read back the wrong reports:\n%s", out)
	}
	// The claimed report's lines are gone; the lines around it stay.
	want := "before\n" + report + "=== RUN   TestHidden\n    p_test.go:38: after\n" + "after\n"
	if got := stderr.String(); got != want {
		t.Errorf("standard error:\n%s\nwant\n%s", got, want)
	}
}

// captureChild prints two reports to its standard error during a session,
// and claims the second: only the first shows.
func captureChild() {
	s := Begin()
	claimed := strings.Replace(report, "10:", "11:", 1)
	fmt.Fprint(os.Stderr, "before\n", report, claimed)
	rs := s.Reports()
	fmt.Printf("reports: %d\n", len(rs))
	for _, r := range rs {
		if r.Accesses[0].Goroutine == 11 {
			s.Claim(r)
		}
	}
	fmt.Fprint(os.Stderr, "after\n")
	s.End()
}

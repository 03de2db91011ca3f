package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkWorkers measures the executions per second of an exploration
// of two goroutines that take a lock five times each, with one worker (the
// test process) and with two worker processes, under go test -explore (the
// body written with sim) and weft test -explore (plain Go). The metric is
// the exploration's own executions and time, as the test logs them:
//
//	go test -run XXX -bench Workers -benchtime 1x -count 6 ./cmd/weft | benchstat -col /workers -
func BenchmarkWorkers(b *testing.B) {
	plain := plainModule(b)
	if err := os.CopyFS(filepath.Join(plain, "bench"), os.DirFS("testdata/bench")); err != nil {
		b.Fatal(err)
	}
	simDir := simModule(b)
	const iters = 300000
	for _, command := range []string{"gotest", "wefttest"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("cmd=%s/workers=%d", command, workers), func(b *testing.B) {
				var execs int
				var took time.Duration
				for range b.N {
					dir := plain
					if command == "gotest" {
						dir = simDir
					}
					n, d := exploreLocks(b, dir, command, workers, iters)
					execs += n
					took += d
				}
				b.ReportMetric(float64(execs)/took.Seconds(), "execs/s")
			})
		}
	}
}

// simModule copies testdata/bench into a scratch module that requires this
// checkout of weft, for go test.
func simModule(b *testing.B) string {
	root, err := moduleRoot()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	gomod := "module example.com/bench\n\ngo 1.26\n\nrequire github.com/weftdev/weft v0.0.0\n\nreplace github.com/weftdev/weft => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		b.Fatal(err)
	}
	sum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "bench"), os.DirFS("testdata/bench")); err != nil {
		b.Fatal(err)
	}
	return dir
}

var noFailure = regexp.MustCompile(`no failure in (\d+) executions, ([^ ]+) \(`)

// exploreLocks runs one exploration of the locks body and returns its
// executions and time.
func exploreLocks(b *testing.B, dir, command string, workers, iters int) (int, time.Duration) {
	args := []string{"-count=1", "-run", "TestLocks", "-v", "-explore", "-explore.seed", "1",
		"-explore.iters", strconv.Itoa(iters), "-explore.workers", strconv.Itoa(workers)}
	var out strings.Builder
	if command == "gotest" {
		cmd := exec.Command("go", append([]string{"test", "./bench/simlocks"}, args...)...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if err := cmd.Run(); err != nil {
			b.Fatalf("go test: %v\n%s", err, out.String())
		}
	} else if code, err := runTest(dir, append([]string{"./bench/locks"}, args...), &out, &out); err != nil || code != 0 {
		b.Fatalf("weft test: exit %d, %v\n%s", code, err, out.String())
	}
	m := noFailure.FindStringSubmatch(out.String())
	if m == nil {
		b.Fatalf("%s: no summary in\n%s", command, out.String())
	}
	n, _ := strconv.Atoi(m[1])
	d, err := time.ParseDuration(m[2])
	if err != nil || n != iters {
		b.Fatalf("%s: %d executions in %q (%v)", command, n, m[2], err)
	}
	return n, d
}

//go:build unix

// Command goker measures weft test on GoBench's GoKer kernels (Yuan et al.,
// CGO 2021): 103 small tests, each reduced from a real concurrency bug of
// Docker, Kubernetes, etcd, gRPC, CockroachDB, Hugo, Istio, Serving or
// Syncthing, 68 blocking and 35 not. The kernels are copied, unchanged, into
// a scratch module (go 1.21, so each loop keeps one variable as the kernels
// were written for), and each kernel runs, one at a time:
//
//   - go test -count=N -timeout T, the baseline, with -race for the
//     non-blocking kernels: does the real scheduler show the bug (a failure,
//     Go's "all goroutines are asleep", a hang, or a data race)? A leak
//     passes: go test has no leak check.
//   - weft test -explore with a fixed budget, one worker, a fixed seed, and
//     -race for the non-blocking kernels (a data race is found only by the
//     race detector).
//
// It prints one line per kernel (found: the failure's kind and the
// execution that found it; missed; not built; timed out; or found another
// failure than the bug's kind, to be read), then a table by GoBench's class.
//
// GoBench is not fetched: give its checkout (the folder holding goker/ and
// configures/).
//
//	git clone https://github.com/timmyyuan/gobench /tmp/gobench
//	go build -o /tmp/weft ./cmd/weft
//	go run ./scripts/goker -weft /tmp/weft -gobench /tmp/gobench/gobench [-work DIR] [-only moby_28462,...]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// budget is what each kernel is given.
type budget struct {
	iters   int           // weft: executions at most
	explore time.Duration // weft: exploration time at most
	seed    string        // weft: the base seed, so that a run is reproduced
	timeout time.Duration // each command: wall time before it is killed
	goRuns  int           // go test: runs of the baseline
	goTime  time.Duration // go test: its -timeout
}

func main() {
	weft := flag.String("weft", "weft", "the weft binary")
	gobench := flag.String("gobench", "", "GoBench's folder holding goker/ and configures/ (required)")
	work := flag.String("work", "", "the scratch folder (default: a new temporary one)")
	only := flag.String("only", "", "comma-separated kernels to run (project_id, as moby_28462); default all")
	var b budget
	flag.IntVar(&b.iters, "iters", 1000, "weft: executions per kernel at most")
	flag.DurationVar(&b.explore, "time", 20*time.Second, "weft: exploration time per kernel at most")
	flag.StringVar(&b.seed, "seed", "1", "weft: -explore.seed")
	flag.DurationVar(&b.timeout, "timeout", 3*time.Minute, "wall time each command is given before it is killed")
	flag.IntVar(&b.goRuns, "goruns", 3, "go test: -count of the baseline")
	flag.DurationVar(&b.goTime, "gotimeout", 5*time.Second, "go test: -timeout of the baseline")
	extra := flag.String("weftflags", "", "more flags for weft test, space-separated (as -explore.strategy pct)")
	flag.Parse()
	if *gobench == "" {
		fatal(fmt.Errorf("-gobench is required: the folder of a GoBench checkout holding goker/ and configures/"))
	}
	if *work == "" {
		dir, err := os.MkdirTemp("", "goker-")
		if err != nil {
			fatal(err)
		}
		*work = dir
	}
	kernels, err := load(*gobench)
	if err != nil {
		fatal(err)
	}
	kernels = filter(kernels, *only)
	mod, err := scratch(*gobench, *work)
	if err != nil {
		fatal(err)
	}
	logs := filepath.Join(*work, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		fatal(err)
	}
	weftArgs := weftArgs(b, strings.Fields(*extra))
	var rows []outcome
	for i, k := range kernels {
		o := measure(k, mod, logs, *weft, weftArgs, b)
		fmt.Fprintf(os.Stderr, "goker: %d/%d %s\n", i+1, len(kernels), o.line())
		rows = append(rows, o)
	}
	report(os.Stdout, rows, append([]string{"weft", "test"}, weftArgs...), b)
	fmt.Printf("\nlogs: %s\n", logs)
}

// weftArgs are the flags every kernel's weft test gets (-race aside).
func weftArgs(b budget, extra []string) []string {
	args := []string{"-count=1", "-explore",
		fmt.Sprintf("-explore.iters=%d", b.iters),
		fmt.Sprintf("-explore.time=%v", b.explore),
		"-explore.workers=1", "-explore.seed=" + b.seed, "-explore.quiet"}
	return append(args, extra...)
}

func filter(ks []kernel, only string) []kernel {
	if only == "" {
		return ks
	}
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []kernel
	for _, k := range ks {
		if want[k.name] {
			out = append(out, k)
		}
	}
	return out
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "goker:", err)
	os.Exit(1)
}

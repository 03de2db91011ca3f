// Command instructions counts the machine instructions one execution of a
// benchmark costs, by function, with valgrind's callgrind: a measure that a
// loaded machine does not disturb, where a timed benchmark there varies by
// half. It runs the test binary twice under callgrind, with -test.benchtime
// set to n and 2n iterations, and divides the difference by n, so that the
// process's start and the benchmark's first round cancel out. Instructions
// are not time (a cache miss, an atomic or a mispredicted branch costs more
// than its one instruction): compare two builds with it, and take the
// figures that count with go test -bench on a quiet machine.
//
//	go test -c -o /tmp/sched.test ./sched
//	go run ./scripts/instructions -bin /tmp/sched.test -bench 'Executions$/8x100$' -n 2000
//
// It needs valgrind (apt-get install valgrind). The Go runtime's
// asynchronous preemption is turned off (GODEBUG=asyncpreemptoff=1):
// callgrind does not survive its signals.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	bin := flag.String("bin", "", "the test binary (go test -c)")
	bench := flag.String("bench", "", "the benchmark, as -test.bench takes it: one only")
	n := flag.Int("n", 10000, "iterations: the runs take n and 2n")
	top := flag.Int("top", 25, "functions to list")
	flag.Parse()
	if *bin == "" || *bench == "" || *n <= 0 {
		fmt.Fprintln(os.Stderr, "usage: instructions -bin TEST_BINARY -bench REGEXP [-n N] [-top K]")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "instructions")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	small, err := profile(*bin, *bench, *n, dir)
	if err != nil {
		fail(err)
	}
	large, err := profile(*bin, *bench, 2**n, dir)
	if err != nil {
		fail(err)
	}
	report(os.Stdout, small, large, *n, *top)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "instructions:", err)
	os.Exit(1)
}

// profile runs bin's benchmark for n iterations under callgrind and
// returns the instructions by function.
func profile(bin, bench string, n int, dir string) (map[string]float64, error) {
	out := filepath.Join(dir, fmt.Sprintf("callgrind.%d", n))
	cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file="+out,
		bin, "-test.run", "XXX", "-test.bench", bench, "-test.benchtime", fmt.Sprintf("%dx", n), "-test.cpu", "1")
	cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("callgrind on %s (%d iterations): %w\n%s", bin, n, err, lastLines(stderr.String(), 10))
	}
	annotated, err := exec.Command("callgrind_annotate", "--auto=no", "--tree=none", "--threshold=100", out).Output()
	if err != nil {
		return nil, fmt.Errorf("callgrind_annotate %s: %w", out, err)
	}
	return parse(annotated)
}

// A line of callgrind_annotate's table: a count, maybe a percentage, then
// file:function and the object file.
var row = regexp.MustCompile(`^\s*([0-9,]+)\s+(?:\([^)]*\)\s+)?(\S.*?)(?:\s+\[[^\]]*\])?\s*$`)

// parse reads callgrind_annotate's table of instructions by function.
func parse(annotated []byte) (map[string]float64, error) {
	counts := make(map[string]float64)
	in := false
	sc := bufio.NewScanner(bytes.NewReader(annotated))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "file:function") {
			in = true
			continue
		}
		m := row.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		count, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			return nil, fmt.Errorf("count %q: %w", m[1], err)
		}
		counts[function(m[2])] += count
	}
	if len(counts) == 0 {
		return nil, fmt.Errorf("no function in callgrind_annotate's output")
	}
	return counts, sc.Err()
}

// function shortens file:function to the function, merging the recursive
// instances callgrind tells apart ('2).
func function(s string) string {
	if i := strings.LastIndex(s, ".go:"); i >= 0 {
		s = s[i+len(".go:"):]
	} else if i := strings.LastIndex(s, ".s:"); i >= 0 {
		s = s[i+len(".s:"):]
	}
	if i := strings.Index(s, "'"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimPrefix(s, "github.com/weftdev/weft/")
}

// report prints the instructions an iteration costs, in all and by
// function, largest first.
func report(w *os.File, small, large map[string]float64, n, top int) {
	type cost struct {
		fn string
		n  float64
	}
	var costs []cost
	total := 0.0
	for fn, c := range large {
		d := (c - small[fn]) / float64(n)
		total += d
		if d >= 0.5 {
			costs = append(costs, cost{fn, d})
		}
	}
	sort.Slice(costs, func(i, j int) bool { return costs[i].n > costs[j].n })
	fmt.Fprintf(w, "%10.0f instructions an iteration\n", total)
	for i, c := range costs {
		if i == top {
			break
		}
		fmt.Fprintf(w, "%10.1f  %5.1f%%  %s\n", c.n, 100*c.n/total, c.fn)
	}
}

func lastLines(s string, k int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > k {
		lines = lines[len(lines)-k:]
	}
	return strings.Join(lines, "\n")
}

// Command rss runs a command and samples its resident set size (VmRSS,
// Linux's /proc) at a fixed interval, then prints, for each minute of the
// run, the smallest, largest and mean sample: the measure of issue 10's
// "a long exploration keeps a flat RSS".
//
//	go test -c -o /tmp/abba.test ./examples/abba
//	go run ./scripts/rss -every 5s -- /tmp/abba.test -test.run TestFixed \
//		-explore -explore.time 10m -explore.workers 1
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

func main() {
	every := flag.Duration("every", 5*time.Second, "the interval between two samples")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: rss [-every d] -- command [args...]")
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		log.Fatalf("rss: starting %s: %v", flag.Arg(0), err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	var samples []sample
	tick := time.NewTicker(*every)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			report(samples)
			if err != nil {
				log.Fatalf("rss: %s: %v", flag.Arg(0), err)
			}
			return
		case <-tick.C:
			kb, err := residentKB(cmd.Process.Pid)
			if err != nil {
				continue // the process is ending
			}
			samples = append(samples, sample{time.Since(start), kb})
		}
	}
}

type sample struct {
	at time.Duration
	kb int
}

// residentKB reads the VmRSS line of the process's status.
func residentKB(pid int) (int, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// report prints the samples' smallest, largest and mean per minute.
func report(samples []sample) {
	fmt.Println("minute  samples  min MB  max MB  mean MB")
	for m := 0; ; m++ {
		lo, hi, sum, n := 0, 0, 0, 0
		for _, s := range samples {
			if int(s.at/time.Minute) != m {
				continue
			}
			if n == 0 || s.kb < lo {
				lo = s.kb
			}
			hi = max(hi, s.kb)
			sum += s.kb
			n++
		}
		if n == 0 {
			return
		}
		fmt.Printf("%6d  %7d  %6.1f  %6.1f  %7.1f\n", m, n, mb(lo), mb(hi), mb(sum)/float64(n))
	}
}

func mb(kb int) float64 { return float64(kb) / 1024 }

package sched

import (
	"bufio"
	"bytes"
	"fmt"
	"runtime/pprof"
	"strings"
	"time"
)

// watch waits for the execution to end. A controlled goroutine that blocks
// on something weft does not know (a raw channel, a sync.Mutex, I/O) never
// reaches its next event, and nothing else can run: after
// Options.BlockTimeout without progress, with the goroutine seen blocked in
// a dump of its stack, the execution is abandoned and reported as Blocked,
// so the test binary never hangs. A goroutine that computes for long
// without events is running, not blocked, and is left alone.
func (c *Controller) watch() *Result {
	interval := max(c.opts.BlockTimeout/4, time.Millisecond)
	timer := time.NewTimer(interval)
	defer timer.Stop()
	last := c.progress.Load()
	blockedSince := time.Time{}
	for {
		select {
		case <-c.done:
			return nil
		case <-timer.C:
		}
		timer.Reset(interval)
		if p := c.progress.Load(); p != last {
			last, blockedSince = p, time.Time{}
			continue
		}
		g := c.cur.Load()
		d, ok := dumpAll()[g.goid.Load()]
		if !ok || !blockingState(d.state) {
			blockedSince = time.Time{}
			continue
		}
		if blockedSince.IsZero() {
			blockedSince = time.Now()
		}
		if time.Since(blockedSince) < c.opts.BlockTimeout-interval {
			continue
		}
		// The goroutine is stuck: give up on the execution. Its goroutines
		// stay parked; if the stuck one ever wakes up, it exits at its next
		// event.
		c.abandoned.Store(true)
		site, stack := userSite(d.text)
		r := c.result()
		r.More = append(r.More[:0:0], r.More...)
		if r.Failure != nil {
			r.More = append([]*Failure{r.Failure}, r.More...)
		}
		r.Failure = &Failure{
			Kind:      Blocked,
			Goroutine: g.id,
			Site:      site,
			Stack:     stack,
			Message: fmt.Sprintf("goroutine %s blocked outside weft's control [%s] for %v: use weft's primitives (package sim) for everything that waits",
				g.id, d.state, c.opts.BlockTimeout),
		}
		return r
	}
}

// findEscapes looks for goroutines that escaped the controller: started with
// a plain go statement from a controlled goroutine, they carry the
// execution's profiler labels, and outlive it. Goroutines that end within a
// few milliseconds are given the time to.
func (c *Controller) findEscapes() *Failure {
	for attempt := 0; ; attempt++ {
		ws := labeledGoroutines("weft.exec", c.label)
		if len(ws) == 0 {
			return nil
		}
		if attempt == 6 {
			f := &Failure{Kind: Escape, Waiting: ws, Site: ws[0].Site,
				Message: fmt.Sprintf("%d goroutine(s) started with a plain go statement outlived the execution; start them with sim.Go so weft controls them", len(ws))}
			return f
		}
		time.Sleep(time.Millisecond << attempt)
	}
}

// labeledGoroutines returns the goroutines whose profiler labels include
// key=value, from the goroutine profile.
func labeledGoroutines(key, value string) []Waiting {
	var buf bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&buf, 1)
	want := fmt.Sprintf("%q:%q", key, value)
	var out []Waiting
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if !strings.Contains(rec, want) {
			continue
		}
		var frames []string
		site := ""
		sc := bufio.NewScanner(strings.NewReader(rec))
		for sc.Scan() {
			// "#	0x4dc536	main.main.func1+0x96	/tmp/proto/main.go:23"
			fields := strings.Fields(strings.TrimPrefix(sc.Text(), "#"))
			if len(fields) != 3 || !strings.HasPrefix(fields[0], "0x") {
				continue
			}
			fn, _, _ := strings.Cut(fields[1], "+0x")
			file, line, _ := strings.Cut(fields[2], ":")
			if Internal(fn, file) {
				continue
			}
			if site == "" {
				site = Site(file, atoi(line))
			}
			frames = append(frames, fn+"\n\t"+fields[2])
		}
		count, _, _ := strings.Cut(rec, " @ ")
		for range atoi(count) {
			out = append(out, Waiting{Op: "go statement", Site: site, Stack: strings.Join(frames, "\n")})
		}
	}
	return out
}

func atoi(s string) int {
	n := 0
	for _, r := range strings.TrimSpace(s) {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

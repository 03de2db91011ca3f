package main

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/weftdev/weft/internal/contention"
	"github.com/weftdev/weft/internal/text"
	"github.com/weftdev/weft/report"
)

// finish writes the run's report and profile, prints its summary, and
// returns the exit code: 1 if the run found a failure, or a test process
// (or a package's build) failed with no exploration to show for it.
func (n *nightly) finish() (int, error) {
	run := n.report()
	var errs []string
	if n.a.json != "" {
		if err := run.Write(n.a.json); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if n.a.profile != "" {
		if err := n.writeProfile(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	broken := n.summary(run)
	if len(errs) > 0 {
		return 0, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	if run.Failures() > 0 || broken > 0 {
		return 1, nil
	}
	return 0, nil
}

// report gathers the test processes' reports into the run's.
func (n *nightly) report() *report.Run {
	run := &report.Run{Started: n.start, ElapsedSeconds: time.Since(n.start).Seconds(), BudgetSeconds: n.a.total.Seconds()}
	run.Interrupted = n.interrupted
	if n.a.shard != "" {
		var s report.Shard
		fmt.Sscanf(n.a.shard, "%d/%d", &s.Index, &s.Count)
		run.Shard = &s
	}
	for _, t := range n.tests {
		if !t.ran {
			run.NotRun = append(run.NotRun, t.pkg.path+" "+t.name)
			continue
		}
		for _, rt := range t.tests {
			rt.Package = t.pkg.path
			run.Tests = append(run.Tests, rt)
		}
	}
	return run
}

// writeProfile merges the test processes' profiles into one.
func (n *nightly) writeProfile() error {
	var paths []string
	for _, t := range n.tests {
		for _, prof := range t.profs {
			if _, err := os.Stat(prof); err == nil {
				paths = append(paths, prof)
			}
		}
	}
	p, err := contention.Merge(paths)
	if err != nil {
		return err
	}
	f, err := os.Create(n.a.profile)
	if err != nil {
		return fmt.Errorf("-explore.profile: %w", err)
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("-explore.profile: %w", err)
	}
	return f.Close()
}

// summary prints, per test explored, its executions, their rate, the
// distinct failures found and the entries saved; then each failure with
// where it was saved, how to replay it and its timeline; then what was not
// explored. It returns how many tests or packages failed with no
// exploration to show for it.
func (n *nightly) summary(run *report.Run) (broken int) {
	w := n.stdout
	fmt.Fprintf(w, "\nweft nightly: %s", time.Since(n.start).Round(time.Second))
	if run.Shard != nil {
		fmt.Fprintf(w, ", shard %d/%d", run.Shard.Index, run.Shard.Count)
	}
	if run.Interrupted {
		fmt.Fprintf(w, ", interrupted")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "package\ttest\texecutions\texecs/s\tfailures\tsaved\t")
	var plain []string
	for _, t := range n.tests {
		if !t.ran {
			continue
		}
		if len(t.tests) == 0 {
			if t.failed {
				broken++
				plain = append(plain, fmt.Sprintf("%s %s failed (%s), with no weft exploration", n.relDir(t.pkg), t.name, t.note))
			} else {
				plain = append(plain, fmt.Sprintf("%s %s: not a weft test, ran once", n.relDir(t.pkg), t.name))
			}
			continue
		}
		for _, rt := range t.tests {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%d\t%d\t\n", n.relDir(t.pkg), rt.Test, rt.Executions, rt.ExecutionsPerSecond, len(rt.Failures), rt.Saved)
		}
	}
	tw.Flush()
	for _, rt := range run.Tests {
		for _, f := range rt.Failures {
			fmt.Fprintf(w, "\n%s %s: %s\n", rt.Dir, rt.Test, f.Summary)
			if f.Saved {
				fmt.Fprintf(w, "  saved: %s\n  replay: %s\n", f.Corpus, f.Replay)
			} else {
				fmt.Fprintf(w, "  not saved: %s\n", f.NotSaved)
			}
			if f.HTML != "" {
				fmt.Fprintf(w, "  timeline: %s\n", (&url.URL{Scheme: "file", Path: filepath.ToSlash(f.HTML)}).String())
			}
		}
	}
	if len(plain) > 0 {
		fmt.Fprintln(w)
		for _, p := range plain {
			fmt.Fprintln(w, p)
		}
	}
	for _, p := range n.pkgs {
		if p.err != "" {
			broken++
			fmt.Fprintf(w, "\n%s: %s\n", n.relDir(p), strings.TrimSpace(p.err))
		}
	}
	notRun := map[string]int{}
	for _, t := range n.tests {
		if !t.ran {
			notRun[t.note]++
		}
	}
	for _, note := range slices.Sorted(maps.Keys(notRun)) {
		fmt.Fprintf(w, "%s %s\n", text.Count(notRun[note], "test"), note)
	}
	fmt.Fprintf(w, "%s, %d saved, in %s of %s\n", text.Count(run.Failures(), "distinct failure"), saved(run),
		text.Count(executions(run), "execution"), text.Count(len(run.Tests), "test"))
	return broken
}

func saved(r *report.Run) int {
	n := 0
	for _, t := range r.Tests {
		n += t.Saved
	}
	return n
}

func executions(r *report.Run) int {
	n := 0
	for _, t := range r.Tests {
		n += t.Executions
	}
	return n
}

package weft

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/record"
	_ "github.com/weftdev/weft/record/all" // every recording algorithm, for -record and RecordRuns
	logreplay "github.com/weftdev/weft/replay"
	"github.com/weftdev/weft/sched"
)

// A Recording describes the free-running run a Finding came from (-record).
type Recording struct {
	// Algorithm is the recorder's.
	Algorithm string
	// Run is the failing run's number, from 1; Runs how many ran.
	Run, Runs int
	// Failure is the failure of the recorded run.
	Failure *sched.Failure
	// Events and Bytes measure its log.
	Events uint64
	Bytes  int64
	// Log is where the log was kept (-record.log), or "".
	Log string
	// Faithful reports that the replay from the log read, in every
	// goroutine, the values of the recorded run; Problems say where not.
	Faithful bool
	Problems []string
}

// RecordRuns runs body free (truly in parallel, under the Go scheduler) up
// to Runs times (default 100), each run recorded by the named recorder
// (RecordWith; "light" by default). The first failing run is replayed under
// the controller from its log; if the replay fails the same way, its
// schedule is minimized and returned as a Finding, ready to save like an
// explored one. It returns nil if every run passed, and an error if a run
// failed but its failure could not be reproduced from the log (the error
// says why, and where the log was kept). Flags are not consulted.
func RecordRuns(body func(*T), opts ...Option) (*Finding, error) {
	cfg, err := newConfig("Record", opts, false)
	if err != nil {
		return nil, err
	}
	if cfg.recorder == "" {
		cfg.recorder = defaultRecorder
	}
	f, _, err := recordFind(body, cfg, nil)
	return f, err
}

const (
	defaultRecorder = "light"
	defaultRuns     = 100
)

// RecordWith selects the recorder of -record and RecordRuns: "light",
// "stride", "aggreplay" or "leap".
func RecordWith(algorithm string) Option { return func(c *config) { c.recorder = algorithm } }

// Runs sets how many free runs RecordRuns (and -record) makes at most.
func Runs(n int) Option { return func(c *config) { c.runs = n } }

// LogDir keeps the logs of failing recorded runs in dir.
func LogDir(dir string) Option { return func(c *config) { c.logDir = dir } }

// recordFind records up to cfg.runs free runs of body and turns the first
// failure into a Finding through replay and minimization. It also returns
// how many runs it made.
func recordFind(body func(*T), cfg *config, progress func(time.Duration, int)) (*Finding, int, error) {
	tmp, err := os.MkdirTemp("", "weft-record-")
	if err != nil {
		return nil, 0, fmt.Errorf("weft: -record: %w", err)
	}
	defer os.RemoveAll(tmp)
	start, lastProgress := time.Now(), time.Now()
	for i := 0; i < cfg.runs; i++ {
		if progress != nil && time.Since(lastProgress) >= 3*time.Second {
			progress(time.Since(start), i)
			lastProgress = time.Now()
		}
		rec, err := record.New(cfg.recorder)
		if err != nil {
			return nil, i, fmt.Errorf("weft: -record: %w", err)
		}
		res, err := record.Record(wrap(body, cfg, nil), rec, record.Options{
			Name: cfg.name, Dir: tmp, StallTimeout: cfg.recordTimeout, Seed: explore.Seed(cfg.seed, i), LockOrder: cfg.lockOrder})
		if err != nil {
			return nil, i + 1, fmt.Errorf("weft: -record: %w", err)
		}
		if res.Failure == nil {
			os.Remove(res.Log)
			continue
		}
		f, err := reproduce(body, cfg, res, i)
		return f, i + 1, err
	}
	return nil, cfg.runs, nil
}

// reproduce replays the failing recorded run res (run i) from its log.
func reproduce(body func(*T), cfg *config, res *record.Result, i int) (*Finding, error) {
	rc := &Recording{Algorithm: cfg.recorder, Run: i + 1, Runs: cfg.runs, Failure: res.Failure, Events: res.Events, Bytes: res.Bytes}
	if cfg.logDir != "" {
		kept, err := keepLog(res.Log, cfg.logDir, cfg.name, i)
		if err != nil {
			return nil, fmt.Errorf("weft: -record.log: %w", err)
		}
		rc.Log = kept
	}
	where := ""
	if rc.Log != "" {
		where = " (log kept at " + rc.Log + ")"
	}
	recorded := fmt.Sprintf("recorded run %d (%s) failed: %s%s", i+1, cfg.recorder, res.Failure.Summary(), where)
	if !res.Complete {
		var b strings.Builder
		if res.Failure.Stack != "" {
			writeIndented(&b, "    ", res.Failure.Stack)
		}
		return nil, fmt.Errorf("weft: %s\n%s  its goroutines were abandoned, so its log is incomplete and cannot be replayed", recorded, b.String())
	}
	log, err := record.ReadFile(res.Log)
	if err != nil {
		return nil, fmt.Errorf("weft: %s\n  reading its log: %v", recorded, err)
	}
	out, err := logreplay.Run(wrap(body, cfg, nil), log, logreplay.Options{Sched: cfg.schedOptions()})
	if err != nil {
		return nil, fmt.Errorf("weft: %s\n  %v", recorded, err)
	}
	rc.Faithful, rc.Problems = out.Faithful, out.Problems
	got := out.Result.Failure
	// Under the race detector, a data race on the way to the recorded
	// failure is what the replay finds, and the root cause to report.
	if got == nil || !sameFailure(got, res.Failure) && got.Kind != sched.Race {
		what := "passed"
		if got != nil {
			what = "failed otherwise: " + got.Summary()
		}
		return nil, fmt.Errorf("weft: %s\n  the replay from its log %s%s", recorded, what, problemList(out.Problems))
	}
	found := &explore.Finding{Result: out.Result, Iteration: i, Seed: explore.Seed(cfg.seed, i), Strategy: "record-" + cfg.recorder}
	f := judge(body, cfg, found, i+1)
	f.Recorded = rc
	return f, nil
}

// sameFailure reports whether a replay's failure is the recorded one: the
// same kind, and the same message (the first line of it: a panic's value).
func sameFailure(replayed, recorded *sched.Failure) bool {
	got, _, _ := strings.Cut(replayed.Message, "\n")
	want, _, _ := strings.Cut(recorded.Message, "\n")
	return replayed.Kind == recorded.Kind && got == want
}

func problemList(ps []string) string {
	if len(ps) == 0 {
		return ""
	}
	return "\n  where the replay departed from the recording:\n    " + strings.Join(ps, "\n    ")
}

// keepLog copies a failing run's log into dir.
func keepLog(path, dir, test string, run int) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := strings.NewReplacer("/", "_", "\\", "_", " ", "_").Replace(test)
	dst := filepath.Join(dir, fmt.Sprintf("%s-run%d.log", name, run+1))
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", err
	}
	return dst, out.Close()
}

// recordTest is -record's part of a test: record, reproduce, save, report.
func recordTest(t *testing.T, body func(*T), cfg *config) {
	t.Helper()
	progress := func(elapsed time.Duration, n int) {
		fmt.Printf("weft: %s: elapsed: %v, recorded runs: %d (%.0f/sec)\n", cfg.name, elapsed.Round(time.Second), n, float64(n)/elapsed.Seconds())
	}
	start := time.Now()
	f, runs, err := recordFind(body, cfg, progress)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Logf("weft: no failure in %d recorded runs (%s), %s", runs, cfg.recorder, time.Since(start).Round(time.Millisecond))
		return
	}
	saveAndReport(t, f, cfg)
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/timeline"
	"github.com/weftdev/weft/report"
)

const showUsage = `usage: weft show [-html OUT.html] [-perfetto OUT.json] FILE...

Prints saved schedules (corpus entries), checking their format. With -html
or -perfetto, replays one entry in its package's test (built as weft test
builds it) and writes the execution's timeline: -html as one self-contained
HTML page (a lane per goroutine, the events as boxes, the synchronization
as arrows, the preemptions and the failure marked), -perfetto as Chrome
trace-event JSON for ui.perfetto.dev.
`

// show is weft show.
func show(args []string) error {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	htmlOut := fs.String("html", "", "")
	perfettoOut := fs.String("perfetto", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Print(showUsage)
			return nil
		}
		return fmt.Errorf("%v\n%s", err, showUsage)
	}
	files := fs.Args()
	if len(files) == 0 {
		return errors.New("no files given\n" + showUsage)
	}
	if *htmlOut == "" && *perfettoOut == "" {
		return showText(os.Stdout, files)
	}
	if len(files) != 1 {
		return fmt.Errorf("-html and -perfetto draw one entry, not %d", len(files))
	}
	tl, err := replayTimeline(files[0], os.Stderr)
	if err != nil {
		return err
	}
	for _, out := range []struct {
		path string
		draw func(io.Writer) error
	}{{*htmlOut, tl.HTML}, {*perfettoOut, tl.Perfetto}} {
		if out.path == "" {
			continue
		}
		var b bytes.Buffer
		if err := out.draw(&b); err != nil {
			return err
		}
		if err := report.WriteFile(out.path, b.Bytes()); err != nil {
			return err
		}
		fmt.Printf("wrote %s\n", out.path)
	}
	return nil
}

// showText prints saved schedules, so that a malformed one is reported
// with its file, line and problem.
func showText(w io.Writer, files []string) error {
	bad := 0
	for _, path := range files {
		e, err := corpus.Read(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			bad++
			continue
		}
		printEntry(w, path, e)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d files malformed", bad, len(files))
	}
	return nil
}

// replayTimeline replays a saved schedule in its package's test, built as
// weft test builds it, and returns the timeline of the execution. The test
// itself fails if the schedule still fails: that is no error here.
func replayTimeline(path string, stderr io.Writer) (*timeline.Timeline, error) {
	e, err := corpus.Read(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	pkg, ok := packageOfEntry(abs)
	if !ok {
		return nil, fmt.Errorf("%s: not in a testdata/weft directory of a package", path)
	}
	tmp, err := os.MkdirTemp("", "weft-show-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "timeline.json")
	args := []string{"-run", entryPattern(e.Test, filepath.Base(abs)), "-count=1"}
	if kindOf(e) == "race" {
		args = append(args, "-race") // only the race detector reports it
	}
	args = append(args, ".", "-explore.timeline="+out)
	var log bytes.Buffer
	if _, err := runTest(pkg, args, &log, &log); err != nil {
		return nil, fmt.Errorf("replaying %s: %w", path, err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		stderr.Write(log.Bytes())
		return nil, fmt.Errorf("replaying %s in %s left no timeline (is it %s's entry?)", path, pkg, e.Test)
	}
	var tl timeline.Timeline
	if err := json.Unmarshal(data, &tl); err != nil {
		return nil, fmt.Errorf("replaying %s: its timeline: %w", path, err)
	}
	return &tl, nil
}

// packageOfEntry returns the directory of the package whose corpus holds
// the entry at an absolute path: the directory above its testdata/weft.
func packageOfEntry(abs string) (string, bool) {
	slash := filepath.ToSlash(abs)
	i := strings.LastIndex(slash, "/testdata/weft/")
	if i < 0 {
		return "", false
	}
	return filepath.FromSlash(slash[:i]), true
}

// entryPattern is the -run pattern of a saved schedule's replay: its
// test's name, part by part, then its ID.
func entryPattern(test, id string) string {
	var parts []string
	for _, p := range append(strings.Split(test, "/"), id) {
		parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
	}
	return strings.Join(parts, "/")
}

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/text"
)

// printEntry prints a saved schedule as text: its header and its choices.
func printEntry(w io.Writer, path string, e *corpus.Entry) {
	fmt.Fprintf(w, "%s:\n", path)
	fmt.Fprintf(w, "  test:        %s\n", e.Test)
	fmt.Fprintf(w, "  failure:     %s\n", e.Failure)
	fmt.Fprintf(w, "  preemptions: %d (minimized from %d)\n", e.Preemptions, e.Original)
	if e.Found.Strategy != "" {
		fmt.Fprintf(w, "  found by:    %s, seed %#x, execution %d\n", e.Found.Strategy, e.Found.Seed, e.Found.Iteration+1)
	}
	fmt.Fprintf(w, "  choices:\n")
	for _, line := range strings.Split(strings.TrimSpace(string(e.Marshal())), "\n") {
		if strings.HasPrefix(line, "switch ") || strings.HasPrefix(line, "preempt ") || strings.HasPrefix(line, "pick ") {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
}

const listUsage = `usage: weft list [DIR...]

Lists the saved schedules of the corpora under each DIR (default: the
current directory; every directory below a testdata/weft directory) as a
table: the entry's path, its test, the kind of failure, its signature, the
preemptions of the schedule, how it was found (strategy, seed, execution)
and its age (since the file was written).
`

// list prints the saved schedules under directory trees as a table.
func list(args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Print(listUsage)
		return nil
	}
	roots := args
	if len(roots) == 0 {
		roots = []string{"."}
	}
	bad, err := listTable(os.Stdout, roots, time.Now())
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d malformed file(s)", bad)
	}
	return nil
}

// listTable writes the table of the entries under roots, and returns how
// many files are malformed (listed with their problem).
func listTable(w io.Writer, roots []string, now time.Time) (bad int, err error) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ENTRY\tTEST\tKIND\tSIGNATURE\tPREEMPTIONS\tFOUND BY\tAGE")
	var malformed []string
	n := 0
	for _, root := range roots {
		dirs, err := corpusDirs(root)
		if err != nil {
			return 0, err
		}
		for _, rel := range dirs {
			files, err := corpus.List(filepath.Join(root, rel))
			if err != nil {
				return 0, err
			}
			for _, f := range files {
				if f.Err != nil {
					malformed = append(malformed, fmt.Sprintf("%s: MALFORMED: %v", f.Path, f.Err))
					continue
				}
				e := f.Entry
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", f.Path, e.Test, kindOf(e), text.OrDash(e.Signature),
					e.Preemptions, foundBy(e.Found), age(f.Path, now))
				n++
			}
		}
	}
	if n == 0 && len(malformed) == 0 {
		return 0, fmt.Errorf("no saved schedule under %s", strings.Join(roots, " "))
	}
	if err := tw.Flush(); err != nil {
		return 0, err
	}
	for _, m := range malformed {
		fmt.Fprintln(w, m)
	}
	return len(malformed), nil
}

// kindOf returns the kind of failure an entry was saved for: the first word
// of its signature, or of its failure's summary.
func kindOf(e *corpus.Entry) string {
	s := e.Signature
	if s == "" {
		s = e.Failure
	}
	kind, _, _ := strings.Cut(s, " ")
	return text.OrDash(strings.TrimSuffix(kind, ":"))
}

// foundBy says briefly how an entry was found.
func foundBy(f corpus.Found) string {
	if f.Strategy == "" {
		return "-"
	}
	return fmt.Sprintf("%s %#x #%d", f.Strategy, f.Seed, f.Iteration+1)
}

// age is how long ago a file was written, in the largest unit that fits.
func age(path string, now time.Time) string {
	info, err := os.Stat(path)
	if err != nil {
		return "-"
	}
	d := now.Sub(info.ModTime())
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
}

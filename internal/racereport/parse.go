// Package racereport reads the race detector's reports: it captures what the
// race detector prints while weft's executions run, and parses it.
//
// The race detector (go test -race) prints each data race it finds to the
// process's standard error, or to the file GORACE's log_path names, and
// counts it (runtime.RaceErrors); the testing package fails a test whose
// count grew. weft notices the count grow at the racing goroutine's next
// event, and reads the report to name the two accesses: Begin redirects
// standard error to a file while an execution runs, so that its reports can
// be read back, and End passes on to the real standard error everything
// that was not a report of weft's goroutines.
package racereport

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// A Report is one data race, as the race detector printed it.
type Report struct {
	// Accesses are the access that was reported, then the earlier one it
	// races with.
	Accesses []Access
	// Created says where the goroutines of the accesses were started.
	Created []Creation
	// Text is the report as printed, between its separator lines.
	Text string

	start, end int64 // the report's bytes in the captured output
}

// An Access is one side of a data race.
type Access struct {
	// Kind is how the access touched memory: "read", "write", "atomic
	// write", ...
	Kind string
	// Addr is the address accessed, in hexadecimal.
	Addr string
	// Goroutine is the runtime's id of the goroutine that accessed; 1 is
	// the main goroutine.
	Goroutine int64
	// Frames is its stack, innermost first; empty if the race detector
	// could not restore it.
	Frames []Frame
}

// A Creation is where a goroutine was started: the go statement's stack.
type Creation struct {
	Goroutine int64
	Frames    []Frame
}

// A Frame is one call of a stack.
type Frame struct {
	Func string // package-qualified, as runtime.Frame names it
	File string
	Line int
}

// The separator the race detector prints before and after each report.
const separator = "=================="

var (
	accessLine  = regexp.MustCompile(`^(Previous )?(.+) at 0x([0-9a-f]+) by (main goroutine|goroutine (\d+)):$`)
	createdLine = regexp.MustCompile(`^Goroutine (\d+) \(.*\) created at:$`)
	fileLine    = regexp.MustCompile(`^\s+(.+):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// Parse returns the data race reports in out, the output of a process run
// with the race detector, in order. A report cut short (the process was
// still printing it) is left out. Other text is ignored.
func Parse(out []byte) []Report {
	var reports []Report
	for off := 0; ; {
		i := bytes.Index(out[off:], []byte(separator+"\nWARNING: DATA RACE\n"))
		if i < 0 {
			return reports
		}
		start := off + i
		body := start + len(separator) + 1
		j := bytes.Index(out[body:], []byte("\n"+separator+"\n"))
		if j < 0 {
			return reports
		}
		end := body + j + len(separator) + 2
		r := parseReport(string(out[body : body+j]))
		r.start, r.end = int64(start), int64(end)
		reports = append(reports, r)
		off = end
	}
}

// parseReport parses the text of one report, from its WARNING line on:
// sections, each a header line (an access, or where a goroutine was
// created) and the frames of its stack, a function line and a file line
// each.
func parseReport(text string) Report {
	r := Report{Text: text}
	var frames *[]Frame // the current section's
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := accessLine.FindStringSubmatch(line); m != nil {
			a := Access{Kind: strings.ToLower(m[2]), Addr: m[3], Goroutine: 1}
			if m[5] != "" {
				a.Goroutine, _ = strconv.ParseInt(m[5], 10, 64)
			}
			r.Accesses = append(r.Accesses, a)
			frames = &r.Accesses[len(r.Accesses)-1].Frames
			continue
		}
		if m := createdLine.FindStringSubmatch(line); m != nil {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			r.Created = append(r.Created, Creation{Goroutine: id})
			frames = &r.Created[len(r.Created)-1].Frames
			continue
		}
		if frames == nil || !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "      ") {
			continue
		}
		f := Frame{Func: strings.TrimSuffix(strings.TrimSpace(line), "()")}
		if i+1 < len(lines) {
			if m := fileLine.FindStringSubmatch(lines[i+1]); m != nil {
				f.File = m[1]
				f.Line, _ = strconv.Atoi(m[2])
				i++
			}
		}
		if !strings.HasPrefix(f.Func, "[") { // [failed to restore the stack]
			*frames = append(*frames, f)
		}
	}
	return r
}

// CreatedAt returns where goroutine id was started, innermost frame first;
// nil if the report does not say (the main goroutine).
func (r *Report) CreatedAt(id int64) []Frame {
	for _, c := range r.Created {
		if c.Goroutine == id {
			return c.Frames
		}
	}
	return nil
}

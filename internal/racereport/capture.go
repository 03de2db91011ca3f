package racereport

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// How the race detector's reports are read back.
type mode int

const (
	// unread: they cannot be (GORACE halt_on_error, log_path=stdout, an
	// operating system without dup2, or a failure to set up).
	unread mode = iota
	// redirected: standard error is a temporary file while executions
	// run.
	redirected
	// logged: GORACE log_path names the file the race detector writes
	// to, path.pid.
	logged
)

// capture is the process's redirection of standard error, shared by the
// executions that run at the same time.
var capture struct {
	mu      sync.Mutex
	ready   bool
	mode    mode
	users   int        // sessions begun and not ended
	file    *os.File   // redirected: the temporary file; logged: nil
	path    string     // logged: the race detector's log file
	stderr  *os.File   // redirected: the real standard error
	claimed [][2]int64 // redirected: the reports not to pass on
}

// A Session reads the reports printed while one execution runs.
type Session struct {
	next int64 // the offset in the output from which reports are new
}

// Begin starts reading the race detector's output for one execution: in
// the race build, standard error goes to a temporary file until the last
// session running ends. Every session must be ended.
func Begin() *Session {
	c := &capture
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready {
		c.ready = true
		setUp()
	}
	c.users++
	s := &Session{}
	switch c.mode {
	case redirected:
		if c.users == 1 && redirect(c.file, c.stderr) != nil {
			c.mode = unread
		}
		s.next = size(c.file)
	case logged:
		if f, err := os.Open(c.path); err == nil {
			s.next = size(f)
			f.Close()
		}
	}
	return s
}

// Reports returns the reports printed in full since Begin that earlier calls
// did not return; nil if the output cannot be read back. Reports of other
// executions running at the same time are among them.
func (s *Session) Reports() []Report {
	c := &capture
	c.mu.Lock()
	m, f := c.mode, c.file
	c.mu.Unlock()
	switch m {
	case logged:
		var err error
		if f, err = os.Open(c.path); err != nil {
			return nil
		}
		defer f.Close()
	case unread:
		return nil
	}
	end := size(f)
	if end <= s.next {
		return nil
	}
	buf := make([]byte, end-s.next)
	n, _ := f.ReadAt(buf, s.next)
	rs := Parse(buf[:n])
	for i := range rs {
		rs[i].start += s.next
		rs[i].end += s.next
	}
	if len(rs) > 0 {
		s.next = rs[len(rs)-1].end
	}
	return rs
}

// Readable reports whether the race detector's reports can be read back.
func (s *Session) Readable() bool {
	c := &capture
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mode != unread
}

// Claim marks r as reported by weft: End does not pass it on to standard
// error.
func (s *Session) Claim(r Report) {
	c := &capture
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mode == redirected {
		c.claimed = append(c.claimed, [2]int64{r.start, r.end})
	}
}

// End ends the session. When no other session runs, standard error is
// restored, and what was printed to it meanwhile, but for the reports
// claimed, is written to it.
func (s *Session) End() {
	c := &capture
	c.mu.Lock()
	defer c.mu.Unlock()
	c.users--
	if c.users > 0 || c.mode != redirected {
		return
	}
	restore(c.stderr)
	n := size(c.file)
	if n == 0 {
		return
	}
	out := make([]byte, n)
	n64, _ := c.file.ReadAt(out, 0)
	out = out[:n64]
	from := int64(0)
	for _, r := range c.claimed {
		c.stderr.Write(out[from:r[0]])
		from = r[1]
	}
	c.stderr.Write(out[from:])
	c.claimed = c.claimed[:0]
	c.file.Truncate(0)
}

// setUp decides how the reports are read back, from GORACE as the race
// detector read it when the process started.
func setUp() {
	c := &capture
	opts := options(os.Getenv("GORACE"))
	if v := opts["halt_on_error"]; v == "1" || v == "true" {
		return // the process exits at the first report
	}
	switch p := opts["log_path"]; p {
	case "", "stderr":
	case "stdout":
		return
	default:
		c.mode, c.path = logged, p+"."+strconv.Itoa(os.Getpid())
		return
	}
	stderr, err := duplicate(os.Stderr)
	if err != nil {
		return
	}
	f, err := tempFile()
	if err != nil {
		stderr.Close()
		return
	}
	c.mode, c.file, c.stderr = redirected, f, stderr
}

// options parses GORACE: name=value pairs separated by spaces, commas or
// colons, as the race detector reads them.
func options(s string) map[string]string {
	opts := map[string]string{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t\n\r,:", r) }) {
		if k, v, ok := strings.Cut(f, "="); ok {
			opts[k] = strings.Trim(v, `"'`)
		}
	}
	return opts
}

func size(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

// redirect points standard error at f, and sends the runtime's fatal
// errors to the real standard error too, so that a crash while it is
// redirected is not lost with the process.
func redirect(f, stderr *os.File) error {
	if err := dup2(f, 2); err != nil {
		return err
	}
	debug.SetCrashOutput(stderr, debug.CrashOptions{})
	return nil
}

// restore points standard error back at stderr.
func restore(stderr *os.File) {
	dup2(stderr, 2)
	debug.SetCrashOutput(nil, debug.CrashOptions{})
}

// tempFile returns a new temporary file, already removed, opened for
// appending: what the race detector and the process write to standard
// error goes to its end even after End truncated it.
func tempFile() (*os.File, error) {
	f, err := os.CreateTemp("", "weft-race-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	return os.OpenFile(f.Name(), os.O_RDWR|os.O_APPEND, 0)
}

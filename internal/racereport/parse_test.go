package racereport

import (
	"reflect"
	"strings"
	"testing"
)

// report is a report as the race detector prints it (Go 1.26, linux/amd64),
// between two lines of other output.
const report = `=== RUN   TestHidden
==================
WARNING: DATA RACE
Write at 0x00c000018268 by goroutine 10:
  example.com/p.TestHidden.func2()
      /src/p/p_test.go:37 +0x30
  example.com/p.run.func2()
      /src/p/p_test.go:27 +0x53

Previous read at 0x00c000018268 by main goroutine:
  [failed to restore the stack]

Goroutine 10 (running) created at:
  example.com/p.run()
      /src/p/p_test.go:23 +0x224
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:2036 +0x21c
==================
    p_test.go:38: after
`

func TestParse(t *testing.T) {
	rs := Parse([]byte(report))
	if len(rs) != 1 {
		t.Fatalf("%d reports, want 1", len(rs))
	}
	r := rs[0]
	want := []Access{
		{Kind: "write", Addr: "00c000018268", Goroutine: 10, Frames: []Frame{
			{Func: "example.com/p.TestHidden.func2", File: "/src/p/p_test.go", Line: 37},
			{Func: "example.com/p.run.func2", File: "/src/p/p_test.go", Line: 27},
		}},
		{Kind: "read", Addr: "00c000018268", Goroutine: 1},
	}
	if !reflect.DeepEqual(r.Accesses, want) {
		t.Errorf("accesses:\n%+v\nwant\n%+v", r.Accesses, want)
	}
	created := []Frame{
		{Func: "example.com/p.run", File: "/src/p/p_test.go", Line: 23},
		{Func: "testing.tRunner", File: "/usr/local/go/src/testing/testing.go", Line: 2036},
	}
	if got := r.CreatedAt(10); !reflect.DeepEqual(got, created) {
		t.Errorf("goroutine 10 created at %+v, want %+v", got, created)
	}
	if got := r.CreatedAt(1); got != nil {
		t.Errorf("the main goroutine created at %+v, want nothing", got)
	}
	if !strings.HasPrefix(r.Text, "WARNING: DATA RACE\n") || !strings.HasSuffix(r.Text, "+0x21c") {
		t.Errorf("text %q: want the report between its separators", r.Text)
	}
	if got := report[r.start:r.end]; !strings.HasPrefix(got, separator+"\nWARNING") || !strings.HasSuffix(got, separator+"\n") {
		t.Errorf("the report's bytes are %q", got)
	}
}

// A report the process is still printing is not one yet.
func TestParseIncomplete(t *testing.T) {
	cut := report[:strings.LastIndex(report, separator)]
	if rs := Parse([]byte(cut)); len(rs) != 0 {
		t.Errorf("a report cut short parsed as %+v", rs)
	}
	two := strings.Repeat(report, 2)
	if rs := Parse([]byte(two)); len(rs) != 2 || rs[1].start <= rs[0].end-1 {
		t.Errorf("two reports parsed as %d", len(rs))
	}
}

func TestOptions(t *testing.T) {
	got := options(`log_path=/tmp/race/report halt_on_error=1,history_size=3:strip_path_prefix="/src/"`)
	want := map[string]string{"log_path": "/tmp/race/report", "halt_on_error": "1", "history_size": "3", "strip_path_prefix": "/src/"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("options = %v, want %v", got, want)
	}
}

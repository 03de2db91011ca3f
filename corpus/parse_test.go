package corpus

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/weftdev/weft/sched"
)

const head = "weft schedule v1\ntest: TestX\n"

// malformed lists invalid files with the line and a part of the problem
// Parse must report.
var malformed = []struct {
	name, data string
	line       int
	problem    string
}{
	{"empty", "", 1, "empty file: not a weft schedule file"},
	{"not weft", "hello\n", 1, `not a weft schedule file: the first line is "hello"`},
	{"go fuzz file", "go test fuzz v1\n[]byte(\"x\")\n", 1, "not a weft schedule file"},
	{"newer version", "weft schedule v3\ntest: TestX\n", 1, "unsupported format version v3"},
	{"version v10", "weft schedule v10\n", 1, "unsupported format version v10"},
	{"bad version", "weft schedule 1\n", 1, "malformed version line"},
	{"version later", "\nweft schedule v1\n", 1, "not a weft schedule file"},
	{"NUL", head + "fail\x00ure: x\n", 3, "NUL byte"},
	{"invalid UTF-8", head + "failure: \xff\xfe\n", 3, "invalid UTF-8"},
	{"control character", head + "failure: \x1b[31m\n", 3, "control character U+001B"},
	{"lone CR", "weft schedule v1\rtest: TestX\r", 1, "carriage return"},
	{"missing test", "weft schedule v1\nfailure: x\n\nswitch 0#1 -> 0.1\n", 3, "missing test: header"},
	{"missing test at EOF", "weft schedule v1\nfailure: x", 2, "missing test: header"},
	{"only version", "weft schedule v1\n", 1, "missing test: header"},
	{"empty test", "weft schedule v1\ntest:\n", 2, "empty test: header"},
	{"duplicate test", head + "test: TestY\n", 3, "duplicate test: header (first on line 2)"},
	{"duplicate unknown", head + "go: 1\ngo: 2\n", 4, "duplicate go: header (first on line 3)"},
	{"no colon", head + "failure x\n", 3, "header line without ': '"},
	{"no space", head + "failure:x\n", 3, "header line without ': '"},
	{"bad key", head + "my key: x\n", 3, `header key "my key" is not a word`},
	{"empty key", head + ": x\n", 3, `header key ""`},
	{"choice in header", head + "switch 0#1 -> 0.1\n", 3, "a blank line must separate the header from the choices"},
	{"found not k=v", head + "found: pct\n", 3, `found: field "pct" is not key=value`},
	{"found empty key", head + "found: =3\n", 3, `found: field "=3" is not key=value`},
	{"found duplicate", head + "found: seed=0x1 seed=0x2\n", 3, "found: duplicate field seed"},
	{"found duplicate extra", head + "found: a=1 a=1\n", 3, "found: duplicate field a"},
	{"found decimal seed", head + "found: seed=42\n", 3, `found: seed "42" is not a 64-bit hexadecimal`},
	{"found huge seed", head + "found: seed=0x10000000000000000\n", 3, "found: seed"},
	{"found bad iteration", head + "found: iteration=-1\n", 3, `found: iteration "-1" is not a number`},
	{"found bad depth", head + "found: depth=x\n", 3, `found: depth "x" is not a number`},
	{"preemptions word", head + "preemptions: one\n", 3, "preemptions: want N or"},
	{"preemptions empty", head + "preemptions:\n", 3, "preemptions: want N or"},
	{"preemptions negative", head + "preemptions: -1\n", 3, "preemptions: want N or"},
	{"preemptions bad suffix", head + "preemptions: 1 (from 4)\n", 3, "preemptions: want N or"},
	{"preemptions bad original", head + "preemptions: 1 (minimized from x)\n", 3, "preemptions: want N or"},
	{"preemptions overflow", head + "preemptions: 99999999999999999999\n", 3, "preemptions: want N or"},
	{"hash no prefix", head + "hash: 8f3a\n", 3, `hash: "8f3a" is not a 64-bit hexadecimal number`},
	{"hash empty digits", head + "hash: 0x\n", 3, "hash:"},
	{"hash not hex", head + "hash: 0xg\n", 3, "hash:"},
	{"input empty", head + "input:\n", 3, "input: no words"},
	{"input not hex", head + "input: 0x1 12\n", 3, `input: word 2, "12", is not a 64-bit hexadecimal number`},
	{"unknown verb", head + "\nswtich 0#1 -> 0.1\n", 4, `unknown choice "swtich": want switch, preempt or pick`},
	{"header after blank", head + "\nfailure: x\n", 4, `unknown choice "failure:"`},
	{"lineage letter", head + "\nswitch 0.x#1 -> 0.1\n", 4, `choice: goroutine "0.x" is not a lineage like 0.2.1`},
	{"lineage root 1", head + "\nswitch 1#1 -> 0.1\n", 4, `choice: goroutine "1" is not a lineage`},
	{"lineage leading zero", head + "\nswitch 0.02#1 -> 0.1\n", 4, `choice: goroutine "0.02" is not a lineage`},
	{"lineage zero part", head + "\nswitch 0.0#1 -> 0.1\n", 4, `choice: goroutine "0.0" is not a lineage`},
	{"lineage empty part", head + "\nswitch 0..1#1 -> 0.1\n", 4, `choice: goroutine "0..1" is not a lineage`},
	{"lineage trailing dot", head + "\nswitch 0.#1 -> 0.1\n", 4, `choice: goroutine "0." is not a lineage`},
	{"lineage empty", head + "\nswitch #1 -> 0.1\n", 4, `choice: goroutine "" is not a lineage`},
	{"no event", head + "\nswitch 0 -> 0.1\n", 4, `choice: "0" is not goroutine#event like 0.2#3`},
	{"event zero", head + "\n# c\nswitch 0#0 -> 0.1\n", 5, "choice: event number 0: events count from 1"},
	{"event sign", head + "\nswitch 0#+1 -> 0.1\n", 4, `choice: event "" is not a number ≥ 1`},
	{"event overflow", head + "\nswitch 0#99999999999999999999 -> 0.1\n", 4, "choice: event number 99999999999999999999 out of range"},
	{"incomplete switch", head + "\nswitch 0#1 ->\n", 4, `incomplete switch: want "switch G#N -> H"`},
	{"switch no arrow", head + "\nswitch 0#1 => 0.1\n", 4, `switch: want -> after 0#1, got "=>"`},
	{"bad next", head + "\npreempt 0#1 -> 0.x\n", 4, `preempt: next goroutine "0.x" is not a lineage`},
	{"preempt itself", head + "\npreempt 0.1#1 -> 0.1\n", 4, "preempt: goroutine 0.1 cannot preempt itself"},
	{"trailing junk", head + "\nswitch 0#1 -> 0.1 Var.Load x.go:1\n", 4, `switch: unexpected "Var.Load" after the choice`},
	{"annotation alone", head + "\nswitch 0#1 -> 0.1 @\n", 4, "switch: @ needs an operation and a site"},
	{"annotation no site", head + "\nswitch 0#1 -> 0.1 @ Var.Load\n", 4, "switch: @ needs an operation and a site"},
	{"annotation spaced op without site", head + "\nswitch 0#1 -> 0.1 @ RWMutex.Lock(wait readers)\n", 4, `switch: site "readers)" is not file:line or -`},
	{"site no line", head + "\npick 0#1 1/2 @ Select x.go\n", 4, `pick: site "x.go" is not file:line or -`},
	{"site no file", head + "\npick 0#1 1/2 @ Select :3\n", 4, `pick: site ":3" is not file:line or -`},
	{"incomplete pick", head + "\npick 0#1\n", 4, `incomplete pick: want "pick G#N V/OF"`},
	{"pick no slash", head + "\npick 0#1 2\n", 4, `pick: "2" is not value/count like 1/3`},
	{"pick negative", head + "\npick 0#1 -1/3\n", 4, `pick: "-1/3" is not value/count`},
	{"pick out of range", head + "\npick 0#1 3/3\n", 4, "pick value 3 out of range 0..2"},
	{"pick of 1", head + "\npick 0#1 0/1\n", 4, "pick among 1 values: need at least 2"},
	{"pick of 0", head + "\npick 0#1 0/0\n", 4, "pick among 0 values: need at least 2"},
	{"pick overflow", head + "\npick 0#1 1/99999999999999999999\n", 4, "pick: 1/99999999999999999999 out of range"},
	{"pick bad event", head + "\npick 0.1#x 1/2\n", 4, `choice: event "x" is not a number ≥ 1`},
	{"CRLF line number", "weft schedule v1\r\ntest: TestX\r\n\r\nswitch 0#1 -> 0.1\r\npick 0#2 5/5\r\n", 5, "pick value 5 out of range 0..4"},
	{"decision not a number", head + "\nswitch 0#1+x -> 0.1\n", 4, `choice: decision "x" at event 1 is not a number`},
	{"decision zero", head + "\nswitch 0#1+0 -> 0.1\n", 4, "choice: decision +0 out of range"},
	{"decision empty", head + "\nswitch 0#1+ -> 0.1\n", 4, `choice: decision "" at event 1`},
	{"clock picks", head + "\npick clock#1 1/2\n", 4, `goroutine "clock" is not a lineage`},
	{"error on last line without newline", head + "\nswitch 0#1 -> 0.1\nswitch 0#2 -> 0.y", 5, `next goroutine "0.y"`},
}

func TestParseMalformed(t *testing.T) {
	for _, tt := range malformed {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse("dir/f", []byte(tt.data))
			if err == nil {
				t.Fatalf("Parse succeeded: %#v", e)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if pe.File != "dir/f" || pe.Line != tt.line {
				t.Errorf("error at %s:%d, want dir/f:%d (%v)", pe.File, pe.Line, tt.line, err)
			}
			if !strings.Contains(pe.Problem, tt.problem) {
				t.Errorf("problem %q does not contain %q", pe.Problem, tt.problem)
			}
			if want := fmt.Sprintf("dir/f:%d: %s", tt.line, pe.Problem); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// wellFormed lists valid files in unusual forms, with the entry they hold.
var wellFormed = []struct {
	name, data string
	want       *Entry
}{
	{"no choices, no blank line", "weft schedule v1\ntest: TestX", &Entry{Test: "TestX"}},
	{"no choices", head + "\n", &Entry{Test: "TestX"}},
	{
		"CRLF and no final newline",
		"weft schedule v1\r\ntest: TestX\r\nfailure: boom\r\n\r\nswitch 0#1 -> 0.1 @ Mutex.Lock m.go:3\r\npick 0#2 1/2",
		&Entry{Test: "TestX", Failure: "boom", Schedule: sched.Schedule{
			{Kind: sched.RunChoice, G: "0", N: 1, Next: "0.1", Op: "Mutex.Lock", Site: "m.go:3"},
			{Kind: sched.PickChoice, G: "0", N: 2, Value: 1, Of: 2},
		}},
	},
	{"byte order mark", "\uFEFFweft schedule v1\ntest: TestX\n", &Entry{Test: "TestX"}},
	{
		"comments, blank lines and spacing",
		"weft schedule v1 \n# a comment in the header\n  test:   TestX  \nfailure:\t tab  \n\n\n# comment\n   \n\tswitch   0#1\t->  0.1   @  RWMutex.Lock(wait  readers)\t r.go:4  \n# end\n",
		&Entry{Test: "TestX", Failure: "tab", Schedule: sched.Schedule{
			{Kind: sched.RunChoice, G: "0", N: 1, Next: "0.1", Op: "RWMutex.Lock(wait  readers)", Site: "r.go:4"},
		}},
	},
	{
		"dashes",
		head + "\nswitch 0#1 -> 0.1 @ - -\npick 0#2 1/2 @ - p.go:1\npick 0#3 1/2 @ Op -\n",
		&Entry{Test: "TestX", Schedule: sched.Schedule{
			{Kind: sched.RunChoice, G: "0", N: 1, Next: "0.1"},
			{Kind: sched.PickChoice, G: "0", N: 2, Value: 1, Of: 2, Site: "p.go:1"},
			{Kind: sched.PickChoice, G: "0", N: 3, Value: 1, Of: 2, Op: "Op"},
		}},
	},
	{
		"found in any order, unknown fields kept",
		head + "found: depth=2 future=x iteration=0 seed=0xABC strategy=pct flag=\n",
		&Entry{Test: "TestX", Found: Found{Strategy: "pct", Seed: 0xabc, Depth: 2, Extra: []string{"future=x", "flag="}}},
	},
	{"empty found", head + "found:\n", &Entry{Test: "TestX"}},
	{"leading zeros in numbers", head + "preemptions: 01 (minimized from 007)\n\npick 0#01 01/003\n", &Entry{
		Test: "TestX", Preemptions: 1, Original: 7,
		Schedule: sched.Schedule{{Kind: sched.PickChoice, G: "0", N: 1, Value: 1, Of: 3}},
	}},
	{
		"unknown keys in order, among known ones",
		"weft schedule v1\nzeta: 1\ntest: TestX\nalpha: two words: and colon\nempty:\n",
		&Entry{Test: "TestX", Extra: [][2]string{{"zeta", "1"}, {"alpha", "two words: and colon"}, {"empty", ""}}},
	},
	{
		"switch to itself",
		head + "\nswitch 0.1#2 -> 0.1\n",
		&Entry{Test: "TestX", Schedule: sched.Schedule{{Kind: sched.RunChoice, G: "0.1", N: 2, Next: "0.1"}}},
	},
}

func TestParseWellFormed(t *testing.T) {
	for _, tt := range wellFormed {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse("f", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(e, tt.want) {
				t.Errorf("Parse =\n%#v\nwant\n%#v", e, tt.want)
			}
		})
	}
}

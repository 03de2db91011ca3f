package corpus

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/weftdev/weft/sched"
)

// example is the file of the format's documentation; it is canonical.
const example = `weft schedule v2
test: TestLostUpdate
found: strategy=pct seed=0x1b2c3d4e iteration=7 depth=3
failure: error in goroutine 0 at counter_test.go:31: counter = 1, want 2
signature: error counter_test.go:31
preemptions: 1 (minimized from 4)
hash: 0x8f3a11c2d4e5f607

# goroutine#event: the event at which a choice differs from the default policy
preempt 0#3 -> 0.2 @ Var.Load counter.go:12
switch 0.2#4 -> 0.1 @ Var.Store counter.go:12
pick 0.1#7 2/3 @ Select worker.go:30
switch 0.1.2#1 -> 0 @ RWMutex.Lock(wait readers) rw.go:40
preempt 0#9 -> clock @ Chan.Send fetch.go:21
switch 0#9+1 -> 0.1
preempt 0#12 -> 0.1
`

var exampleEntry = &Entry{
	Test:        "TestLostUpdate",
	Found:       Found{Strategy: "pct", Seed: 0x1b2c3d4e, Iteration: 7, Depth: 3},
	Failure:     "error in goroutine 0 at counter_test.go:31: counter = 1, want 2",
	Signature:   "error counter_test.go:31",
	Preemptions: 1,
	Original:    4,
	Hash:        0x8f3a11c2d4e5f607,
	Schedule: sched.Schedule{
		{Kind: sched.RunChoice, G: "0", N: 3, Next: "0.2", Preempt: true, Op: "Var.Load", Site: "counter.go:12"},
		{Kind: sched.RunChoice, G: "0.2", N: 4, Next: "0.1", Op: "Var.Store", Site: "counter.go:12"},
		{Kind: sched.PickChoice, G: "0.1", N: 7, Value: 2, Of: 3, Op: "Select", Site: "worker.go:30"},
		{Kind: sched.RunChoice, G: "0.1.2", N: 1, Next: "0", Op: "RWMutex.Lock(wait readers)", Site: "rw.go:40"},
		{Kind: sched.RunChoice, G: "0", N: 9, Next: "clock", Preempt: true, Op: "Chan.Send", Site: "fetch.go:21"},
		{Kind: sched.RunChoice, G: "0", N: 9, K: 1, Next: "0.1"},
		{Kind: sched.RunChoice, G: "0", N: 12, Next: "0.1", Preempt: true},
	},
}

func TestParseExample(t *testing.T) {
	e, err := Parse("example", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e, exampleEntry) {
		t.Errorf("Parse(example) =\n%#v\nwant\n%#v", e, exampleEntry)
	}
	if got := string(e.Marshal()); got != example {
		t.Errorf("Marshal is not the canonical text:\n%s\nwant\n%s", got, example)
	}
}

func TestRoundTrip(t *testing.T) {
	entries := map[string]*Entry{
		"example": exampleEntry,
		"minimal": {Test: "TestX"},
		"rich": {
			Test: "TestWorkers/two_readers#01",
			Found: Found{
				Strategy: "random", Seed: 0, Iteration: 0,
				Extra: []string{"flavor=new", "budget=", "x=a=b"},
			},
			Failure:     "deadlock: no goroutine can run: 0.1 in Chan.Recv at w.go:3; 0.2 in Mutex.Lock at -",
			Signature:   "deadlock Chan.Recv@w.go:3,Mutex.Lock@",
			Preemptions: 2,
			Hash:        1,
			Extra:       [][2]string{{"go", "go1.26 linux/amd64"}, {"weft-version", "v0.3.0"}, {"note", ""}, {"Weird.Key_2", "a: b: c"}},
			Schedule: sched.Schedule{
				{Kind: sched.RunChoice, G: "0", N: 1, Next: "0", Op: "Gosched"},                                      // a switch back to itself after a yield
				{Kind: sched.RunChoice, G: "0.12", N: 100000, Next: "0.2.13", Site: "worker_test.go:7"},              // no op
				{Kind: sched.RunChoice, G: "0.1", N: 2, Next: "0", Preempt: true, Op: "RWMutex.Lock(wait  readers)"}, // two spaces, no site
				{Kind: sched.PickChoice, G: "0", N: 3, Value: 0, Of: 2},
				{Kind: sched.PickChoice, G: "0.1.1.1", N: 5, Value: 9, Of: 10, Op: "Intn @ - # ->", Site: "a:b.go:0"},
				{Kind: sched.RunChoice, G: "0", N: 6, Next: "0.1", Op: "exit", Site: "x.go:1"},
			},
		},
		"depth only": {Test: "T", Found: Found{Depth: 2}},
		"seed only":  {Test: "T", Found: Found{Seed: 0xffffffffffffffff}, Hash: 0xffffffffffffffff},
		"original":   {Test: "T", Preemptions: 0, Original: 3},
		"unicode":    {Test: "TestÜnïcode/日本", Failure: "panic: value \u2028 «x»\ttab"},
		"input":      {Test: "TestProperty", Found: Found{Strategy: "rapid", Seed: 7}, Input: []uint64{0, 0x1f, 0xffffffffffffffff}},
		"parallel":   {Test: "TestUserLoader", Parallel: 2},
	}
	for name, e := range entries {
		t.Run(name, func(t *testing.T) {
			data := e.Marshal()
			got, err := Parse("marshaled", data)
			if err != nil {
				t.Fatalf("Parse(Marshal(e)): %v\n%s", err, data)
			}
			if !reflect.DeepEqual(got, e) {
				t.Errorf("Parse(Marshal(e)) =\n%#v\nwant\n%#v\ntext:\n%s", got, e, data)
			}
			if again := got.Marshal(); string(again) != string(data) {
				t.Errorf("Marshal is not a fixpoint:\n%s\nthen\n%s", data, again)
			}
		})
	}
}

// TestMarshalCleans checks that text the format cannot hold is adjusted into
// a valid file rather than breaking it.
func TestMarshalCleans(t *testing.T) {
	e := &Entry{
		Test:      " TestX\n",
		Failure:   "panic: boom\nsecond line\r\x1b[31mred\xff",
		Signature: " \n ",
		Found:     Found{Strategy: "my strategy", Extra: []string{"a=b c", ""}},
		Extra:     [][2]string{{"k", "multi\nline"}},
		Schedule: sched.Schedule{
			{Kind: sched.RunChoice, G: "0", N: 1, Next: "0.1", Op: " Mutex.Lock\n", Site: "my file.go:3"},
			{Kind: sched.RunChoice, G: "0", N: 2, Next: "0.1", Op: "x", Site: "?"},
			{Kind: sched.RunChoice, G: "0", N: 3, Next: "0.1", Op: "-", Site: "-"},
		},
	}
	data := e.Marshal()
	got, err := Parse("marshaled", data)
	if err != nil {
		t.Fatalf("Parse(Marshal(e)): %v\n%s", err, data)
	}
	want := &Entry{
		Test:    "TestX",
		Failure: "panic: boom second line  [31mred\uFFFD",
		Found:   Found{Strategy: "my_strategy", Extra: []string{"a=b_c"}},
		Extra:   [][2]string{{"k", "multi line"}},
		Schedule: sched.Schedule{
			{Kind: sched.RunChoice, G: "0", N: 1, Next: "0.1", Op: "Mutex.Lock", Site: "my_file.go:3"},
			{Kind: sched.RunChoice, G: "0", N: 2, Next: "0.1", Op: "x"},
			{Kind: sched.RunChoice, G: "0", N: 3, Next: "0.1"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse(Marshal(e)) =\n%#v\nwant\n%#v\ntext:\n%s", got, want, data)
	}
	// Found by FuzzMarshal: values that clean to nothing must not be written.
	if again := got.Marshal(); string(again) != string(data) {
		t.Errorf("Marshal(e) is not canonical:\n%s\nthen\n%s", data, again)
	}
}

func TestMarshalNoChoices(t *testing.T) {
	data := string((&Entry{Test: "TestX", Failure: "leak"}).Marshal())
	want := "weft schedule v2\ntest: TestX\nfailure: leak\npreemptions: 0\n\n# no choices: the default policy alone reproduces the failure\n"
	if data != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", data, want)
	}
}

func TestID(t *testing.T) {
	id := ID([]byte(example))
	if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Errorf("ID = %q, want 16 lower-case hex digits", id)
	}
	if ID([]byte(example)) != id || ID([]byte(example+"\n")) == id {
		t.Error("ID does not identify content")
	}
	// The first 8 bytes of SHA-256("").
	if got := ID(nil); got != "e3b0c44298fc1c14" {
		t.Errorf("ID(nil) = %s, want e3b0c44298fc1c14", got)
	}
}

// clone returns a deep copy of e.
func (e *Entry) clone() *Entry {
	c := *e
	c.Found.Extra = slices.Clone(e.Found.Extra)
	c.Extra = slices.Clone(e.Extra)
	c.Schedule = slices.Clone(e.Schedule)
	return &c
}

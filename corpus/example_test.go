package corpus_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/sched"
)

// A test's failures are kept under testdata/weft, one directory per test;
// a subtest's name nests, and every part is made a safe file name.
func ExampleDir() {
	fmt.Println(filepath.ToSlash(corpus.Dir("TestLostUpdate")))
	fmt.Println(filepath.ToSlash(corpus.Dir("TestCache/get and put")))
	// Output:
	// testdata/weft/TestLostUpdate
	// testdata/weft/TestCache/get_and_put
}

// An entry as weft saves it: the header says what failed and how it was
// found, the choices are the schedule that makes it fail again. Write
// names the file by a hash of its content, so saving the same failure
// twice keeps one file, and List reads the directory back.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "corpus")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	e := &corpus.Entry{
		Test:        "TestLostUpdate",
		Found:       corpus.Found{Strategy: "pct", Seed: 7, Iteration: 3, Depth: 2},
		Failure:     "error in goroutine 0 at counter_test.go:31: counter = 1, want 2",
		Signature:   "error counter_test.go:31",
		Preemptions: 1,
		Schedule: sched.Schedule{
			{Kind: sched.RunChoice, G: "0.1", N: 2, Next: "0.2", Preempt: true, Op: "Var.Load", Site: "counter.go:12"},
		},
	}
	for range 2 {
		if _, err := corpus.Write(dir, e); err != nil {
			log.Fatal(err)
		}
	}
	files, err := corpus.List(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Printf("%s: %s, %d choice\n", f.ID, f.Entry.Test, len(f.Entry.Schedule))
	}
	fmt.Print(string(e.Marshal()))
	// Output:
	// 4707296e0bbd0c30: TestLostUpdate, 1 choice
	// weft schedule v2
	// test: TestLostUpdate
	// found: strategy=pct seed=0x7 iteration=3 depth=2
	// failure: error in goroutine 0 at counter_test.go:31: counter = 1, want 2
	// signature: error counter_test.go:31
	// preemptions: 1
	//
	// # goroutine#event: the event at which a choice differs from the default policy
	// preempt 0.1#2 -> 0.2 @ Var.Load counter.go:12
}

// Parse reads a file a person may have edited: comments are kept out, and
// a mistake is reported with the file and the line.
func ExampleParse() {
	text := `weft schedule v2
test: TestLostUpdate
failure: counter = 1, want 2

# goroutine#event: the event at which a choice differs from the default policy
preempt 0.1#2 -> 0.2 @ Var.Load counter.go:12
pick 0.2#5 1/3
`
	e, err := corpus.Parse("testdata/weft/TestLostUpdate/example", []byte(text))
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range e.Schedule {
		if c.Kind == sched.RunChoice {
			fmt.Printf("at event %d of goroutine %s, %s runs (preempted: %v)\n", c.N, c.G, c.Next, c.Preempt)
		} else {
			fmt.Printf("at event %d of goroutine %s, value %d of %d\n", c.N, c.G, c.Value, c.Of)
		}
	}
	_, err = corpus.Parse("bad", []byte("weft schedule v2\ntest: TestX\n\nswitch 0#1 0.1\n"))
	fmt.Println(err)
	// Output:
	// at event 2 of goroutine 0.1, 0.2 runs (preempted: true)
	// at event 5 of goroutine 0.2, value 1 of 3
	// bad:4: incomplete switch: want "switch G#N -> H"
}

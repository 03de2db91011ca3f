package report

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// The format is stable: these are the fields of version 1, by object. A
// field may be added (here, in the package's doc, and in the README); none
// renamed or removed.
var fields = map[string][]string{
	"run":     {"version", "started", "elapsedSeconds", "budgetSeconds", "shard", "interrupted", "tests", "notRun"},
	"shard":   {"index", "count"},
	"test":    {"package", "dir", "test", "budgetSeconds", "budgetExecutions", "strategy", "seed", "executions", "elapsedSeconds", "executionsPerSecond", "failures", "saved", "known", "interrupted", "error"},
	"failure": {"kind", "signature", "summary", "execution", "seed", "preemptions", "preemptionsFound", "saved", "notSaved", "corpus", "replay", "html"},
}

func jsonNames(v any) []string {
	var names []string
	typ := reflect.TypeOf(v)
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

func TestFields(t *testing.T) {
	got := map[string][]string{"run": jsonNames(Run{}), "shard": jsonNames(Shard{}), "test": jsonNames(Test{}), "failure": jsonNames(Failure{})}
	for obj, want := range fields {
		if !slices.Equal(got[obj], want) {
			t.Errorf("%s's fields: %q, want %q (fields are only added)", obj, got[obj], want)
		}
	}
	// The README documents each.
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, "**The JSON report**")
	if i < 0 {
		t.Fatal("the README has no paragraph on the JSON report")
	}
	para, _, _ := strings.Cut(text[i:], "\n\n")
	for obj, names := range fields {
		for _, name := range names {
			if !strings.Contains(para, "`"+name+"`") {
				t.Errorf("the README's paragraph on the JSON report does not name %s's field %s", obj, name)
			}
		}
	}
}

// A report written is read back as it was; a report of a later version is
// refused with its version named.
func TestWriteRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "run.json")
	r := &Run{Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ElapsedSeconds: 61.2, Shard: &Shard{Index: 1, Count: 4},
		Tests: []Test{{Package: "example.com/bank", Dir: "./bank", Test: "TestTransfer", Seed: Seed(0x5ad1c0de), Executions: 10},
			{Test: "TestOther", Failures: []Failure{{Kind: "deadlock", Signature: "deadlock x.go:1", Saved: true, Corpus: "bank/testdata/weft/TestOther/0123456789abcdef"}}}}}
	if err := r.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != Version || got.Tests[0].Failures == nil || !reflect.DeepEqual(got, r) || got.Failures() != 1 {
		t.Errorf("read back %+v\nwrote %+v", got, r)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"failures": []`) || !strings.Contains(string(data), `"seed": "0x5ad1c0de"`) {
		t.Errorf("a test without failures lists none, seeds are strings:\n%s", data)
	}
	later := strings.Replace(string(data), `"version": 1`, `"version": 2`, 1)
	if err := os.WriteFile(path, []byte(later), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("a report of version 2: %v", err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/sched"
)

// writeEntry saves an entry under dir and returns its path.
func writeEntry(t *testing.T, dir, test, sig string, n, preemptions int) string {
	t.Helper()
	e := &corpus.Entry{Test: test, Signature: sig, Failure: sig + ": it failed", Preemptions: preemptions,
		Found:    corpus.Found{Strategy: "pct", Seed: 0x2a, Iteration: 6},
		Schedule: sched.Schedule{{Kind: sched.PickChoice, G: "0", N: n, Value: 1, Of: 2}}}
	path, err := corpus.Write(dir, e)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// weft merge takes the corpora of whole trees (the shards' checkouts) to
// the same paths, subtests' directories included, and nothing else.
func TestMergeTrees(t *testing.T) {
	shard0, shard1, dst := t.TempDir(), t.TempDir(), t.TempDir()
	bank := filepath.Join("bank", "testdata", "weft", "TestTransfer")
	sub := filepath.Join("bank", "testdata", "weft", "TestTransfer", "small")
	writeEntry(t, filepath.Join(shard0, bank), "TestTransfer", "deadlock bank.go:31", 1, 2)
	best := writeEntry(t, filepath.Join(shard1, bank), "TestTransfer", "deadlock bank.go:31", 2, 1)
	subEntry := writeEntry(t, filepath.Join(shard1, sub), "TestTransfer/small", "error bank_test.go:9", 3, 0)
	top := writeEntry(t, filepath.Join(shard0, "testdata", "weft", "TestRoot"), "TestRoot", "panic root.go:1", 4, 0)
	if err := os.WriteFile(filepath.Join(shard0, "bank", "bank.go"), []byte("package bank\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()

	var out strings.Builder
	if err := mergeTrees(&out, dst, []string{shard0, shard1, empty}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{filepath.Join(bank, filepath.Base(best)), filepath.Join(sub, filepath.Base(subEntry)),
		filepath.Join("testdata", "weft", "TestRoot", filepath.Base(top))} {
		if _, err := os.Stat(filepath.Join(dst, want)); err != nil {
			t.Errorf("%s not merged: %v\n%s", want, err, out.String())
		}
	}
	if files, _ := corpus.List(filepath.Join(dst, bank)); len(files) != 1 {
		t.Errorf("TestTransfer's corpus holds %d entries, want the one with the fewest preemptions\n%s", len(files), out.String())
	}
	if _, err := os.Stat(filepath.Join(dst, "bank", "bank.go")); err == nil {
		t.Error("a file outside the corpus was merged")
	}
	for _, want := range []string{"3 entries added, 1 left out", "the same failure as", empty + ": no saved schedule"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("weft merge's output lacks %q:\n%s", want, out.String())
		}
	}
	// A corpus directory merges into another as it is.
	one := t.TempDir()
	out.Reset()
	if err := mergeTrees(&out, one, []string{filepath.Join(shard1, bank)}); err != nil || len(dirNames(t, one)) != 2 {
		t.Errorf("merging one corpus directory: %v, %v\n%s", err, dirNames(t, one), out.String())
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// weft list's table: one line per entry, its age from the file's time.
func TestListTable(t *testing.T) {
	root := t.TempDir()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	path := writeEntry(t, filepath.Join(root, "bank", "testdata", "weft", "TestTransfer"), "TestTransfer", "deadlock Mutex.Lock@bank.go:31", 1, 2)
	if err := os.Chtimes(path, now, now.Add(-3*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(root, "bank", "testdata", "weft", "TestTransfer", "0123456789abcdef")
	if err := os.WriteFile(bad, []byte("weft schedule v1\ntest: TestTransfer\n\npreempt 0.1#x -> 0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	n, err := listTable(&out, []string{root}, now)
	if err != nil || n != 1 {
		t.Fatalf("%d malformed, %v\n%s", n, err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header, a line and a malformed file:\n%s", out.String())
	}
	want := []string{path, "TestTransfer", "deadlock", "deadlock", "Mutex.Lock@bank.go:31", "2", "pct", "0x2a", "#7", "3d"}
	if got := strings.Fields(lines[1]); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("line %q, want the fields %q", lines[1], want)
	}
	if !strings.HasPrefix(lines[2], bad+": MALFORMED: ") || !strings.Contains(lines[2], ":4:") {
		t.Errorf("the malformed file: %q", lines[2])
	}
	if _, err := listTable(&out, []string{t.TempDir()}, now); err == nil || !strings.Contains(err.Error(), "no saved schedule") {
		t.Errorf("an empty tree: %v", err)
	}
}

// weft show finds an entry's package and the -run pattern of its replay.
func TestEntryPackage(t *testing.T) {
	pkg, ok := packageOfEntry(filepath.FromSlash("/src/bank/testdata/weft/TestTransfer/small/0123456789abcdef"))
	if !ok || pkg != filepath.FromSlash("/src/bank") {
		t.Errorf("package %q, %v", pkg, ok)
	}
	if _, ok := packageOfEntry(filepath.FromSlash("/src/bank/0123456789abcdef")); ok {
		t.Error("a file outside testdata/weft has a package")
	}
	if got, want := entryPattern("TestTransfer/small.case", "0123456789abcdef"), `^TestTransfer$/^small\.case$/^0123456789abcdef$`; got != want {
		t.Errorf("pattern %s, want %s", got, want)
	}
}

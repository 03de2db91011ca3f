package corpus

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/weftdev/weft/sched"
)

// The shards of a nightly run find the same failure with different
// schedules: merged, each failure is saved once, with the fewest
// preemptions, whatever the order of the shards, and a failure the
// destination already holds is not saved again.
func TestMergeAllBySignature(t *testing.T) {
	entry := func(test, sig string, n, preemptions int) *Entry {
		return &Entry{Test: test, Signature: sig, Preemptions: preemptions,
			Schedule: sched.Schedule{{Kind: sched.PickChoice, G: "0", N: n, Value: 1, Of: 2}}}
	}
	shard0, shard1 := t.TempDir(), t.TempDir()
	write := func(dir string, e *Entry) string {
		t.Helper()
		p, err := Write(dir, e)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Base(p)
	}
	write(shard0, entry("TestX", "error a.go:1", 1, 3))
	best := write(shard1, entry("TestX", "error a.go:1", 2, 1))
	deadlock := write(shard0, entry("TestX", "deadlock b.go:2", 3, 2))
	same := write(shard1, entry("TestX", "deadlock b.go:2", 3, 2)) // the same entry
	known := entry("TestX", "panic c.go:3", 4, 1)
	write(shard1, known)
	other := write(shard1, entry("TestY", "error a.go:1", 5, 0)) // another test's

	for _, order := range [][]string{{shard0, shard1}, {shard1, shard0}} {
		dst := t.TempDir()
		write(dst, entry("TestX", "panic c.go:3", 6, 4)) // dst has the panic, by another schedule
		m, err := MergeAll(dst, order...)
		if err != nil {
			t.Fatal(err)
		}
		var added []string
		for _, f := range m.Added {
			added = append(added, f.ID)
		}
		slices.Sort(added)
		want := []string{best, deadlock, other}
		slices.Sort(want)
		if !slices.Equal(added, want) || deadlock != same {
			t.Errorf("merging %v added %v, want %v", order, added, want)
		}
		if len(m.Duplicates) != 3 {
			t.Errorf("duplicates %+v, want 3: the worse error, the same deadlock, the known panic", m.Duplicates)
		}
		for _, d := range m.Duplicates {
			if d.File.Entry.Signature == "panic c.go:3" && (!d.SameFailure || filepath.Dir(d.Of) != dst) {
				t.Errorf("the known panic: %+v, want a duplicate of dst's", d)
			}
		}
		if got := dirNames(t, dst); len(got) != 4 {
			t.Errorf("dst holds %v, want 4 entries", got)
		}
		again, err := MergeAll(dst, order...)
		if err != nil || len(again.Added) != 0 {
			t.Errorf("merging again added %+v (%v)", again.Added, err)
		}
	}
}

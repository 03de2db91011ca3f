package corpus

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/weftdev/weft/sched"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	good, err := Write(dir, exampleEntry)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"bad":                  head + "\nswitch 0#1 -> 0.1\npick 0#2 7/3\n",
		"handmade":             head,
		".tmp-123":             "partial",
		".DS_Store":            "junk",
		"sub/0123456789abcdef": head, // a subtest's corpus
	})
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(dir, "handmade"), filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "dirlink")); err != nil {
			t.Fatal(err)
		}
	}

	files, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range files {
		ids = append(ids, f.ID)
		if f.Path != filepath.Join(dir, f.ID) {
			t.Errorf("%s: Path = %s", f.ID, f.Path)
		}
		if (f.Entry == nil) == (f.Err == nil) {
			t.Errorf("%s: Entry %v and Err %v", f.ID, f.Entry, f.Err)
		}
	}
	want := []string{filepath.Base(good), "bad", "handmade"}
	if runtime.GOOS != "windows" {
		want = append(want, "link")
	}
	slices.Sort(want)
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("List IDs = %v, want %v", ids, want)
	}
	for _, f := range files {
		switch f.ID {
		case "bad":
			var pe *ParseError
			if !errors.As(f.Err, &pe) || f.Err.Error() != filepath.Join(dir, "bad")+":5: pick value 7 out of range 0..2" {
				t.Errorf("bad: Err = %v", f.Err)
			}
		case "handmade", "link":
			if !reflect.DeepEqual(f.Entry, &Entry{Test: "TestX"}) {
				t.Errorf("%s: Entry = %#v", f.ID, f.Entry)
			}
		default:
			if !reflect.DeepEqual(f.Entry, exampleEntry) {
				t.Errorf("%s: Entry = %#v", f.ID, f.Entry)
			}
		}
	}
}

func TestListMissing(t *testing.T) {
	files, err := List(filepath.Join(t.TempDir(), "none"))
	if err != nil || len(files) != 0 {
		t.Errorf("List(missing) = %v, %v; want empty, no error", files, err)
	}
}

func TestListNotDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	writeFiles(t, filepath.Dir(file), map[string]string{"f": head})
	if _, err := List(file); err == nil || !strings.HasPrefix(err.Error(), "corpus: list "+file) {
		t.Errorf("List(file) = %v, want a corpus: list error", err)
	}
}

func TestMerge(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "dst")
	entry := func(n int) *Entry {
		return &Entry{Test: "TestX", Schedule: sched.Schedule{{Kind: sched.PickChoice, G: "0", N: n, Value: 1, Of: 2}}}
	}
	p1, _ := Write(src, entry(1))
	p2, _ := Write(src, entry(2))
	commented := "# found on CI\n"
	writeFiles(t, src, map[string]string{
		"renamed":   string(entry(1).Marshal()),                 // entry 1 under another name
		"commented": head + "\n" + commented + "pick 0#3 1/2\n", // a new entry, with a comment
		"broken":    head + "\npick 0#4 1/2 @ Op\n",
		".tmp-x":    "partial",
	})
	if _, err := Write(dst, entry(2)); err != nil { // dst already has entry 2
		t.Fatal(err)
	}

	added, err := Merge(dst, src)
	if want := []string{"commented", filepath.Base(p1)}; !sameSet(added, want) {
		t.Errorf("added %v, want %v", added, want)
	}
	if err == nil || !strings.Contains(err.Error(), filepath.Join(src, "broken")+":4: pick: @ needs an operation and a site") {
		t.Errorf("Merge error = %v, want one naming %s:4", err, filepath.Join(src, "broken"))
	}
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != filepath.Join(src, "broken") {
		t.Errorf("Merge error %v does not wrap the *ParseError", err)
	}
	if _, statErr := os.Stat(filepath.Join(dst, "broken")); !errors.Is(statErr, fs.ErrNotExist) {
		t.Error("Merge copied a malformed file")
	}
	want := []string{filepath.Base(p1), filepath.Base(p2), "commented"}
	if got := dirNames(t, dst); !sameSet(got, want) {
		t.Errorf("dst holds %v, want %v", got, want)
	}
	if data, _ := os.ReadFile(filepath.Join(dst, "commented")); !strings.Contains(string(data), commented) {
		t.Errorf("Merge did not copy the file verbatim:\n%s", data)
	}

	// Merging again adds nothing.
	os.Remove(filepath.Join(src, "broken"))
	added, err = Merge(dst, src)
	if err != nil || len(added) != 0 {
		t.Errorf("second Merge = %v, %v; want nothing added", added, err)
	}
}

func TestMergeMissingSource(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	_, err := Merge(t.TempDir(), missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "corpus: merge "+missing) {
		t.Errorf("Merge from a missing directory = %v", err)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

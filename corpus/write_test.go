package corpus

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weftdev/weft/sched"
)

// dirNames returns the names in dir, dotfiles included.
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

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "testdata", "weft", "TestLostUpdate")
	path, err := Write(dir, exampleEntry)
	if err != nil {
		t.Fatal(err)
	}
	data := exampleEntry.Marshal()
	if want := filepath.Join(dir, ID(data)); path != want {
		t.Errorf("Write returned %s, want %s", path, want)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(data) {
		t.Errorf("file holds\n%s\nwant\n%s", got, data)
	}
	e, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e, exampleEntry) {
		t.Errorf("Read = %#v, want %#v", e, exampleEntry)
	}

	// Same content: same path, nothing rewritten.
	old, _ := os.Stat(path)
	path2, err := Write(dir, exampleEntry)
	if err != nil || path2 != path {
		t.Fatalf("second Write = %s, %v; want %s", path2, err, path)
	}
	if now, _ := os.Stat(path); !os.SameFile(old, now) {
		t.Error("second Write replaced the file")
	}

	// Another entry: another file.
	other := *exampleEntry
	other.Schedule = other.Schedule[:2]
	path3, err := Write(dir, &other)
	if err != nil {
		t.Fatal(err)
	}
	if path3 == path {
		t.Error("different entries share a path")
	}
	names := dirNames(t, dir)
	if len(names) != 2 {
		t.Errorf("dir holds %v, want the 2 entries and no temporary file", names)
	}
}

func TestWriteKeepsEditedFile(t *testing.T) {
	dir := t.TempDir()
	path, err := Write(dir, exampleEntry)
	if err != nil {
		t.Fatal(err)
	}
	// A person adds a comment: same entry, the comment stays.
	edited := strings.Replace(example, "\npreempt 0#9", "\n# the lost update happens here\npreempt 0#9", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, exampleEntry); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != edited {
		t.Errorf("Write replaced an edited file holding the same entry:\n%s", got)
	}
	// A corrupt file under the entry's name is replaced.
	if err := os.WriteFile(path, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, exampleEntry); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != example {
		t.Errorf("Write left a corrupt file:\n%s", got)
	}
}

func TestWriteInvalid(t *testing.T) {
	for name, e := range map[string]*Entry{
		"no test":    {},
		"bad kind":   {Test: "T", Schedule: sched.Schedule{{G: "0", N: 1}}},
		"bad range":  {Test: "T", Schedule: sched.Schedule{{Kind: sched.PickChoice, G: "0", N: 1, Value: 2, Of: 2}}},
		"bad G":      {Test: "T", Schedule: sched.Schedule{{Kind: sched.RunChoice, G: "g1", N: 1, Next: "0"}}},
		"bad key":    {Test: "T", Extra: [][2]string{{"a key", "x"}}},
		"known key":  {Test: "T", Extra: [][2]string{{"test", "x"}}},
		"negative N": {Test: "T", Schedule: sched.Schedule{{Kind: sched.RunChoice, G: "0", N: -1, Next: "0.1"}}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "c")
			path, err := Write(dir, e)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Write = %q, %v; want a *ParseError", path, err)
			}
			if !strings.HasPrefix(err.Error(), "corpus: write ") {
				t.Errorf("error %q lacks context", err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Write of an invalid entry created %s (%v)", dir, err)
			}
		})
	}
}

func TestWriteError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Write(filepath.Join(file, "sub"), exampleEntry)
	if err == nil || !strings.HasPrefix(err.Error(), "corpus: write "+filepath.Join(file, "sub")) {
		t.Errorf("Write under a file: %v, want a corpus: write error", err)
	}
}

func TestReadError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	_, err := Read(missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "corpus: read "+missing) {
		t.Errorf("Read(missing) = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte(head+"\npick 0#1 2/2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Read(bad)
	if want := bad + ":4: pick value 2 out of range 0..1"; err == nil || err.Error() != want {
		t.Errorf("Read(bad) = %v, want %s", err, want)
	}
}

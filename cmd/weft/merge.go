package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/weftdev/weft/corpus"
)

const mergeUsage = `usage: weft merge DST SRC...

Copies the saved schedules of the corpora under each SRC missing from the
corpora under DST: every directory below a testdata/weft directory of SRC
goes to the same path below DST. An entry is left out if DST holds the same
entry, or an entry of the same test with the same failure (signature); of
the sources' entries of one failure, the one with the fewest preemptions is
copied. Merging the corpora of a nightly run's shards, say:

  weft merge . shard-0 shard-1 shard-2

where each shard-I is a copy of the repository's files (or only of its
testdata/weft directories) after shard I's run.
`

// merge is weft merge.
func merge(args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Print(mergeUsage)
		return nil
	}
	if len(args) < 2 {
		return errors.New("want DST SRC...\n" + mergeUsage)
	}
	return mergeTrees(os.Stdout, args[0], args[1:])
}

// mergeTrees merges the corpus directories under each of srcs into the same
// paths under dst, and prints what it added and left out.
func mergeTrees(w io.Writer, dst string, srcs []string) error {
	bySub := map[string][]string{} // a corpus directory's path below its root: its copies in the sources
	for _, src := range srcs {
		dirs, err := corpusDirs(src)
		if err != nil {
			return err
		}
		if len(dirs) == 0 {
			// A shard that found nothing leaves nothing to merge.
			fmt.Fprintf(w, "%s: no saved schedule (no file below a testdata/weft directory)\n", src)
		}
		for _, rel := range dirs {
			bySub[rel] = append(bySub[rel], filepath.Join(src, rel))
		}
	}
	var errs []error
	added, dups := 0, 0
	for _, rel := range slices.Sorted(maps.Keys(bySub)) {
		target := filepath.Join(dst, rel)
		m, err := corpus.MergeAll(target, bySub[rel]...)
		if err != nil {
			errs = append(errs, err)
		}
		for _, f := range m.Added {
			fmt.Fprintf(w, "added %s (from %s): %s\n", filepath.Join(target, f.ID), f.Path, f.Entry.Failure)
		}
		for _, d := range m.Duplicates {
			why := "the same entry as"
			if d.SameFailure {
				why = "the same failure as"
			}
			fmt.Fprintf(w, "left out %s: %s %s\n", d.File.Path, why, d.Of)
		}
		added += len(m.Added)
		dups += len(m.Duplicates)
	}
	fmt.Fprintf(w, "%d entries added, %d left out as duplicates\n", added, dups)
	return errors.Join(errs...)
}

// corpusDirs returns the directories under root, relative to it, that lie
// below a testdata/weft directory and hold files: root itself (".") if it
// is one, such as pkg/testdata/weft/TestX.
func corpusDirs(root string) ([]string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var dirs []string
	err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != abs && (name == ".git" || name == "node_modules" || name == "vendor") {
			return filepath.SkipDir
		}
		if !belowCorpus(path) || !hasFiles(path) {
			return nil
		}
		rel, err := filepath.Rel(abs, path)
		if err != nil {
			return err
		}
		dirs = append(dirs, rel)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	return dirs, nil
}

// belowCorpus reports whether an absolute path lies below a testdata/weft
// directory, where a test's corpus lives.
func belowCorpus(path string) bool {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := 0; i+2 < len(parts); i++ {
		if parts[i] == "testdata" && parts[i+1] == "weft" {
			return true
		}
	}
	return false
}

// hasFiles reports whether a directory holds a file not hidden.
func hasFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			return true
		}
	}
	return false
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/weftdev/weft/corpus"
)

// show prints saved schedules, so that a malformed one is reported with
// its file, line and problem.
func show(args []string) error {
	if len(args) == 0 {
		return errors.New("no files given")
	}
	bad := 0
	for _, path := range args {
		e, err := corpus.Read(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			bad++
			continue
		}
		fmt.Printf("%s:\n", path)
		fmt.Printf("  test:        %s\n", e.Test)
		fmt.Printf("  failure:     %s\n", e.Failure)
		fmt.Printf("  preemptions: %d (minimized from %d)\n", e.Preemptions, e.Original)
		if e.Found.Strategy != "" {
			fmt.Printf("  found by:    %s, seed %#x, execution %d\n", e.Found.Strategy, e.Found.Seed, e.Found.Iteration+1)
		}
		fmt.Printf("  choices:\n")
		for _, line := range strings.Split(strings.TrimSpace(string(e.Marshal())), "\n") {
			if strings.HasPrefix(line, "switch ") || strings.HasPrefix(line, "preempt ") || strings.HasPrefix(line, "pick ") {
				fmt.Printf("    %s\n", line)
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d files malformed", bad, len(args))
	}
	return nil
}

// list prints one line per saved schedule under a directory tree.
func list(args []string) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	root := filepath.Join("testdata", "weft")
	if fs.NArg() > 0 {
		root = fs.Arg(0)
	}
	bad := 0
	err := walkDirs(root, func(dir string) error {
		files, err := corpus.List(dir)
		if err != nil {
			return err
		}
		for _, f := range files {
			if f.Err != nil {
				fmt.Printf("%s  MALFORMED: %v\n", f.Path, f.Err)
				bad++
				continue
			}
			fmt.Printf("%s  %s  %d preemption(s)  %s\n", f.Path, f.Entry.Test, f.Entry.Preemptions, f.Entry.Failure)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d malformed file(s)", bad)
	}
	return nil
}

func walkDirs(root string, f func(dir string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return fmt.Errorf("no corpus at %s", root)
			}
			return err
		}
		if d.IsDir() {
			return f(path)
		}
		return nil
	})
}

// merge copies the entries of one corpus directory missing from another.
func merge(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: weft merge DST SRC")
	}
	added, err := corpus.Merge(args[0], args[1])
	for _, id := range added {
		fmt.Printf("added %s\n", filepath.Join(args[0], id))
	}
	return err
}

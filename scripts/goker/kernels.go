//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// kernel is one GoKer bug: its folder, relative to the scratch module, and
// its class as GoBench's configures/goker files give it.
type kernel struct {
	name     string // project_id, as GoBench names it: moby_28462
	dir      string // blocking/moby/28462
	blocking bool
	class    string // Resource Deadlock, Communication Deadlock, Mixed Deadlock, Traditional, Go-Specific
	subclass string // Double locking, Channel misuse, Data race, ...
}

// load lists the kernels under gobench/goker with their classes.
func load(gobench string) ([]kernel, error) {
	var ks []kernel
	for _, kind := range []string{"blocking", "nonblocking"} {
		classes, err := readClasses(filepath.Join(gobench, "configures", "goker", kind+".json"))
		if err != nil {
			return nil, err
		}
		dirs, err := filepath.Glob(filepath.Join(gobench, "goker", kind, "*", "*"))
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			project, id := filepath.Base(filepath.Dir(d)), filepath.Base(d)
			name := project + "_" + id
			c, ok := classes[name]
			if !ok {
				return nil, fmt.Errorf("%s: kernel %s has no class in configures/goker/%s.json", d, name, kind)
			}
			ks = append(ks, kernel{name: name, dir: filepath.Join(kind, project, id), blocking: kind == "blocking", class: c.Type, subclass: c.Subtype})
		}
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("%s: no kernel under goker/{blocking,nonblocking}/PROJECT/ID", gobench)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].dir < ks[j].dir })
	return ks, nil
}

type class struct{ Type, Subtype string }

func readClasses(path string) (map[string]class, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]class
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// scratch copies the kernels into a fresh module under work and returns
// its folder. The kernels import the standard library alone; go 1.21 keeps
// the loop variable semantics they were written for (a loop variable
// captured by a goroutine is part of some of their bugs).
func scratch(gobench, work string) (string, error) {
	mod := filepath.Join(work, "goker")
	if err := os.RemoveAll(mod); err != nil {
		return "", err
	}
	if err := os.CopyFS(mod, os.DirFS(filepath.Join(gobench, "goker"))); err != nil {
		return "", fmt.Errorf("copying the kernels: %w", err)
	}
	err := filepath.WalkDir(mod, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(path, 0o755)
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return os.Chmod(path, 0o644)
	})
	if err != nil {
		return "", err
	}
	return mod, os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module goker\n\ngo 1.21\n"), 0o644)
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/weftdev/weft/internal/text"
	"github.com/weftdev/weft/internal/workspace"
)

// A setup is what weft test hands go test, and what it tells the user: the
// overlay of the user's rewritten files, the go.work that uses the user's
// modules and weft and replaces instrumented dependencies with rewritten
// copies, and what was instrumented and what left alone.
type setup struct {
	Overlay string
	Work    string
	// Instrumented counts the packages instrumented, Deps those of them
	// that are dependencies (not of the user's modules).
	Instrumented, Deps int
	Sites              []string // sites left alone: file:line: what: why
	Packages           []string // packages left alone: path: why
}

// summarize writes the line that ends every weft test.
func (s *setup) summarize(w io.Writer) {
	more := ""
	if len(s.Sites)+len(s.Packages) > 0 {
		more = " (weft test -v lists them)"
	}
	fmt.Fprintf(w, "weft: %s instrumented (%d in dependencies), %s left alone, %s skipped%s\n",
		text.Count(s.Instrumented, "package"), s.Deps, text.Count(len(s.Sites), "site"), text.Count(len(s.Packages), "package"), more)
}

// list writes the sites and packages left alone, for -v.
func (s *setup) list(w io.Writer) {
	for _, p := range s.Packages {
		fmt.Fprintf(w, "weft: skipped: %s\n", p)
	}
	for _, site := range s.Sites {
		fmt.Fprintf(w, "weft: left alone: %s\n", site)
	}
}

// valid reports whether the files a memoized setup names are all still in
// the cache.
func (s *setup) valid() bool {
	data, err := os.ReadFile(s.Overlay)
	if err != nil {
		return false
	}
	var o struct{ Replace map[string]string }
	if json.Unmarshal(data, &o) != nil {
		return false
	}
	for _, f := range o.Replace {
		if _, err := os.Stat(f); err != nil {
			return false
		}
	}
	work, err := os.ReadFile(s.Work)
	if err != nil {
		return false
	}
	// The shim, weft's source and the copies the go.work uses and replaces
	// with: every absolute path in it.
	for _, field := range strings.Fields(string(work)) {
		if filepath.IsAbs(field) {
			if _, err := os.Stat(field); err != nil {
				return false
			}
		}
	}
	return true
}

// cacheDir returns weft's directory in the user's cache.
func cacheDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a cache directory: %w", err)
	}
	dir := filepath.Join(cache, "weft")
	return dir, os.MkdirAll(dir, 0o755)
}

// prepare returns the setup of a weft test run in workdir. A warm run
// finds it memoized under the fingerprint of its inputs, which needs
// neither the go command nor type checking: that is what makes a warm weft
// test nearly as fast as go test.
func prepare(workdir string, a testArgs) (*setup, error) {
	cache, err := cacheDir()
	if err != nil {
		return nil, err
	}
	key, err := fingerprint(workdir, a)
	if err != nil {
		return nil, err
	}
	memo := filepath.Join(cache, "runs", key+".json")
	if data, err := os.ReadFile(memo); err == nil {
		var s setup
		if json.Unmarshal(data, &s) == nil && s.valid() {
			return &s, nil
		}
	}
	s, err := build(workdir, cache, a)
	if err != nil {
		return nil, err
	}
	if data, err := json.Marshal(s); err == nil && os.MkdirAll(filepath.Dir(memo), 0o755) == nil {
		workspace.WriteAtomic(memo, data) // a cache: failing to write it costs the next run time, nothing else
	}
	return s, nil
}

// fingerprint digests what a setup depends on: weft's build, the command's
// arguments, the environment that chooses files and modules, and the files
// of the user's modules (and of the local directories they replace modules
// with) by path, size and modification time: their Go files, and go.mod,
// go.sum, go.work and vendor/modules.txt, whose versions identify the
// content of every dependency.
func fingerprint(workdir string, a testArgs) (string, error) {
	wd, err := filepath.Abs(workdir)
	if err != nil {
		return "", err
	}
	dirs, files, err := workspace.Sources(wd)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	// Patterns are relative to the directory they are given in; build tags
	// and the target choose the files.
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00%q\x00%q\x00%q\x00%s\x00", weftVersion(), wd, a.patterns, a.instrument, a.skip, buildFlags(a.goArgs), a.mod)
	for _, env := range []string{"GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED", "GOWORK", "GOMODCACHE", "GOPATH", "GOEXPERIMENT", "GOTOOLCHAIN"} {
		fmt.Fprintf(h, "%s=%s\x00", env, os.Getenv(env))
	}
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00", f, info.Size(), info.ModTime().UnixNano())
		}
	}
	for _, root := range dirs {
		if err := digestTree(h, root); err != nil {
			return "", fmt.Errorf("reading the sources under %s: %w", root, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// digestTree writes the path, size and modification time of the files of a
// module tree that a build reads to h.
func digestTree(h io.Writer, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") && name != "go.mod" && name != "go.sum" && name != "go.work" && name != "modules.txt" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", path, info.Size(), info.ModTime().UnixNano())
		return nil
	})
}

// buildFlags returns the go test flags that choose which files are built.
func buildFlags(goArgs []string) []string {
	var out []string
	for i, arg := range goArgs {
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch name {
		case "tags", "race", "msan", "asan", "cover", "coverpkg", "covermode":
			out = append(out, arg)
			if !hasValue && !goTestBoolFlags[name] && i+1 < len(goArgs) {
				out = append(out, goArgs[i+1])
			}
		}
	}
	return out
}

// weftVersion identifies the build of weft that rewrites, for the cache
// key: a changed rewriter must not reuse old rewrites.
func weftVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version + " " + info.Main.Sum
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			v += " " + s.Value
		}
	}
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			v += fmt.Sprintf(" %d %d", st.Size(), st.ModTime().UnixNano())
		}
	}
	return v
}

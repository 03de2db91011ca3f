package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"

	"github.com/weftdev/weft/instrument"
)

// goTestBoolFlags are the go test and test binary flags that take no value;
// every other flag given as "-flag value" takes the next argument.
var goTestBoolFlags = map[string]bool{
	"a": true, "n": true, "x": true, "v": true, "race": true, "msan": true, "asan": true,
	"cover": true, "short": true, "json": true, "failfast": true, "benchmem": true,
	"fullpath": true, "trimpath": true, "work": true, "i": true, "c": true,
	"explore": true, // weft's own, registered in the test binary
}

// testArgs is a weft test command line, split.
type testArgs struct {
	instrument []string // -instrument patterns
	verbose    bool     // -v: list the sites left alone
	goArgs     []string // flags for go test, in order
	patterns   []string // packages to test
}

func parseTestArgs(args []string) (testArgs, error) {
	var a testArgs
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.patterns = append(a.patterns, arg)
			continue
		}
		if arg == "--" {
			a.goArgs = append(a.goArgs, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if name == "instrument" {
			if !hasValue {
				if i+1 == len(args) {
					return a, errors.New("-instrument needs a package pattern")
				}
				i++
				value = args[i]
			}
			a.instrument = append(a.instrument, strings.Split(value, ",")...)
			continue
		}
		if name == "v" && (!hasValue || value == "true") {
			a.verbose = true
		}
		a.goArgs = append(a.goArgs, arg)
		if !hasValue && !goTestBoolFlags[name] && i+1 < len(args) {
			i++
			a.goArgs = append(a.goArgs, args[i])
		}
	}
	if len(a.patterns) == 0 {
		a.patterns = []string{"."}
	}
	return a, nil
}

// testCmd is weft test: go test of instrumented packages. It exits as go
// test does.
func testCmd(args []string) error {
	code, err := runTest("", args, os.Stdout, os.Stderr)
	if err != nil {
		return err
	}
	if code != 0 {
		os.Exit(code)
	}
	return nil
}

// runTest runs weft test in dir (the current directory if empty) and
// returns go test's exit code.
func runTest(dir string, args []string, stdout, stderr io.Writer) (int, error) {
	a, err := parseTestArgs(args)
	if err != nil {
		return 0, err
	}
	overlay, err := makeOverlay(dir, a, stderr)
	if err != nil {
		return 0, err
	}
	// The packages go before the flags: go test cannot tell whether a flag
	// it does not know (-explore) takes a value.
	cmd := exec.Command("go", append(append([]string{"test", "-overlay=" + overlay}, a.patterns...), a.goArgs...)...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), nil
		}
		return 0, err
	}
	return 0, nil
}

// overlayCmd is weft overlay: it prints the overlay file for go test
// -overlay.
func overlayCmd(args []string) error {
	a, err := parseTestArgs(args)
	if err != nil {
		return err
	}
	overlay, err := makeOverlay("", a, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Println(overlay)
	return nil
}

// makeOverlay rewrites the packages to test, and those named by
// -instrument, and returns the path of an overlay file mapping their files
// to the rewritten copies. The copies live in the user's cache directory,
// named by a hash of their content and of weft's version, so a second run
// rewrites nothing new. With verbose, the sites left alone are listed on w.
func makeOverlay(workdir string, a testArgs, w io.Writer) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a cache directory: %w", err)
	}
	dir := filepath.Join(cache, "weft", "overlay")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// A warm run needs no type checking: the overlay of the same sources,
	// rewritten by the same weft, is in the cache already.
	key, err := fingerprint(workdir, a)
	if err != nil {
		return "", err
	}
	memo := filepath.Join(dir, "run-"+key+".json")
	if data, err := os.ReadFile(memo); err == nil {
		var m memoized
		if json.Unmarshal(data, &m) == nil && m.valid() {
			if a.verbose {
				for _, s := range m.Skips {
					fmt.Fprintf(w, "weft: left alone: %s\n", s)
				}
			}
			return m.Overlay, nil
		}
	}
	overlay, skips, err := rewriteAll(workdir, dir, a)
	if err != nil {
		return "", err
	}
	if a.verbose {
		for _, s := range skips {
			fmt.Fprintf(w, "weft: left alone: %s\n", s)
		}
	}
	m := memoized{Overlay: overlay, Skips: skips}
	if data, err := json.Marshal(m); err == nil {
		writeAtomic(memo, data) // a cache: failing to write it costs the next run time, nothing else
	}
	return overlay, nil
}

// memoized is the outcome of a rewrite, kept in the cache under the
// fingerprint of its inputs.
type memoized struct {
	Overlay string
	Skips   []string
}

func (m memoized) valid() bool {
	data, err := os.ReadFile(m.Overlay)
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
	return true
}

// fingerprint digests what a rewrite depends on: weft's build, the
// command's arguments, and the Go files of the main module and of the local
// modules its go.mod replaces others with, by path, size and modification
// time. It needs neither the go command nor type checking, which is what
// makes a warm weft test nearly as fast as go test.
func fingerprint(workdir string, a testArgs) (string, error) {
	gomod, err := findGoMod(workdir)
	if err != nil {
		return "", err
	}
	wd, err := filepath.Abs(workdir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	// Patterns are relative to the directory they are given in; build tags
	// and the target choose the files.
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00%q\x00%q\x00", weftVersion(), wd, a.patterns, a.instrument, buildFlags(a.goArgs))
	for _, env := range []string{"GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED"} {
		fmt.Fprintf(h, "%s=%s\x00", env, os.Getenv(env))
	}
	roots := []string{filepath.Dir(gomod)}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	if f, err := modfile.ParseLax(gomod, data, nil); err == nil {
		for _, r := range f.Replace {
			if modfile.IsDirectoryPath(r.New.Path) {
				dir := r.New.Path
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(filepath.Dir(gomod), dir)
				}
				roots = append(roots, dir)
			}
		}
	}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
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
			if !strings.HasSuffix(name, ".go") && name != "go.mod" && name != "go.sum" && name != "go.work" {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00", path, info.Size(), info.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("reading the sources under %s: %w", root, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// buildFlags returns the go test flags that choose which files are built.
func buildFlags(goArgs []string) []string {
	var out []string
	for i, arg := range goArgs {
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch name {
		case "tags", "race", "msan", "asan", "mod", "cover", "coverpkg", "covermode":
			out = append(out, arg)
			if !hasValue && !goTestBoolFlags[name] && i+1 < len(goArgs) {
				out = append(out, goArgs[i+1])
			}
		}
	}
	return out
}

// findGoMod returns the go.mod of the module dir is in.
func findGoMod(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "go.mod"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not in a Go module (no go.mod above it)", dir)
		}
	}
}

// rewriteAll loads and rewrites the packages, writes the rewritten files
// and the overlay into dir, and returns the overlay's path and the sites
// left alone.
func rewriteAll(workdir, dir string, a testArgs) (string, []string, error) {
	cfg := &packages.Config{Mode: instrument.LoadMode, Tests: true, Dir: workdir}
	// One load, weft's runtime included, so that the rewrite can be
	// type-checked against it.
	patterns := append(append(append([]string{}, a.patterns...), a.instrument...), instrument.RuntimePackages...)
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		return "", nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	runtimePaths := map[string]bool{}
	for _, p := range instrument.RuntimePackages {
		runtimePaths[p] = true
	}
	paths := map[string]bool{}
	modcache := goEnv(workdir, "GOMODCACHE")
	for _, p := range roots {
		path := strings.TrimSuffix(p.PkgPath, "_test")
		if runtimePaths[path] {
			continue
		}
		if len(p.Errors) > 0 {
			return "", nil, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
		}
		if p.Module == nil || len(p.GoFiles) > 0 && modcache != "" && strings.HasPrefix(p.GoFiles[0], modcache+string(filepath.Separator)) {
			return "", nil, fmt.Errorf("-instrument %s: %s is in the module cache or the standard library, which go test -overlay cannot replace; vendor it (go mod vendor) or point a replace directive at a copy of it", strings.Join(a.instrument, ","), p.PkgPath)
		}
		paths[path] = true
	}
	res, err := instrument.Rewrite(roots, instrument.Config{Instrument: func(path string) bool { return paths[path] }})
	if err != nil {
		return "", nil, err
	}
	version := weftVersion()
	replace := map[string]string{}
	for _, path := range slices.Sorted(maps.Keys(res.Files)) {
		src := res.Files[path]
		sum := sha256.Sum256(append([]byte(version+"\x00"+path+"\x00"), src...))
		name := filepath.Join(dir, hex.EncodeToString(sum[:12])+"-"+filepath.Base(path))
		if _, err := os.Stat(name); err != nil {
			if err := writeAtomic(name, src); err != nil {
				return "", nil, err
			}
		}
		replace[path] = name
	}
	skips := res.Skips
	for _, p := range res.Packages {
		if p.Instrumented && p.Whole != "" {
			skips = append(skips, instrument.Skip{What: "package " + p.ID, Why: p.Whole})
		}
	}
	var lines []string
	for _, s := range skips {
		lines = append(lines, s.String())
	}
	sort.Strings(lines)
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(data)
	overlay := filepath.Join(dir, "overlay-"+hex.EncodeToString(sum[:12])+".json")
	if _, err := os.Stat(overlay); err != nil {
		if err := writeAtomic(overlay, data); err != nil {
			return "", nil, err
		}
	}
	return overlay, lines, nil
}

// weftVersion identifies the build of weft that rewrites, for the cache
// key: a changed rewriter must not reuse old rewrites.
func weftVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
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

func writeAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func goEnv(dir, name string) string {
	cmd := exec.Command("go", "env", name)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Package workspace sets up the build of weft test without touching a file
// of the user: an alternate go.work in weft's cache, handed to the go
// command through the GOWORK environment variable. It uses the user's
// modules, each keeping its own go line and so its language version (a go
// 1.21 module keeps per-loop variables), and a small module of its own that
// requires weft, whose source is the one this binary was built from.
// Dependencies that weft instruments are replaced with rewritten copies of
// their modules (the module cache cannot be overlaid), and a vendored build
// is replaced module by module with copies of vendor/.
package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// WeftModule is weft's module path.
const WeftModule = "github.com/weftdev/weft"

// shimModule is the path of the module that requires weft in the
// workspace: a name no real module can have.
const shimModule = "weft.invalid/shim"

// A Workspace is the alternate go.work weft test loads and builds with.
type Workspace struct {
	// Modules are the directories of the user's modules: the module weft
	// test runs in, or the modules of the user's go.work. Their files are
	// overlaid; every other module's are copied.
	Modules []string
	// Vendor reports whether the build takes the dependencies from the
	// user's vendor directory (go's -mod=vendor), as copies of its modules.
	Vendor bool

	dir      string            // the workspace's directory in weft's cache
	file     string            // the base go.work, without the copies of instrumented modules
	goLine   string            // its go version
	uses     []string          // absolute directories
	replaces []replace         // in order
	godebug  []string          // key=value
	sums     []byte            // the user's go.work.sum, if any
	weftUsed bool              // weft's module is one of the user's
	origins  map[string]string // the vendor/ directory of each vendored module's copy
}

// replace is a replace directive with absolute directories.
type replace struct {
	path, version string // the module replaced, at every version if version is empty
	to            string // a directory, or a module path with toVersion
	toVersion     string
}

// Config says where weft test runs and with what.
type Config struct {
	Dir   string // the directory weft test runs in; "" is the current one
	Cache string // weft's cache directory
	Weft  string // the directory of weft's module source (see WeftSource)
	// Mod is go's -mod flag as the user gave it on the command line or in
	// GOFLAGS ("" if not): a workspace allows only readonly and vendor, so
	// weft decides from it whether to build from vendor/ and leaves it out.
	Mod string
}

// New sets up the workspace for the module (or the user's own workspace)
// cfg.Dir is in and writes its base go.work.
func New(cfg Config) (*Workspace, error) {
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	w := &Workspace{}
	userWork, err := findWork(dir)
	if err != nil {
		return nil, err
	}
	if userWork != "" {
		if err := w.readUserWork(userWork); err != nil {
			return nil, err
		}
	} else {
		gomod, err := FindGoMod(dir)
		if err != nil {
			return nil, err
		}
		w.uses = []string{filepath.Dir(gomod)}
	}
	w.Modules = append([]string(nil), w.uses...)
	weftGo, err := goVersionOf(filepath.Join(cfg.Weft, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("reading weft's source: %w", err)
	}
	w.goLine = maxVersion(w.goLine, weftGo)
	for _, m := range w.uses {
		gomod := filepath.Join(m, "go.mod")
		v, err := goVersionOf(gomod)
		if err != nil {
			return nil, err
		}
		w.goLine = maxVersion(w.goLine, v)
		if data, _ := os.ReadFile(gomod); modfile.ModulePath(data) == WeftModule {
			w.weftUsed = true // weft's own checkout: it is the runtime
		}
	}
	if !w.weftUsed {
		// The user's module may require weft itself, at any version, or
		// replace it: the runtime must be the one this binary rewrites for.
		w.dropReplace(WeftModule)
		w.replaces = append(w.replaces, replace{path: WeftModule, to: cfg.Weft})
	}
	if err := w.vendor(cfg, userWork); err != nil {
		return nil, err
	}
	if err := w.writeBase(cfg); err != nil {
		return nil, err
	}
	return w, nil
}

// findWork returns the user's go.work, as the go command finds it: GOWORK,
// or the nearest go.work above dir; "" if there is none or GOWORK=off.
func findWork(dir string) (string, error) {
	switch gw := os.Getenv("GOWORK"); gw {
	case "off":
		return "", nil
	case "":
	default:
		if !filepath.IsAbs(gw) {
			return "", fmt.Errorf("GOWORK=%s: the go command requires an absolute path", gw)
		}
		return gw, nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		f := filepath.Join(d, "go.work")
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f, nil
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// readUserWork takes the use, replace and godebug lines of the user's
// go.work, its paths made absolute, and its sums.
func (w *Workspace) readUserWork(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading the go.work in use: %w", err)
	}
	f, err := modfile.ParseWork(file, data, nil)
	if err != nil {
		return err
	}
	base := filepath.Dir(file)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(base, p)
	}
	if f.Go != nil {
		w.goLine = f.Go.Version
	}
	for _, u := range f.Use {
		w.uses = append(w.uses, abs(u.Path))
	}
	for _, r := range f.Replace {
		to := r.New.Path
		if r.New.Version == "" {
			to = abs(to)
		}
		w.replaces = append(w.replaces, replace{path: r.Old.Path, version: r.Old.Version, to: to, toVersion: r.New.Version})
	}
	for _, g := range f.Godebug {
		w.godebug = append(w.godebug, g.Key+"="+g.Value)
	}
	w.sums, _ = os.ReadFile(file + ".sum") // none is fine
	return nil
}

func (w *Workspace) dropReplace(path string) {
	kept := w.replaces[:0]
	for _, r := range w.replaces {
		if r.path != path {
			kept = append(kept, r)
		}
	}
	w.replaces = kept
}

// writeBase writes the shim module and the base go.work into a directory of
// the cache named by their content, so that every run of the same setup
// finds the same files, and the sums the go command adds stay with them.
func (w *Workspace) writeBase(cfg Config) error {
	weftSum, err := os.ReadFile(filepath.Join(cfg.Weft, "go.sum"))
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("reading weft's source: %w", err)
	}
	shimMod := fmt.Sprintf("module %s\n\ngo %s\n\nrequire %s v0.0.0\n", shimModule, w.goLine, WeftModule)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", shimMod, weftSum, w.sums)
	w.render(h, nil)
	w.dir = filepath.Join(cfg.Cache, "work", hex.EncodeToString(h.Sum(nil)[:12]))
	shim := filepath.Join(w.dir, "shim")
	if err := os.MkdirAll(shim, 0o755); err != nil {
		return err
	}
	if err := writeIfMissing(filepath.Join(shim, "go.mod"), []byte(shimMod)); err != nil {
		return err
	}
	if err := writeIfMissing(filepath.Join(shim, "go.sum"), weftSum); err != nil {
		return err
	}
	if !w.weftUsed {
		w.uses = append(w.uses, shim)
	}
	w.file = filepath.Join(w.dir, "base.work")
	return w.writeWork(w.file, nil)
}

// writeWork writes a go.work with extra replaces, and seeds its sums with
// the user's go.work.sum.
func (w *Workspace) writeWork(file string, extra []replace) error {
	var b strings.Builder
	w.render(&b, extra)
	if err := writeIfMissing(file, []byte(b.String())); err != nil {
		return err
	}
	if len(w.sums) > 0 {
		return writeIfMissing(file+".sum", w.sums)
	}
	return nil
}

// render writes the go.work text: the base's lines, then the extra
// replaces, which override the base's for the same module.
func (w *Workspace) render(b interface{ Write([]byte) (int, error) }, extra []replace) {
	fmt.Fprintf(b, "go %s\n\n", w.goLine)
	for _, g := range w.godebug {
		fmt.Fprintf(b, "godebug %s\n", g)
	}
	b.Write([]byte("use (\n"))
	for _, u := range w.uses {
		fmt.Fprintf(b, "\t%s\n", modfile.AutoQuote(u))
	}
	b.Write([]byte(")\n\nreplace (\n"))
	over := map[string]bool{}
	for _, r := range extra {
		over[r.path] = true
	}
	var all []replace
	for _, r := range w.replaces {
		if !over[r.path] {
			all = append(all, r)
		}
	}
	for _, r := range append(all, extra...) {
		old := modfile.AutoQuote(r.path)
		if r.version != "" {
			old += " " + r.version
		}
		to := modfile.AutoQuote(r.to)
		if r.toVersion != "" {
			to += " " + r.toVersion
		}
		fmt.Fprintf(b, "\t%s => %s\n", old, to)
	}
	b.Write([]byte(")\n"))
}

// Origin returns the directory in vendor/ that the module copy in dir was
// made from, "" if dir is not such a copy.
func (w *Workspace) Origin(dir string) string { return w.origins[dir] }

// File returns the base go.work: the one to load the packages with.
func (w *Workspace) File() string { return w.file }

// WithCopies writes a go.work that also replaces each module of copies
// (module path → directory) with its copy, at every version, and returns
// its path.
func (w *Workspace) WithCopies(copies map[string]string) (string, error) {
	if len(copies) == 0 {
		return w.file, nil
	}
	paths := make([]string, 0, len(copies))
	for p := range copies {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var extra []replace
	for _, p := range paths {
		extra = append(extra, replace{path: p, to: copies[p]})
	}
	var b strings.Builder
	w.render(&b, extra)
	sum := sha256.Sum256([]byte(b.String()))
	file := filepath.Join(w.dir, "run-"+hex.EncodeToString(sum[:12])+".work")
	return file, w.writeWork(file, extra)
}

// Env returns the environment for the go command: env with GOWORK set to
// file, and GOFLAGS without the -mod and -modfile flags, which a workspace
// does not allow.
func Env(env []string, file string) []string {
	out := make([]string, 0, len(env)+2)
	flags := ""
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "GOWORK="):
		case strings.HasPrefix(kv, "GOFLAGS="):
			flags = strings.TrimPrefix(kv, "GOFLAGS=")
		default:
			out = append(out, kv)
		}
	}
	var kept []string
	for _, f := range strings.Fields(flags) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name != "mod" && name != "modfile" {
			kept = append(kept, f)
		}
	}
	return append(out, "GOWORK="+file, "GOFLAGS="+strings.Join(kept, " "))
}

// ModFlag returns the value of -mod in a GOFLAGS value, "" if it has none.
func ModFlag(goflags string) string {
	mod := ""
	for _, f := range strings.Fields(goflags) {
		if v, ok := strings.CutPrefix(strings.TrimLeft(f, "-"), "mod="); ok {
			mod = v
		}
	}
	return mod
}

// FindGoMod returns the go.mod of the module dir is in.
func FindGoMod(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !st.IsDir() {
			return filepath.Join(d, "go.mod"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not in a Go module (no go.mod above it)", dir)
		}
	}
}

// goVersionOf returns the go line of a go.mod, "" if it has none.
func goVersionOf(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	f, err := modfile.ParseLax(gomod, data, nil)
	if err != nil {
		return "", err
	}
	if f.Go == nil {
		return "", nil
	}
	return f.Go.Version, nil
}

// maxVersion returns the later of two Go versions ("1.21", "1.26.0").
func maxVersion(a, b string) string {
	if a == "" || b != "" && version.Compare("go"+b, "go"+a) > 0 {
		return b
	}
	return a
}

// writeIfMissing writes a file of the cache, atomically, unless it exists:
// every name in the cache is a function of its content.
func writeIfMissing(name string, data []byte) error {
	if _, err := os.Stat(name); err == nil {
		return nil
	}
	return WriteAtomic(name, data)
}

// WriteAtomic writes a file through a temporary file and a rename, so that
// a reader never sees it half written.
func WriteAtomic(name string, data []byte) error {
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

// Sources returns what a build in dir reads from the user's side, for a
// fingerprint of it: the directories of the user's modules and of the
// local directories their go.mod (or the user's go.work) replaces modules
// with, and the user's go.work and its sums if there is one.
func Sources(dir string) (dirs, files []string, err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	userWork, err := findWork(dir)
	if err != nil {
		return nil, nil, err
	}
	w := &Workspace{}
	if userWork != "" {
		if err := w.readUserWork(userWork); err != nil {
			return nil, nil, err
		}
		files = append(files, userWork, userWork+".sum")
		for _, r := range w.replaces {
			if r.toVersion == "" {
				dirs = append(dirs, r.to)
			}
		}
	} else {
		gomod, err := FindGoMod(dir)
		if err != nil {
			return nil, nil, err
		}
		w.uses = []string{filepath.Dir(gomod)}
	}
	for _, m := range w.uses {
		dirs = append(dirs, m)
		gomod := filepath.Join(m, "go.mod")
		data, err := os.ReadFile(gomod)
		if err != nil {
			return nil, nil, err
		}
		f, err := modfile.ParseLax(gomod, data, nil)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range f.Replace {
			if modfile.IsDirectoryPath(r.New.Path) {
				d := r.New.Path
				if !filepath.IsAbs(d) {
					d = filepath.Join(m, d)
				}
				dirs = append(dirs, d)
			}
		}
	}
	return dirs, files, nil
}

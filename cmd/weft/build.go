package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/weftdev/weft/instrument"
	"github.com/weftdev/weft/internal/workspace"
)

// weftRuntime are the packages of weft that rewritten code calls. Neither
// they nor any module they import are ever instrumented.
var weftRuntime = []string{
	workspace.WeftModule + "/sim",
	workspace.WeftModule + "/sim/simctx",
	workspace.WeftModule + "/sim/simnet",
	workspace.WeftModule + "/testing",
}

// build sets the run up from nothing: the workspace, the packages' graph,
// the choice of what to instrument, the rewrite, the overlay of the user's
// files and the copies of the dependencies' modules.
func build(workdir, cache string, a testArgs) (*setup, error) {
	weft, err := workspace.WeftSource()
	if err != nil {
		return nil, err
	}
	ws, err := workspace.New(workspace.Config{Dir: workdir, Cache: cache, Weft: weft, Mod: a.mod})
	if err != nil {
		return nil, err
	}
	env := workspace.Env(os.Environ(), ws.File())
	modcache, err := goEnvIn(workdir, env, "GOMODCACHE")
	if err != nil {
		return nil, err
	}
	cfg := packages.Config{Dir: workdir, Env: env, BuildFlags: loadFlags(a.goArgs)}
	sel, err := choose(cfg, a)
	if err != nil {
		return nil, err
	}
	pkgs, err := loadSyntax(cfg, a.patterns, sel)
	if err != nil {
		return nil, err
	}
	s := &setup{Packages: sel.skipped}
	s.dropUnloadable(pkgs, sel)
	r := &rewrite{
		cache:     cache,
		modcache:  modcache,
		ws:        ws,
		overlay:   map[string]string{},
		copies:    map[string]*workspace.Copy{},
		sel:       sel,
		salt:      weftVersion(),
		sitesSeen: map[string]bool{},
	}
	if err := s.rewriteAll(r, pkgs, sel); err != nil {
		return nil, err
	}
	dirs := map[string]string{}
	for path, c := range r.copies {
		dir, err := c.Write(cache)
		if err != nil {
			return nil, err
		}
		dirs[path] = dir
	}
	if s.Work, err = ws.WithCopies(dirs); err != nil {
		return nil, err
	}
	if s.Overlay, err = r.writeOverlay(); err != nil {
		return nil, err
	}
	sort.Strings(s.Sites)
	sort.Strings(s.Packages)
	return s, nil
}

// dropUnloadable leaves a package that does not load as it is (the
// packages that import it see it so), and its tests too where only they
// do not load: go test then reports the build failure of that package, as
// it would without weft, and runs the others (samber/lo's tests name an
// identifier that its module leaves out, which stopped weft test before
// any of the module's other packages ran).
func (s *setup) dropUnloadable(pkgs []*packages.Package, sel *selection) {
	for _, p := range pkgs {
		path := strings.TrimSuffix(p.PkgPath, "_test")
		if len(p.Errors) == 0 || !sel.instrumented[path] {
			continue
		}
		if p.ID == p.PkgPath {
			delete(sel.instrumented, path)
		}
		s.Packages = append(s.Packages, fmt.Sprintf("%s: it does not load: %v", p.ID, p.Errors[0]))
	}
}

// rewriteAll rewrites the selected packages, with the safety net (every
// rewritten package is type-checked against the rewritten packages it
// imports), places their files in the overlay or in module copies, and
// counts what the summary line reports: the packages instrumented, less
// those the safety net left whole.
func (s *setup) rewriteAll(r *rewrite, pkgs []*packages.Package, sel *selection) error {
	byID := map[string]*packages.Package{}
	byFile := map[string]*packages.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if byID[p.ID] == nil || len(p.Syntax) > 0 {
			byID[p.ID] = p
		}
		for _, f := range p.CompiledGoFiles {
			byFile[f] = p
		}
	})
	res, err := instrument.Rewrite(pkgs, instrument.Config{
		Instrument: func(path string) bool { return sel.instrumented[path] },
		LeaveFile: func(file string) string {
			if p := byFile[file]; p != nil && sel.skipsFile(p, file) {
				return "-instrument.skip"
			}
			return ""
		},
	})
	if err != nil {
		return err
	}
	for _, site := range res.Skips {
		s.Sites = append(s.Sites, site.String())
	}
	whole := map[string]bool{}
	for _, rp := range res.Packages {
		if rp.Instrumented && rp.Whole != "" && !strings.Contains(rp.ID, " [") {
			s.Packages = append(s.Packages, rp.PkgPath+": "+rp.Whole)
			whole[rp.PkgPath] = true
		}
		files := map[string][]byte{}
		for _, f := range rp.Files {
			files[f] = res.Files[f]
		}
		if err := r.place(byID[rp.ID], files); err != nil {
			return err
		}
	}
	for path := range sel.instrumented {
		if whole[path] {
			continue // counted among the packages skipped
		}
		s.Instrumented++
		if !sel.local[path] {
			s.Deps++
		}
	}
	return nil
}

// loadFlags returns the go test flags that go list needs to see the files
// go test builds.
func loadFlags(goArgs []string) []string {
	var out []string
	for i, arg := range goArgs {
		name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch name {
		case "tags", "race", "msan", "asan":
			out = append(out, arg)
			if !hasValue && !goTestBoolFlags[name] && i+1 < len(goArgs) {
				out = append(out, goArgs[i+1])
			}
		}
	}
	return out
}

// loadSyntax loads, with syntax and types, the packages to rewrite: the
// tested ones with their tests, and weft's runtime (in one load: the
// rewrite is type-checked against it), then the other instrumented ones
// without tests, with the same file set (see instrument.LoadMode). Every
// package is loaded whole (NeedDeps): without it, the imports of a package
// that is not a root are stubs, and a dependency whose syntax comes from
// the second load would be checked against packages without types
// ("undefined: bytes" in go-spew, imported by testify).
func loadSyntax(cfg packages.Config, patterns []string, sel *selection) ([]*packages.Package, error) {
	cfg.Mode = instrument.LoadMode | packages.NeedDeps
	cfg.Fset = token.NewFileSet()
	tcfg := cfg
	tcfg.Tests = true
	targets, err := packages.Load(&tcfg, append(append([]string{}, patterns...), instrument.RuntimePackages...)...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	tested := map[string]bool{}
	for _, p := range targets {
		tested[strings.TrimSuffix(p.PkgPath, "_test")] = true
	}
	var others []string
	for path := range sel.instrumented {
		if !tested[path] {
			others = append(others, path)
		}
	}
	if len(others) == 0 {
		return targets, nil
	}
	sort.Strings(others)
	deps, err := packages.Load(&cfg, others...)
	if err != nil {
		return nil, fmt.Errorf("loading the packages the tests import: %w", err)
	}
	return append(targets, deps...), nil
}

// rewrite is the rewrite of the chosen packages under way.
type rewrite struct {
	cache, modcache string
	ws              *workspace.Workspace
	overlay         map[string]string
	copies          map[string]*workspace.Copy // by module path
	sel             *selection
	salt            string
	sitesSeen       map[string]bool
}

// place puts the rewritten files of a package where go test reads them:
// the overlay for the user's modules, a copy of its module for a
// dependency.
func (r *rewrite) place(p *packages.Package, files map[string][]byte) error {
	if len(files) == 0 || p == nil {
		return nil
	}
	if p.Module == nil || r.isLocal(p.Module) {
		return r.overlayFiles(files)
	}
	return r.copyFiles(p, files)
}

// isLocal reports whether a module's files can be overlaid: not in the
// module cache nor a copy in weft's cache.
func (r *rewrite) isLocal(m *packages.Module) bool {
	dir := moduleDir(m)
	return dir != "" && !within(dir, r.modcache) && !within(dir, r.cache)
}

func moduleDir(m *packages.Module) string {
	if m.Replace != nil && m.Replace.Dir != "" {
		return m.Replace.Dir
	}
	return m.Dir
}

// within reports whether path is dir or under it.
func within(path, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// overlayFiles writes rewritten files of the user's modules into the cache,
// named by a digest of their content and weft's build, for the overlay.
func (r *rewrite) overlayFiles(files map[string][]byte) error {
	dir := filepath.Join(r.cache, "overlay")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for path, src := range files {
		if _, done := r.overlay[path]; done {
			continue // a package and its test variant share their files
		}
		src = workspace.Mark(path, src)
		sum := sha256.Sum256(append([]byte(r.salt+"\x00"+path+"\x00"), src...))
		name := filepath.Join(dir, hex.EncodeToString(sum[:12])+"-"+filepath.Base(path))
		if _, err := os.Stat(name); err != nil {
			if err := workspace.WriteAtomic(name, src); err != nil {
				return err
			}
		}
		r.overlay[path] = name
	}
	return nil
}

// copyFiles adds rewritten files of a dependency to its module's copy; the
// package's other Go files are marked with their origin.
func (r *rewrite) copyFiles(p *packages.Package, files map[string][]byte) error {
	m := p.Module
	c := r.copies[m.Path]
	if c == nil {
		version := m.Version
		if m.Replace != nil && m.Replace.Version != "" {
			version = m.Replace.Version
		}
		c = &workspace.Copy{Path: m.Path, Version: version, Dir: moduleDir(m), Origin: r.ws.Origin(moduleDir(m)), Files: map[string][]byte{}, Salt: r.salt}
		r.copies[m.Path] = c
	}
	for path, src := range files {
		c.Files[path] = src
	}
	if len(p.OtherFiles) == 0 && len(p.GoFiles) == len(p.CompiledGoFiles) { // no cgo
		for _, f := range p.GoFiles {
			if _, ok := files[f]; !ok {
				c.Marked = append(c.Marked, f)
			}
		}
	}
	return nil
}

// writeOverlay writes the overlay file, named by its content.
func (r *rewrite) writeOverlay() (string, error) {
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{r.overlay}, "", "\t")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	overlay := filepath.Join(r.cache, "overlay", "overlay-"+hex.EncodeToString(sum[:12])+".json")
	if err := os.MkdirAll(filepath.Dir(overlay), 0o755); err != nil {
		return "", err
	}
	if _, err := os.Stat(overlay); err != nil {
		if err := workspace.WriteAtomic(overlay, data); err != nil {
			return "", err
		}
	}
	return overlay, nil
}

// goEnvIn returns a variable of go env, in dir with env.
func goEnvIn(dir string, env []string, name string) (string, error) {
	cmd := exec.Command("go", "env", name)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

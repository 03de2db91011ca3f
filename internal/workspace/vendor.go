package workspace

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
)

// A workspace cannot build from a module's vendor directory (go takes
// -mod=vendor there to mean the workspace's own vendor directory), so a
// vendored build is rebuilt as one: each vendored module becomes a module
// of its own in weft's cache (its vendored packages, the go version
// vendor/modules.txt records for it) that replaces it at its version.
// Nothing is downloaded, as with -mod=vendor.

// vendor decides whether the build is vendored, as the go command would,
// and if so adds the replaces of the vendored modules.
func (w *Workspace) vendor(cfg Config, userWork string) error {
	var vdir string
	if userWork != "" {
		vdir = filepath.Join(filepath.Dir(userWork), "vendor")
	} else {
		vdir = filepath.Join(w.uses[0], "vendor")
	}
	txt := filepath.Join(vdir, "modules.txt")
	_, err := os.Stat(txt)
	switch {
	case cfg.Mod == "vendor" && err != nil:
		return fmt.Errorf("-mod=vendor: %w", err)
	case cfg.Mod == "mod" || cfg.Mod == "readonly" || err != nil:
		return nil
	case cfg.Mod == "" && userWork == "":
		// The go command vendors by default from go 1.14 on.
		v, err := goVersionOf(filepath.Join(w.uses[0], "go.mod"))
		if err != nil || v == "" || version.Compare("go"+v, "go1.14") < 0 {
			return nil
		}
	}
	mods, err := readModulesTxt(txt)
	if err != nil {
		return err
	}
	w.Vendor = true
	w.origins = map[string]string{}
	for _, m := range mods {
		dir, err := m.write(cfg.Cache, vdir)
		if err != nil {
			return err
		}
		w.dropReplace(m.path)
		w.replaces = append(w.replaces, replace{path: m.path, version: m.version, to: dir})
		w.origins[dir] = filepath.Join(vdir, filepath.FromSlash(m.path))
	}
	return nil
}

// vendored is a module of vendor/modules.txt.
type vendored struct {
	path, version string
	goVersion     string
	packages      []string
}

// readModulesTxt parses vendor/modules.txt: "# path version [=> ...]"
// starts a module, "## explicit; go 1.21" annotates it, other lines name
// its packages.
func readModulesTxt(file string) ([]*vendored, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var mods []*vendored
	var cur *vendored
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "## "):
			if cur == nil {
				return nil, fmt.Errorf("%s:%d: annotation before any module", file, n)
			}
			for _, a := range strings.Split(strings.TrimPrefix(line, "## "), ";") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(a), "go "); ok {
					cur.goVersion = v
				}
			}
		case strings.HasPrefix(line, "# "):
			f := strings.Fields(strings.TrimPrefix(line, "# "))
			if len(f) == 0 {
				return nil, fmt.Errorf("%s:%d: a module line without a module", file, n)
			}
			cur = &vendored{path: f[0]}
			if len(f) > 1 && f[1] != "=>" {
				cur.version = f[1]
			}
			mods = append(mods, cur)
		case strings.HasPrefix(line, "#"):
		default:
			if cur == nil {
				return nil, fmt.Errorf("%s:%d: package %s before any module", file, n, line)
			}
			cur.packages = append(cur.packages, line)
		}
	}
	return mods, sc.Err()
}

// write makes the module's copy from vdir and returns its directory.
func (m *vendored) write(cache, vdir string) (string, error) {
	gomod := "module " + m.path + "\n"
	if m.goVersion != "" {
		gomod += "\ngo " + m.goVersion + "\n"
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", vdir, m.version, gomod)
	var files []string
	for _, p := range m.packages {
		entries, err := os.ReadDir(filepath.Join(vdir, filepath.FromSlash(p)))
		if err != nil {
			return "", fmt.Errorf("vendor/modules.txt lists %s: %w", p, err)
		}
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			f := filepath.Join(vdir, filepath.FromSlash(p), e.Name())
			info, err := e.Info()
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00", f, info.Size(), info.ModTime().UnixNano())
			files = append(files, f)
		}
	}
	esc, err := module.EscapePath(m.path)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "vendor", esc+"@"+m.version+"-"+hex.EncodeToString(h.Sum(nil)[:8]))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	root := filepath.Join(vdir, filepath.FromSlash(m.path))
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			return "", fmt.Errorf("vendored file %s is not under %s", f, root)
		}
		dst := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		// Copied, not linked: these are the user's files.
		if err := copyFile(f, dst); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(dir); serr != nil {
			return "", err
		}
	}
	return dir, nil
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// A goEnv is a go command environment of a test's own: a module cache in
// a temporary directory, filled from a file:// module proxy that the test
// writes and, behind it, from the machine's module cache (no network).
type goEnv struct {
	proxy    string // the test's module proxy directory
	modcache string
}

// newGoEnv sets the test's environment up for the go command.
func newGoEnv(t *testing.T) *goEnv {
	t.Helper()
	real, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	e := &goEnv{proxy: t.TempDir(), modcache: t.TempDir()}
	t.Setenv("GOMODCACHE", e.modcache)
	t.Setenv("GOPROXY", "file://"+e.proxy+",file://"+filepath.Join(strings.TrimSpace(string(real)), "cache", "download"))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-modcacherw") // so that the temporary directory can be removed
	t.Setenv("GOWORK", "")
	t.Setenv("GOTOOLCHAIN", "local")
	return e
}

// publish puts the module in dir (with its go.mod) into the proxy at
// version.
func (e *goEnv) publish(t *testing.T, dir, version string) {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	path := modulePath(t, gomod)
	esc, err := module.EscapePath(path)
	if err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(e.proxy, esc, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if err := zip.CreateFromDir(&z, module.Version{Path: path, Version: version}, dir); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(struct{ Version, Time string }{version, "2026-01-01T00:00:00Z"})
	list, _ := os.ReadFile(filepath.Join(at, "list"))
	for name, data := range map[string][]byte{
		version + ".zip":  z.Bytes(),
		version + ".mod":  gomod,
		version + ".info": info,
		"list":            append(list, version+"\n"...),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sums returns the go.sum lines of a module version of the proxy.
func (e *goEnv) sums(t *testing.T, path, version string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", path+"@"+version)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s@%s: %v\n%s", path, version, err, out)
	}
	var m struct{ Sum, GoModSum string }
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return path + " " + version + " " + m.Sum + "\n" + path + " " + version + "/go.mod " + m.GoModSum + "\n"
}

func modulePath(t *testing.T, gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(p, `"`)
		}
	}
	t.Fatalf("no module line in\n%s", gomod)
	return ""
}

// writeTree writes files (path relative to dir → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot records every file under dir with its content and modification
// time, to check that weft test changes none.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if strings.HasSuffix(path, "testdata") {
				return filepath.SkipDir // where weft saves failing schedules
			}
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[path] = info.ModTime().String() + "\x00" + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// unchanged fails the test if the files under dir differ from before.
func unchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for f, b := range before {
		if a, ok := after[f]; !ok {
			t.Errorf("weft test removed %s", f)
		} else if a != b {
			t.Errorf("weft test changed %s", f)
		}
	}
	for f := range after {
		if _, ok := before[f]; !ok {
			t.Errorf("weft test created %s", f)
		}
	}
}

// goCmd runs the go command in dir.
func goCmd(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

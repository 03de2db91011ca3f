package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// WeftSource returns the directory of the source of weft's module that
// this binary was built from, whose packages (sim, sim/simctx, testing) the
// rewritten code calls: the module cache's copy of the version installed
// with go install (or go run) ...@version, downloaded again if the cache
// was cleaned; otherwise the checkout the binary was built in (go run
// ./cmd/weft, go build, go test).
func WeftSource() (string, error) {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path == WeftModule && info.Main.Sum != "" {
		return downloaded(info.Main.Version)
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", errors.New("weft was built without the path of its source (-trimpath?): install it with go install github.com/weftdev/weft/cmd/weft@VERSION, or run it from a checkout with go run ./cmd/weft")
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(file))) // internal/workspace/source.go
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("weft's checkout at %s is gone: %w", root, err)
	}
	if modfile.ModulePath(data) != WeftModule {
		return "", fmt.Errorf("%s is not weft's module", root)
	}
	return root, nil
}

// downloaded returns the module cache's directory of weft at version.
func downloaded(version string) (string, error) {
	cache, err := goEnv("GOMODCACHE")
	if err != nil {
		return "", err
	}
	escPath, err1 := module.EscapePath(WeftModule)
	escVersion, err2 := module.EscapeVersion(version)
	if err := errors.Join(err1, err2); err != nil {
		return "", err
	}
	dir := filepath.Join(cache, escPath+"@"+escVersion)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}
	cmd := exec.Command("go", "mod", "download", "-json", WeftModule+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr != nil || m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("downloading weft %s, whose runtime the rewritten tests call: %v %s", version, err, m.Error)
	}
	return m.Dir, nil
}

// goEnv returns a variable of go env.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return string(bytes.TrimSpace(out)), nil
}

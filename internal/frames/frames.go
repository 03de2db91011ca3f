// Package frames tells, in a goroutine's stack, weft's own frames and the
// standard library's from those of the code under test: by the function's
// name, or by its source file, which the compiler keeps for code inlined
// into another package's function (an iterator of sim inlined into a range
// loop is named after the loop's function).
package frames

import (
	"path"
	"reflect"
	"runtime"
	"strings"
	"sync"
)

// Module is the path of weft's module.
const Module = "github.com/weftdev/weft"

// runtimePackages are weft's packages that run a test, by their path in
// the module; every package under internal/ is too. Their frames are
// weft's machinery. cmd/weft and the examples are not among them.
var runtimePackages = map[string]bool{
	"sched": true, "sim": true, "sim/simctx": true, "sim/simnet": true, "explore": true,
	"record": true, "record/aggreplay": true, "record/leap": true,
	"record/light": true, "record/stride": true, "record/all": true,
	"record/internal/table": true, "replay": true,
	"testing": true, "lin": true, "corpus": true, "report": true,
}

// runtimePackage reports whether rel, a package's path in weft's module,
// is one of weft's runtime packages.
func runtimePackage(rel string) bool {
	return runtimePackages[rel] || strings.HasPrefix(rel, "internal/") && !strings.Contains(rel, "/testdata")
}

// WeftFunction reports whether function, a frame's function name as
// runtime.Frame or a goroutine dump gives it ("pkg/path.Func",
// "pkg/path.(*T).Method", with or without arguments), is a function of
// one of weft's runtime packages, not of their tests.
func WeftFunction(function string) bool {
	rest, ok := strings.CutPrefix(function, Module+"/")
	if !ok {
		return false
	}
	// The package path ends at the first dot after the last slash.
	pkg := rest
	slash := max(strings.LastIndexByte(rest, '/'), 0)
	if j := strings.IndexByte(rest[slash:], '.'); j >= 0 {
		pkg = rest[:slash+j]
	}
	return runtimePackage(pkg)
}

// WeftFile reports whether file is a source file of one of weft's runtime
// packages, not a test file.
func WeftFile(file string) bool {
	root := moduleRoot()
	if root == "" || strings.HasSuffix(file, "_test.go") {
		return false
	}
	rel, ok := strings.CutPrefix(file, root+"/")
	return ok && runtimePackage(path.Dir(rel))
}

// StdFile reports whether file is a source file of Go's standard library
// (under GOROOT's src), as frames name them.
func StdFile(file string) bool {
	src := stdSrc()
	return src != "" && strings.HasPrefix(file, src)
}

// moduleRoot is the directory of weft's module, as frames name its files.
var moduleRoot = sync.OnceValue(func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return path.Dir(path.Dir(path.Dir(file))) // internal/frames/frames.go
})

// stdSrc is the directory of the standard library's sources, with its
// trailing slash.
var stdSrc = sync.OnceValue(func() string {
	pc := reflect.ValueOf(strings.Cut).Pointer()
	file, _ := runtime.FuncForPC(pc).FileLine(pc)
	src, ok := strings.CutSuffix(file, "strings/strings.go")
	if !ok {
		return ""
	}
	return src
})

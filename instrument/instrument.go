// Package instrument rewrites the Go source of packages so that they run
// under weft as if they had been written with package sim: go statements,
// channels and select, the types and functions of sync, sync/atomic, time,
// context and math/rand, and tests (TestXxx becomes a body of weft's
// controller, *testing.T weft's *TB).
//
// The rewrite works on the source text with full type information: each
// construct is replaced in place, so every rewritten statement stays on its
// original line, and failures, timelines and stacks name the user's own
// file:line. Imports weft needs are added on the package clause's line,
// followed by a line directive naming the original file.
//
// Values that must stay the standard library's (a channel handed to or
// taken from code weft does not instrument, a channel stored in an
// interface, a mutex passed as a *sync.Mutex) are found by a flow analysis
// over each package: every variable, field, parameter and expression a
// value passes through keeps the Go type, and operations on it stay Go
// operations. Each such site is reported as a Skip.
//
// Rewrite is the safety net: it type-checks every rewritten package
// against the rewritten versions of the packages it imports before
// anything is written, leaves alone each site whose rewrite does not
// type-check, and rewrites the package again, so that a package weft
// cannot fully rewrite still builds and is instrumented everywhere else.
package instrument

import (
	"fmt"
	"go/token"

	"golang.org/x/tools/go/packages"
)

// The names under which rewritten files import weft's packages: unusual
// enough never to clash with the user's identifiers.
const (
	simName  = "weftsim"
	ctxName  = "weftctx"
	netName  = "weftnet"
	weftName = "weftt"
)

// The import paths of weft's runtime packages, which rewritten code uses.
const (
	SimPath     = "github.com/weftdev/weft/sim"
	SimCtxPath  = "github.com/weftdev/weft/sim/simctx"
	SimNetPath  = "github.com/weftdev/weft/sim/simnet"
	TestingPath = "github.com/weftdev/weft/testing"
)

// RuntimePackages are the packages rewritten code imports: load them with
// the packages to rewrite (as extra patterns), so that Rewrite can
// type-check the rewritten code.
var RuntimePackages = []string{SimPath, SimCtxPath, SimNetPath, TestingPath}

var importPaths = map[string]string{
	simName:  SimPath,
	ctxName:  SimCtxPath,
	netName:  SimNetPath,
	weftName: TestingPath,
}

// LoadMode is what Rewrite needs of packages.Load: syntax and full type
// information for the packages given as patterns, which must include every
// package to rewrite; the others are read from export data, and those that
// import a rewritten package are parsed by Rewrite, to be checked against
// it. (With packages.NeedDeps added, every package is loaded from source:
// the same result, seconds slower.)
//
// The packages may come from several loads: one with the tested packages
// (Tests set) and RuntimePackages, others with the syntax of more packages
// to rewrite (their dependencies, without tests). Every load must use the
// same packages.Config.Fset. The packages the rewrite does not change are
// typed anew from their export data (NeedExportFile), so that the checks
// see one set of types whatever the loads.
const LoadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedSyntax | packages.NeedTypes | packages.NeedExportFile |
	packages.NeedTypesInfo | packages.NeedTypesSizes | packages.NeedModule

// Config configures a rewrite.
type Config struct {
	// Instrument reports whether the package with this import path is
	// rewritten. An external test package (path_test) is asked about as
	// its package (path). The standard library, packages without a
	// module, cgo packages, packages loaded without syntax (not among the
	// patterns, without NeedDeps) and weft's runtime (RuntimePackages and
	// what they import) never are, whatever Instrument says.
	Instrument func(path string) bool
	// LeaveFile, if set, returns why a file of an instrumented package is
	// left as it is ("" to rewrite it): the rest of its package is
	// rewritten around it, and its values keep Go's types.
	LeaveFile func(path string) string
}

// A Skip is a site left alone, with the reason.
type Skip struct {
	Pos  token.Position
	What string
	Why  string
}

func (s Skip) String() string { return fmt.Sprintf("%s: %s: %s", s.Pos, s.What, s.Why) }

// Result is the outcome of a rewrite.
type Result struct {
	// Files are the rewritten files, by original path, for an overlay:
	// every package that holds a file (a package and its test variant)
	// agrees on its rewrite.
	Files map[string][]byte
	// Packages lists, in dependency order, each package variant
	// (packages.Package.ID) instrumented, or checked because it imports
	// one that is.
	Packages []Package
	// Skips are the sites left alone in every package, sorted by
	// position, without duplicates.
	Skips []Skip
}

// Package is the outcome of the rewrite of one package variant.
type Package struct {
	ID, PkgPath string
	// Instrumented reports whether Config.Instrument named the package; a
	// package that is not is only checked against the rewritten packages
	// it imports.
	Instrumented bool
	// Files are the paths of the package's rewritten files (keys of
	// Result.Files).
	Files []string
	// Skips are the sites left alone in the package.
	Skips []Skip
	// Whole is why the package is left as it is, if it is: the rewrite
	// did not type-check and the safety net could not narrow down the
	// sites at fault.
	Whole string
}

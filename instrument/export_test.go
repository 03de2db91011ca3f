package instrument

import (
	"slices"

	"golang.org/x/tools/go/packages"
)

// RewriteRechecking rewrites roots as Rewrite does, then bumps the decision
// version of the files of the packages with the import paths recheck names,
// as a decision about them that leaves their rewrite as it was does, and
// settles again: those packages are checked again, and what imports them
// must be too.
func RewriteRechecking(roots []*packages.Package, cfg Config, recheck ...string) (*Result, error) {
	g, err := newGraph(roots, cfg)
	if err != nil {
		return nil, err
	}
	if err := g.settle(); err != nil {
		return nil, err
	}
	for _, p := range g.order {
		if slices.Contains(recheck, p.PkgPath) {
			for _, f := range p.CompiledGoFiles {
				g.dec.version[f]++
			}
		}
	}
	if err := g.settle(); err != nil {
		return nil, err
	}
	return g.result(), nil
}

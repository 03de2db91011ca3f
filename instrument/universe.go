package instrument

import (
	"bufio"
	"fmt"
	"go/types"
	"os"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

// The rewrite is type-checked against one set of types for the packages
// it does not change (the standard library, weft's runtime, dependencies
// not instrumented), read here from their export data in dependency
// order: the packages of a load are typed as that load needed them (a
// dependency of a dependency only in part), and the packages of two loads
// are distinct, so neither would do for checking code against both.

// typesOf returns the types of a package the rewrite does not change.
func (g *graph) typesOf(p *packages.Package) (*types.Package, error) {
	if t, ok := g.universe[p.ID]; ok {
		return t, nil
	}
	if p.ExportFile == "" {
		if p.Types == nil {
			return nil, fmt.Errorf("instrument: %s was loaded without types", p.ID)
		}
		return p.Types, nil // without export data: as loaded
	}
	for _, path := range sortedKeys(p.Imports) {
		q := p.Imports[path]
		if c := g.byID[q.ID]; c != nil {
			q = c
		}
		if _, err := g.typesOf(q); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(p.ExportFile)
	if err != nil {
		return nil, fmt.Errorf("instrument: reading the export data of %s: %w", p.ID, err)
	}
	defer f.Close()
	r, err := gcexportdata.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("instrument: reading the export data of %s: %w", p.ID, err)
	}
	t, err := gcexportdata.Read(r, g.fset, g.imports, p.PkgPath)
	if err != nil {
		return nil, fmt.Errorf("instrument: reading the export data of %s: %w", p.ID, err)
	}
	g.universe[p.ID] = t
	return t, nil
}

package instrument

import (
	"go/ast"
	"go/build/constraint"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// fixImports blanks the imports whose every use was rewritten away.
func (r *rewriter) fixImports() {
	uses := map[*types.PkgName]int{}
	for id, obj := range r.info.Uses {
		if pn, ok := obj.(*types.PkgName); ok && !r.gone[id] && r.tf == r.fset.File(id.Pos()) {
			uses[pn]++
		}
	}
	for _, spec := range r.file.Imports {
		pn, _ := r.info.Defs[spec.Name].(*types.PkgName)
		if spec.Name == nil {
			pn, _ = r.info.Implicits[spec].(*types.PkgName)
		}
		if pn == nil || uses[pn] > 0 || r.kept[pn] || (spec.Name != nil && (spec.Name.Name == "_" || spec.Name.Name == ".")) {
			continue
		}
		r.replace(spec, "_ "+spec.Path.Value)
	}
}

// header adds, on the package clause's line, the imports the rewritten
// file needs, then a line directive naming the original file and the
// column the rest of the line starts at, so that compile errors and stacks
// name the user's file:line. A file whose language version predates Go
// 1.21 gets a go1.21 build constraint (go/types and the compiler read a
// file's version as max(its constraint, go1.21), so per-loop variables
// stay as they were), which is what lets it use sim's generic API.
func (r *rewriter) header() {
	var b strings.Builder
	for _, name := range []string{simName, ctxName, netName, weftName} {
		if r.used[name] {
			b.WriteString("; import " + name + " " + strconv.Quote(importPaths[name]))
		}
	}
	paths := make([]string, 0, len(r.added))
	for p := range r.added {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b.WriteString("; import " + r.added[p] + " " + strconv.Quote(p))
	}
	pos := r.fset.PositionFor(r.file.Name.End(), false)
	b.WriteString("/*line " + r.tf.Name() + ":" + strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column) + "*/")
	r.ed.insert(r.off(r.file.Name.End()), b.String())
	if n, ok := minorVersion(r.moduleVersion()); !ok || n < 21 {
		r.buildConstraint()
	}
}

// moduleVersion returns the Go version the file is compiled with, as the
// go command sets it: its module's, go1.16 without one.
func (r *rewriter) moduleVersion() string {
	if v := r.file.GoVersion; v != "" {
		return v
	}
	if m := r.pr.pkg.Module; m != nil && m.GoVersion != "" {
		return "go" + m.GoVersion
	}
	return "go1.16"
}

// buildConstraint makes the file's build constraint require go1.21: in
// place of its //go:build line, or of its first // +build line (the
// others become empty comments, since a //go:build line overrides them),
// or in two new lines at the top.
func (r *rewriter) buildConstraint() {
	var goBuild *ast.Comment
	var plus []*ast.Comment
	for _, g := range r.file.Comments {
		if g.Pos() >= r.file.Package {
			break
		}
		for _, c := range g.List {
			switch {
			case constraint.IsGoBuild(c.Text):
				goBuild = c
			case constraint.IsPlusBuild(c.Text):
				plus = append(plus, c)
			}
		}
	}
	var expr constraint.Expr = &constraint.TagExpr{Tag: "go1.21"}
	switch {
	case goBuild != nil:
		if x, err := constraint.Parse(goBuild.Text); err == nil {
			expr = &constraint.AndExpr{X: expr, Y: x}
		}
	default:
		for _, c := range plus {
			if x, err := constraint.Parse(c.Text); err == nil {
				expr = &constraint.AndExpr{X: expr, Y: x}
			}
		}
	}
	line := "//go:build " + expr.String()
	switch {
	case goBuild != nil:
		r.replace(goBuild, line)
	case len(plus) > 0:
		r.replace(plus[0], line) // followed by a blank line, as +build lines are
		plus = plus[1:]
	default:
		r.ed.insert(0, line+"\n\n")
	}
	for _, c := range plus {
		r.replace(c, "//")
	}
}

package sched

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// Under the race detector the controller hides its handoffs (race.go), so
// the state it shares between an execution's goroutines must be written by
// functions the race detector does not instrument. Every function of the
// files that run on those goroutines is //go:norace, but for these, which
// run on the goroutine that calls Run, or only show the race detector what
// it must see.
var instrumented = map[string]bool{
	"Run": true, "setup": true, "finish": true, "result": true, "schedule": true, // the caller of Run
	"Current": true, "Claim": true, "escaped": true, // before the controller's work
	"exit": true, "goexit": true, "inTheOpen": true, // the race detector's side of it
	"startAdviser": true, "stopAdviser": true,
	"spawned": true, "next": true, "ran": true, "choose": true, // calls of the strategy (adviser.go)
}

// TestNoRace checks the //go:norace directives: a function added to the
// controller without one writes state the race detector would see raced on,
// in the executions of go test -race that reach it.
func TestNoRace(t *testing.T) {
	fset := token.NewFileSet()
	for _, file := range []string{"controller.go", "clock.go", "decide.go", "wait.go", "candidates.go", "adviser.go"} {
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || instrumented[fn.Name.Name] {
				continue
			}
			if fn.Doc == nil || !strings.Contains(fn.Doc.Text()+directives(fn.Doc), "go:norace") {
				t.Errorf("%s: %s lacks //go:norace (see race.go)", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
}

// directives returns the //go: lines of a doc comment, which Text drops.
func directives(doc *ast.CommentGroup) string {
	var b strings.Builder
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, "//go:") {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

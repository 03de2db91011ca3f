package instrument

import (
	"go/ast"
	"go/constant"
	"go/types"
)

// fmtFormats maps fmt's formatting functions to the index of their format
// argument.
var fmtFormats = map[string]int{
	"Sprintf": 0, "Printf": 0, "Errorf": 0, "Fprintf": 1, "Appendf": 1,
}

// typeOnlyArgs returns the arguments of a call to one of fmt's formatting
// functions that its constant format prints with %T alone, and that are
// not channels themselves: fmt reads their dynamic type's name, not their
// contents, so the channels they hold need not stay Go's (watermill names
// its Subscriber with fmt.Sprintf("%T", v), which left every channel its
// subscribers return Go's). It returns nil when the format is not a
// constant or numbers its arguments explicitly.
func typeOnlyArgs(info *types.Info, c *ast.CallExpr, fn *types.Func) map[int]bool {
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "fmt" || c.Ellipsis.IsValid() {
		return nil
	}
	at, ok := fmtFormats[fn.Name()]
	if !ok || len(c.Args) <= at {
		return nil
	}
	tv := info.Types[c.Args[at]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		return nil
	}
	verbs, ok := fmtVerbs(constant.StringVal(tv.Value))
	if !ok {
		return nil
	}
	var out map[int]bool
	for i, v := range verbs {
		a := at + 1 + i
		if v != 'T' || a >= len(c.Args) || isChanLike(info.TypeOf(c.Args[a])) {
			continue
		}
		if out == nil {
			out = map[int]bool{}
		}
		out[a] = true
	}
	return out
}

// fmtVerbs returns the verb that consumes each argument of format, in
// order ('*' for a width or precision read from an argument); ok is false
// for a format that numbers its arguments ("%[2]d").
func fmtVerbs(format string) (verbs []byte, ok bool) {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format) && isFmtFlag(format[i]); i++ {
			if format[i] == '*' {
				verbs = append(verbs, '*')
			}
		}
		switch {
		case i == len(format), format[i] == '%':
		case format[i] == '[':
			return nil, false
		default:
			verbs = append(verbs, format[i])
		}
	}
	return verbs, true
}

// isFmtFlag reports whether b belongs to a directive's flags, width or
// precision.
func isFmtFlag(b byte) bool {
	return b == '+' || b == '-' || b == '#' || b == ' ' || b == '.' || b == '*' || '0' <= b && b <= '9'
}

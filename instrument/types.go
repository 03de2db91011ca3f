package instrument

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
)

// typeText spells a type as the rewritten file does (a channel type as
// *sim.Chan[T], sync.Mutex as sim's; with rawTypes set, as the standard
// library's, contexts aside), importing the packages it names if the file
// does not, or reports false when it cannot: a type unexported in another
// package, unsafe.Pointer, an untyped constant's type.
func (r *rewriter) typeText(t types.Type) (string, bool) {
	switch t := t.(type) {
	case *types.Basic:
		if t.Kind() == types.UnsafePointer || t.Info()&types.IsUntyped != 0 {
			return "", false
		}
		return t.Name(), true
	case *types.Pointer:
		s, ok := r.typeText(t.Elem())
		return "*" + s, ok
	case *types.Slice:
		s, ok := r.typeText(t.Elem())
		return "[]" + s, ok
	case *types.Array:
		s, ok := r.typeText(t.Elem())
		return fmt.Sprintf("[%d]%s", t.Len(), s), ok
	case *types.Map:
		k, ok1 := r.typeText(t.Key())
		v, ok2 := r.typeText(t.Elem())
		return "map[" + k + "]" + v, ok1 && ok2
	case *types.Chan:
		s, ok := r.typeText(t.Elem())
		if r.rawTypes {
			return map[types.ChanDir]string{types.SendRecv: "chan ", types.SendOnly: "chan<- ", types.RecvOnly: "<-chan "}[t.Dir()] + s, ok
		}
		return "*" + r.sim("Chan") + "[" + s + "]", ok
	case *types.Signature:
		return r.signatureText(t)
	case *types.Interface:
		return r.interfaceText(t)
	case *types.Struct:
		return r.structText(t)
	case *types.TypeParam:
		return t.Obj().Name(), true
	case *types.Named, *types.Alias:
		return r.namedText(t)
	}
	return "", false
}

func (r *rewriter) namedText(t types.Type) (string, bool) {
	var obj *types.TypeName
	var args *types.TypeList
	switch t := t.(type) {
	case *types.Named:
		obj, args = t.Obj(), t.TypeArgs()
	case *types.Alias:
		obj, args = t.Obj(), t.TypeArgs()
	}
	name := obj.Name()
	switch pkg := obj.Pkg(); {
	case pkg == nil: // error, comparable
	case replacements[pkg.Path()][name] != [2]string{} && (!r.rawTypes || isContextType(t)):
		to := replacements[pkg.Path()][name]
		r.used[to[0]] = true
		name = to[0] + "." + to[1]
	case pkg == r.pr.pkg.Types:
	default:
		if !obj.Exported() {
			return "", false
		}
		imp := r.importFor(pkg)
		if imp == "" {
			return "", false
		}
		name = imp + "." + name
	}
	if args != nil && args.Len() > 0 {
		var parts []string
		for i := range args.Len() {
			s, ok := r.typeText(args.At(i))
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		name += "[" + strings.Join(parts, ", ") + "]"
	}
	return name, true
}

func (r *rewriter) signatureText(t *types.Signature) (string, bool) {
	if t.TypeParams() != nil {
		return "", false
	}
	list := func(tup *types.Tuple, variadic bool) (string, bool) {
		var parts []string
		for i := range tup.Len() {
			ty := tup.At(i).Type()
			prefix := ""
			if variadic && i == tup.Len()-1 {
				ty, prefix = ty.(*types.Slice).Elem(), "..."
			}
			s, ok := r.typeText(ty)
			if !ok {
				return "", false
			}
			parts = append(parts, prefix+s)
		}
		return strings.Join(parts, ", "), true
	}
	params, ok1 := list(t.Params(), t.Variadic())
	results, ok2 := list(t.Results(), false)
	s := "func(" + params + ")"
	if t.Results().Len() == 1 {
		s += " " + results
	} else if t.Results().Len() > 1 {
		s += " (" + results + ")"
	}
	return s, ok1 && ok2
}

func (r *rewriter) structText(t *types.Struct) (string, bool) {
	if t.NumFields() == 0 {
		return "struct{}", true
	}
	var parts []string
	for i := range t.NumFields() {
		f := t.Field(i)
		if !f.Exported() && f.Pkg() != r.pr.pkg.Types {
			return "", false
		}
		s, ok := r.typeText(f.Type())
		if !ok {
			return "", false
		}
		if !f.Embedded() {
			s = f.Name() + " " + s
		}
		if tag := t.Tag(i); tag != "" {
			s += " " + strconv.Quote(tag)
		}
		parts = append(parts, s)
	}
	return "struct{ " + strings.Join(parts, "; ") + " }", true
}

func (r *rewriter) interfaceText(t *types.Interface) (string, bool) {
	if t.Empty() {
		return "any", true
	}
	if t.IsComparable() && t.NumMethods() == 0 {
		return "comparable", true
	}
	if !t.IsMethodSet() {
		return "", false
	}
	var parts []string
	for i := range t.NumMethods() {
		m := t.Method(i)
		if !m.Exported() && m.Pkg() != r.pr.pkg.Types {
			return "", false
		}
		s, ok := r.signatureText(m.Type().(*types.Signature))
		if !ok {
			return "", false
		}
		parts = append(parts, m.Name()+strings.TrimPrefix(s, "func"))
	}
	return "interface{ " + strings.Join(parts, "; ") + " }", true
}

// importFor returns the name under which the rewritten file refers to
// pkg: the file's own import of it, or one the rewrite adds.
func (r *rewriter) importFor(pkg *types.Package) string {
	for _, spec := range r.file.Imports {
		if strings.Trim(spec.Path.Value, "\"`") != pkg.Path() {
			continue
		}
		if spec.Name != nil && (spec.Name.Name == "_" || spec.Name.Name == ".") {
			continue
		}
		pn, _ := r.info.Defs[spec.Name].(*types.PkgName)
		if spec.Name == nil {
			pn, _ = r.info.Implicits[spec].(*types.PkgName)
		}
		if pn != nil {
			r.kept[pn] = true
			return pn.Name()
		}
	}
	if pkg.Name() == "main" {
		return ""
	}
	if name, ok := r.added[pkg.Path()]; ok {
		return name
	}
	name := "weftimp" + strconv.Itoa(len(r.added)+1)
	r.added[pkg.Path()] = name
	return name
}

package instrument

import (
	"go/token"
	"go/types"
)

// A span is a range of the original source: it names a node in every
// variant of the package that holds its file (a package and its test
// variant have distinct objects, but the same positions).
type span struct {
	file       string
	start, end int
}

// decisions are what a rewrite decided to leave alone, by position, kept
// across the package variants and passes of one Rewrite: a file shared by
// two variants is rewritten alike in both, since both read the same
// decisions. Decisions only grow, which bounds the passes.
type decisions struct {
	raw map[span]string   // expressions whose values keep the standard library's types, and why
	obj map[objKey]string // variables, fields, parameters, types that do
	// contents are the holders (a sync.Map, a context) whose contents
	// keep Go's types (see holders.go).
	contents map[objKey]string
	// stdCtx are the functions and methods, and stdCtxLit the function
	// literals, whose context parameters keep the standard library's type
	// (see stdctx.go), and why.
	stdCtx    map[objKey]string
	stdCtxLit map[span]string
	skip      map[span]string   // sites not rewritten, and why
	whole     map[string]string // files left as they are, and why
	// version counts the decisions about each file, so that a package
	// whose files gained one is rewritten again.
	version map[string]int
}

func newDecisions() *decisions {
	return &decisions{
		raw:       map[span]string{},
		obj:       map[objKey]string{},
		contents:  map[objKey]string{},
		stdCtx:    map[objKey]string{},
		stdCtxLit: map[span]string{},
		skip:      map[span]string{},
		whole:     map[string]string{},
		version:   map[string]int{},
	}
}

// addRaw records that the value at s keeps Go's types; it reports whether
// that is new.
func (d *decisions) addRaw(s span, why string) bool { return decide(d, d.raw, s, s.file, why) }

// decide records why under k in m, one of d's tables, for a site or an
// object of file; it reports whether that is new. Nothing is recorded in
// a file left as it is.
func decide[K comparable](d *decisions, m map[K]string, k K, file, why string) bool {
	if _, ok := m[k]; ok || d.whole[file] != "" {
		return false
	}
	m[k] = why
	d.version[file]++
	return true
}

// decided returns why k of file is in m, one of d's tables, or "".
func decided[K comparable](d *decisions, m map[K]string, k K, file string) string {
	if w := d.whole[file]; w != "" {
		return "its file is left as it is (" + w + ")"
	}
	return m[k]
}

// An objKey names an object (a variable, a field, a parameter, a type)
// across loads: by its file, line and name, which export data keeps too.
type objKey struct {
	file string
	line int
	name string
}

// addRawObj records that the values of the object k keep Go's types; it
// reports whether that is new.
func (d *decisions) addRawObj(k objKey, why string) bool { return decide(d, d.obj, k, k.file, why) }

// addRawContents records that the values held by the object k keep Go's
// types; it reports whether that is new.
func (d *decisions) addRawContents(k objKey, why string) bool {
	return decide(d, d.contents, k, k.file, why)
}

// rawContentsWhy returns why the values held by object k keep Go's types,
// or "".
func (d *decisions) rawContentsWhy(k objKey) string { return decided(d, d.contents, k, k.file) }

// rawObjWhy returns why the values of object k keep Go's types, or "".
func (d *decisions) rawObjWhy(k objKey) string { return decided(d, d.obj, k, k.file) }

// objKeyOf returns the key of an object.
func objKeyOf(fset *token.FileSet, obj types.Object) (objKey, bool) {
	if !obj.Pos().IsValid() || fset.File(obj.Pos()) == nil {
		return objKey{}, false
	}
	p := fset.Position(obj.Pos())
	name := obj.Name()
	if v, ok := obj.(*types.Var); ok && (name == "" || name == "_") {
		// The unnamed parameters and results of a line share their empty
		// name: watermill's Subscribe(context.Context, string) (<-chan
		// *Message, error) made its channel result Go's as its context
		// parameter was. Their kind tells the parameters from the
		// results (not their type, which the rewrite changes, nor their
		// column, which export data does not keep).
		name += " " + v.Kind().String()
	}
	return objKey{p.Filename, p.Line, name}, true
}

// addSkip records that the site at s is not rewritten.
func (d *decisions) addSkip(s span, why string) bool { return decide(d, d.skip, s, s.file, why) }

// addWhole records that file is left as it is.
func (d *decisions) addWhole(file, why string) bool {
	if d.whole[file] != "" {
		return false
	}
	d.whole[file] = why
	d.version[file]++
	return true
}

// rawWhy returns why the value at s keeps Go's types, or "".
func (d *decisions) rawWhy(s span) string { return decided(d, d.raw, s, s.file) }

// skipWhy returns why the site at s is not rewritten, or "".
func (d *decisions) skipWhy(s span) string { return decided(d, d.skip, s, s.file) }

// spanOf returns the span of [pos, end) in fset.
func spanOf(fset *token.FileSet, pos, end token.Pos) (span, bool) {
	if !pos.IsValid() {
		return span{}, false
	}
	tf := fset.File(pos)
	if tf == nil {
		return span{}, false
	}
	s := tf.Offset(pos)
	e := s
	if end.IsValid() && int(end) <= tf.Base()+tf.Size() {
		e = tf.Offset(end)
	}
	return span{tf.Name(), s, e}, true
}

package instrument

import (
	"sort"
	"strings"
)

// An edit replaces src[start:end] with text; an insertion has start == end.
//
// Edits are registered bottom-up, children before their parents. A rewrite
// that synthesizes a node anew (a go statement, a select) reads the text of
// its children with their edits applied, then replaces the node's whole
// range, absorbing the edits inside it. A range [start, end] owns the
// insertions at both of its ends.
type edit struct {
	start, end int
	text       string
}

// edits is the set of edits of one file.
type edits struct {
	src  []byte
	list []edit
}

func (e *edits) inside(x edit, start, end int) bool { return start <= x.start && x.end <= end }

// replace replaces src[start:end] with text, absorbing the edits inside.
func (e *edits) replace(start, end int, text string) {
	kept := e.list[:0:0]
	for _, x := range e.list {
		if !e.inside(x, start, end) {
			kept = append(kept, x)
		}
	}
	e.list = append(kept, edit{start, end, text})
	sort.SliceStable(e.list, func(i, j int) bool { return e.list[i].start < e.list[j].start })
}

// insert inserts text at offset at.
func (e *edits) insert(at int, text string) {
	e.list = append(e.list, edit{at, at, text})
	sort.SliceStable(e.list, func(i, j int) bool { return e.list[i].start < e.list[j].start })
}

// text returns src[start:end] with the edits inside it applied.
func (e *edits) text(start, end int) string {
	var b strings.Builder
	pos := start
	for _, x := range e.list {
		if !e.inside(x, start, end) || x.start < pos {
			continue
		}
		b.Write(e.src[pos:x.start])
		b.WriteString(x.text)
		pos = x.end
	}
	b.Write(e.src[pos:end])
	return b.String()
}

// apply returns the whole file with every edit applied.
func (e *edits) apply() []byte { return []byte(e.text(0, len(e.src))) }

package instrument

import (
	"sort"
	"strconv"
	"strings"
)

// An edit replaces src[start:end] with text; an insertion has start == end.
//
// Edits are registered bottom-up, children before their parents. A rewrite
// that synthesizes a node anew (a go statement, a select) refers to the
// text of its children with ref, and replaces the node's whole range,
// absorbing the edits inside it: a range [start, end] owns the insertions
// at both of its ends. A reference is rendered, when the file is, with the
// edits registered before it was taken, so the output keeps track of where
// every piece of the original ended up (see piece), which is how a type
// error in the rewritten file is traced back to the site at fault.
type edit struct {
	start, end int
	text       string
}

// A ref is a range of the source as it was when the reference was taken:
// with the first seq edits.
type ref struct{ start, end, seq int }

// The bytes that delimit a reference in an edit's text: NUL never occurs
// in Go source.
const refOpen, refClose = '\x00', '\x01'

// edits is the set of edits of one file.
type edits struct {
	src  []byte
	list []edit // in the order registered
	refs []ref
}

// replace replaces src[start:end] with text, absorbing the edits inside.
func (e *edits) replace(start, end int, text string) {
	e.list = append(e.list, edit{start, end, text})
}

// insert inserts text at offset at.
func (e *edits) insert(at int, text string) { e.replace(at, at, text) }

// ref returns a reference to src[start:end] with the edits made so far,
// for the text of a later edit.
func (e *edits) ref(start, end int) string {
	e.refs = append(e.refs, ref{start, end, len(e.list)})
	return string(refOpen) + strconv.Itoa(len(e.refs)-1) + string(refClose)
}

// text returns src[start:end] with the edits made so far applied.
func (e *edits) text(start, end int) string {
	var r renderer
	r.e = e
	r.render(start, end, len(e.list))
	return r.out.String()
}

// expand replaces the references in s by their text.
func (e *edits) expand(s string) string {
	if !strings.ContainsRune(s, refOpen) {
		return s
	}
	var r renderer
	r.e = e
	r.write(s)
	return r.out.String()
}

// A piece is a part of the output: src[start:end], copied (src) or
// rewritten by an edit (its text, references aside), at out[outStart:outEnd].
type piece struct {
	outStart, outEnd int
	start, end       int
	src              bool
}

// apply returns the whole file with every edit applied, and where each
// piece of the output comes from.
func (e *edits) apply() ([]byte, []piece) {
	var r renderer
	r.e = e
	r.track = true
	r.render(0, len(e.src), len(e.list))
	return []byte(r.out.String()), r.pieces
}

type renderer struct {
	e      *edits
	out    strings.Builder
	track  bool
	pieces []piece
}

// render writes src[start:end] as it is with the first seq edits: those
// inside the range, but the ones a later one among them absorbed.
func (r *renderer) render(start, end, seq int) {
	e := r.e
	var inside []int
	for i := range min(seq, len(e.list)) {
		if x := e.list[i]; start <= x.start && x.end <= end {
			inside = append(inside, i)
		}
	}
	var alive []int
	for k, i := range inside {
		x := e.list[i]
		absorbed := false
		for _, j := range inside[k+1:] {
			if y := e.list[j]; y.start < y.end && y.start <= x.start && x.end <= y.end {
				absorbed = true
				break
			}
		}
		if !absorbed {
			alive = append(alive, i)
		}
	}
	sort.SliceStable(alive, func(a, b int) bool { return e.list[alive[a]].start < e.list[alive[b]].start })
	pos := start
	for _, i := range alive {
		x := e.list[i]
		if x.start < pos {
			continue
		}
		r.source(pos, x.start)
		outStart := r.out.Len()
		r.write(x.text)
		if r.track {
			r.pieces = append(r.pieces, piece{outStart, r.out.Len(), x.start, x.end, false})
		}
		pos = x.end
	}
	r.source(pos, end)
}

func (r *renderer) source(start, end int) {
	if start >= end {
		return
	}
	outStart := r.out.Len()
	r.out.Write(r.e.src[start:end])
	if r.track {
		r.pieces = append(r.pieces, piece{outStart, r.out.Len(), start, end, true})
	}
}

// write writes an edit's text, rendering its references.
func (r *renderer) write(s string) {
	for {
		k := strings.IndexByte(s, refOpen)
		if k < 0 {
			r.out.WriteString(s)
			return
		}
		r.out.WriteString(s[:k])
		s = s[k+1:]
		j := strings.IndexByte(s, refClose)
		id, _ := strconv.Atoi(s[:j])
		s = s[j+1:]
		x := r.e.refs[id]
		r.render(x.start, x.end, x.seq)
	}
}

// origin returns the range of the source that output offset off comes
// from: exactly, for copied source; the range an edit rewrote, for its
// own text.
func origin(pieces []piece, off int) (start, end int, ok bool) {
	best := -1
	for i, p := range pieces {
		if p.outStart <= off && off < p.outEnd {
			if best < 0 || p.outEnd-p.outStart < pieces[best].outEnd-pieces[best].outStart {
				best = i
			}
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	p := pieces[best]
	if p.src {
		o := p.start + off - p.outStart
		return o, o + 1, true
	}
	return p.start, p.end, true
}

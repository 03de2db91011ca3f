package timeline

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"time"

	"github.com/weftdev/weft/internal/text"
)

// The HTML picture: time flows down, one row per event, one column per lane;
// a lane's header stays in view while the page scrolls. Everything is drawn
// in Go as SVG, in one file with no script and nothing fetched, so that the
// page opens anywhere, from a CI artifact too, and reads the same in any
// browser. The page is well-formed XML as well (XHTML), which its tests
// rely on.

// Layout, in pixels.
const (
	gutter    = 112 // the left column: position and virtual time
	laneW     = 176 // an expanded lane
	idleW     = 18  // an idle lane
	rowH      = 34  // a row of an expanded lane's event
	idleRowH  = 9   // a row of an idle lane's event
	gapH      = 26  // a row standing for events left out
	headH     = 46  // the lanes' header
	boxPad    = 5
	maxLabel  = 26 // characters of an operation or site that fit in a box
	maxRows   = 2500
	keepEnd   = 800 // of a long trace: the last events, always drawn
	keepStart = 100 // and the first ones
	keepNear  = 60  // and those around each preemption and the failure
)

// The kinds of links, their colors, and what they join.
var linkKinds = []struct{ kind, color, what string }{
	{"go", "#2a9d3a", "go → start"},
	{"lock", "#7b3fbf", "unlock → lock"},
	{"chan", "#1f6fd1", "send → receive"},
	{"wait", "#0f8a8a", "Done, Signal → Wait"},
}

func linkColor(kind string) string {
	for _, k := range linkKinds {
		if k.kind == kind {
			return k.color
		}
	}
	return "#555"
}

// HTML writes the timeline as one self-contained HTML page.
func (t *Timeline) HTML(w io.Writer) error {
	bw := bufio.NewWriter(w)
	l := newLayout(t)
	p := &page{w: bw, t: t, l: l}
	p.head()
	p.lanesHeader()
	p.body()
	p.tail()
	return bw.Flush()
}

// layout places lanes and positions.
type layout struct {
	x, w   []int // by lane: left edge and width
	width  int   // of the picture
	keep   []bool
	top    []int // by position: the top of its row; for a position left out, inside its gap
	height int
	gaps   []gap
}

// A gap is a run of positions left out of a long picture.
type gap struct{ from, to, top int }

func newLayout(t *Timeline) *layout {
	l := &layout{}
	x := gutter
	for _, lane := range t.Lanes {
		w := laneW
		if lane.Idle {
			w = idleW
		}
		l.x, l.w = append(l.x, x), append(l.w, w)
		x += w
	}
	l.width = x + 24
	l.keep = keep(t)
	busyAt := make([]bool, t.Steps) // positions where an expanded lane has a box
	for _, b := range t.Boxes {
		for i := b.At; i < b.End() && i < t.Steps; i++ {
			busyAt[i] = busyAt[i] || !t.Lanes[b.Lane].Idle
		}
	}
	l.top = make([]int, t.Steps+1)
	y := 8
	for i := 0; i < t.Steps; {
		if !l.keep[i] {
			j := i
			for j < t.Steps && !l.keep[j] {
				j++
			}
			l.gaps = append(l.gaps, gap{from: i, to: j, top: y})
			for k := i; k < j; k++ {
				l.top[k] = y + (k-i)*gapH/(j-i)
			}
			y += gapH
			i = j
			continue
		}
		l.top[i] = y
		if busyAt[i] {
			y += rowH
		} else {
			y += idleRowH
		}
		i++
	}
	l.top[t.Steps] = y
	l.height = y + 16
	return l
}

// keep decides which positions a picture draws: all of a short one; of a
// long one, the first and last events and those around each preemption and
// the failure.
func keep(t *Timeline) []bool {
	k := make([]bool, t.Steps)
	if t.Steps <= maxRows {
		for i := range k {
			k[i] = true
		}
		return k
	}
	mark := func(from, to int) {
		for i := max(from, 0); i < min(to, t.Steps); i++ {
			k[i] = true
		}
	}
	mark(0, keepStart)
	mark(t.Steps-keepEnd, t.Steps)
	for _, b := range t.Boxes {
		if b.Kind == Preempted || b.Kind == Failure {
			mark(b.At-keepNear, b.End()+keepNear)
		}
	}
	return k
}

// bottom returns the bottom of position i's row.
func (l *layout) bottom(i int) int { return l.top[min(i+1, len(l.top)-1)] }

type page struct {
	w *bufio.Writer
	t *Timeline
	l *layout
}

func (p *page) printf(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func esc(s string) string { return html.EscapeString(s) }

const style = `
body { font: 13px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0; color: #1d1d1f; background: #fff; }
header.top { padding: 12px 16px 8px; border-bottom: 1px solid #ddd; }
header.top h1 { font-size: 17px; margin: 0 0 4px; }
header.top p { margin: 2px 0; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; white-space: pre-wrap; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; margin-top: 8px; font-size: 12px; color: #444; }
.legend span { display: inline-flex; align-items: center; gap: 5px; }
.legend i { display: inline-block; width: 16px; height: 11px; border-radius: 2px; border: 1px solid #999; }
.lanes { position: sticky; top: 0; z-index: 2; background: #fafafa; border-bottom: 1px solid #ccc; height: 46px; }
.lane-head { position: absolute; top: 0; height: 46px; box-sizing: border-box; padding: 4px 6px; border-left: 1px solid #e2e2e2; overflow: hidden; }
.lane-head b { display: block; font-size: 12px; white-space: nowrap; }
.lane-head small { display: block; color: #b3261e; font-size: 11px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.lane-head.idle { padding: 2px 0; writing-mode: vertical-rl; font-size: 10px; color: #888; text-align: left; }
svg text { font-family: ui-monospace, Menlo, Consolas, monospace; }
.op { font-size: 11px; font-weight: 600; fill: #1d1d1f; }
.site { font-size: 10px; fill: #555; }
.pos { font-size: 10px; fill: #999; }
.gap { font-size: 11px; fill: #777; font-style: italic; }
.note { font-size: 11px; fill: #c05600; font-weight: 600; }
rect.event { fill: #e8f0fe; stroke: #6b8fd6; }
rect.continuation { fill: #f3f6fb; stroke: #b4c3e0; stroke-dasharray: 3 2; }
rect.preempted { fill: #ffe2c2; stroke: #e06c00; stroke-width: 2.5; }
rect.failure { fill: #fddcdc; stroke: #c62828; stroke-width: 2.5; }
rect.blocked { fill: url(#hatch); }
rect.ready { fill: #ffb347; fill-opacity: 0.22; }
.link { fill: none; stroke-width: 1.6; opacity: 0.85; }
.link:hover { stroke-width: 3; opacity: 1; }
.link.idle { stroke-width: 1; opacity: 0.3; }
`

func (p *page) head() {
	t := p.t
	p.printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		esc("weft timeline: "+t.Title), style)
	p.printf("<header class=\"top\">\n<h1>%s</h1>\n", esc(t.Title))
	for _, n := range t.Notes {
		p.printf("<p>%s</p>\n", esc(n))
	}
	events := 0
	for _, b := range t.Boxes {
		if b.Kind != Continuation {
			events++
		}
	}
	summary := fmt.Sprintf("%d goroutines, %d events", len(t.Lanes), t.Steps)
	if t.Omitted > 0 {
		summary += fmt.Sprintf(" (the first %d events of the execution are not in its trace)", t.Omitted)
	}
	if len(p.l.gaps) > 0 {
		summary += "; stretches far from the preemptions and the failure are left out"
	}
	p.printf("<p>%s</p>\n", esc(summary))
	p.printf(`<div class="legend">
<span><i style="background:#e8f0fe;border-color:#6b8fd6"></i>event: operation, file:line</span>
<span><i style="background:#ffe2c2;border-color:#e06c00"></i>preempted: another goroutine ran instead</span>
<span><i style="background:#fddcdc;border-color:#c62828"></i>failure</span>
<span><i style="background:repeating-linear-gradient(45deg,#bbb 0 2px,#fff 2px 5px)"></i>blocked</span>
<span><i style="background:#ffe6c4"></i>ready, not running (after a preemption)</span>
`)
	for _, k := range linkKinds {
		p.printf("<span><i style=\"background:%s;border-color:%s;height:3px\"></i>%s</span>\n", k.color, k.color, esc(k.what))
	}
	p.printf("</div>\n</header>\n")
}

func (p *page) lanesHeader() {
	p.printf("<div class=\"lanes\" style=\"width:%dpx\">\n", p.l.width)
	p.printf("<div class=\"lane-head\" style=\"left:0;width:%dpx;border-left:0\"><b>event</b><small style=\"color:#888\">virtual time</small></div>\n", gutter)
	for i, lane := range p.t.Lanes {
		class := "lane-head"
		if lane.Idle {
			class += " idle"
		}
		title := "goroutine " + lane.Name
		if lane.Note != "" {
			title += ": " + lane.Note
		}
		p.printf("<div class=\"%s\" data-lane=\"%s\" style=\"left:%dpx;width:%dpx\" title=\"%s\">", class, esc(lane.Name), p.l.x[i], p.l.w[i], esc(title))
		if lane.Idle {
			p.printf("%s</div>\n", esc(lane.Name))
			continue
		}
		p.printf("<b>goroutine %s</b>", esc(lane.Name))
		if lane.Note != "" {
			p.printf("<small>%s</small>", esc(lane.Note))
		}
		p.printf("</div>\n")
	}
	p.printf("</div>\n")
}

func (p *page) body() {
	t, l := p.t, p.l
	p.printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" class=\"timeline\">\n", l.width, l.height)
	p.printf(`<defs>
<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4f4f4"/><line x1="0" y1="0" x2="0" y2="6" stroke="#bdbdbd" stroke-width="2.5"/></pattern>
`)
	markers := append(linkKinds[:len(linkKinds):len(linkKinds)], struct{ kind, color, what string }{"other", "#555", ""})
	for _, k := range markers {
		p.printf("<marker id=\"arrow-%s\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>\n", k.kind, k.color)
	}
	p.printf("</defs>\n")
	// Lane separators.
	for i := range t.Lanes {
		p.printf("<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>\n", l.x[i], l.x[i], l.height)
	}
	p.gapRows()
	p.spans()
	p.boxes()
	p.links()
	p.printf("</svg>\n")
}

func (p *page) gapRows() {
	for _, g := range p.l.gaps {
		p.printf("<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f7f7f7\"/>", g.top, p.l.width, gapH)
		p.printf("<text class=\"gap\" x=\"%d\" y=\"%d\">… %d events left out (%d to %d) …</text>\n", gutter+8, g.top+17, g.to-g.from, g.from, g.to-1)
	}
}

func (p *page) spans() {
	t, l := p.t, p.l
	p.printf("<g class=\"spans\">\n")
	for _, s := range t.Spans {
		y0, y1 := l.top[min(s.From, t.Steps)], l.top[min(s.To, t.Steps)]
		if y1 <= y0 {
			continue
		}
		p.printf("<rect class=\"%s\" data-lane=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>%s</title></rect>\n",
			s.Kind, esc(t.Lanes[s.Lane].Name), l.x[s.Lane]+3, y0, l.w[s.Lane]-6, y1-y0, esc("goroutine "+t.Lanes[s.Lane].Name+": "+s.Note))
	}
	p.printf("</g>\n")
}

func (p *page) boxes() {
	t, l := p.t, p.l
	p.printf("<g class=\"boxes\">\n")
	last := time.Duration(-1)
	preemption := 0
	for _, b := range t.Boxes {
		if b.At >= t.Steps || !l.keep[b.At] {
			continue
		}
		lane := t.Lanes[b.Lane]
		y0, y1 := l.top[b.At], l.top[min(b.End(), t.Steps)]
		x0, w := l.x[b.Lane], l.w[b.Lane]
		// The gutter: the position, and the virtual time where it moved
		// more than a tick.
		label := fmt.Sprint(b.At)
		if last >= 0 && b.Time-last > 2*tick || last < 0 {
			label += "  " + formatTime(b.Time)
		}
		last = b.Time
		if !lane.Idle || b.Kind == Preempted || b.Kind == Failure {
			p.printf("<text class=\"pos\" x=\"6\" y=\"%d\">%s</text>", y0+13, esc(label))
		}
		title := fmt.Sprintf("goroutine %s, event %d: %s at %s", lane.Name, b.At, b.Op, text.OrDash(b.Site))
		if b.Note != "" {
			title += "\n" + b.Note
		}
		p.printf("<g class=\"box\" data-lane=\"%s\" data-kind=\"%s\" data-op=\"%s\"><title>%s</title>", esc(lane.Name), b.Kind, esc(b.Op), esc(title))
		if lane.Idle {
			p.printf("<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"2\"/></g>\n", b.Kind, x0+3, y0+1, w-6, max(y1-y0-2, 3))
			continue
		}
		p.printf("<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>", b.Kind, x0+boxPad, y0+2, w-2*boxPad, y1-y0-4)
		p.printf("<text class=\"op\" x=\"%d\" y=\"%d\">%s</text>", x0+boxPad+5, y0+15, esc(clip(b.Op)))
		p.printf("<text class=\"site\" x=\"%d\" y=\"%d\">%s</text></g>\n", x0+boxPad+5, y0+28, esc(clip(b.Site)))
		if b.Kind == Preempted {
			preemption++
			p.printf("<text class=\"note\" x=\"6\" y=\"%d\">preemption %d</text>\n", y0+26, preemption)
		}
	}
	p.printf("</g>\n")
}

// links draws an arrow from each link's box to where its target went on.
func (p *page) links() {
	t, l := p.t, p.l
	p.printf("<g class=\"links\">\n")
	for _, k := range t.Links {
		from, to := t.Boxes[k.From], t.Boxes[k.To]
		at := min(max(k.At, to.At), t.Steps-1)
		if !l.keep[from.At] || !l.keep[to.At] || at < 0 {
			continue
		}
		fy := (l.top[from.At] + l.bottom(from.At)) / 2
		ty := l.bottom(at)
		if at == to.At {
			ty = (l.top[to.At] + l.bottom(to.At)) / 2
		}
		fx, tx := l.x[from.Lane]+l.w[from.Lane]-boxPad, l.x[to.Lane]+boxPad
		if to.Lane < from.Lane {
			fx, tx = l.x[from.Lane]+boxPad, l.x[to.Lane]+l.w[to.Lane]-boxPad
		}
		bend := (tx - fx) / 2
		color, marker := linkColor(k.Kind), k.Kind
		if color == "#555" {
			marker = "other"
		}
		class := "link"
		if t.Lanes[from.Lane].Idle || t.Lanes[to.Lane].Idle {
			class += " idle"
		}
		p.printf("<path class=\"%s\" data-kind=\"%s\" d=\"M%d,%d C%d,%d %d,%d %d,%d\" stroke=\"%s\" marker-end=\"url(#arrow-%s)\"><title>%s</title></path>\n",
			class, esc(k.Kind), fx, fy, fx+bend, fy, tx-bend, ty, tx, ty, color, esc(marker),
			esc(fmt.Sprintf("%s: goroutine %s (event %d) → goroutine %s (event %d)", k.Note, t.Lanes[from.Lane].Name, from.At, t.Lanes[to.Lane].Name, to.At)))
	}
	p.printf("</g>\n")
}

func (p *page) tail() {
	p.printf("</body>\n</html>\n")
}

// tick is the virtual time of one event, as sched.Tick (not imported here:
// the renderers draw any timeline).
const tick = 20 * time.Nanosecond

// formatTime shows a virtual time briefly.
func formatTime(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return d.String()
	case d < time.Second:
		return d.Round(time.Microsecond / 10).String()
	}
	return d.Round(time.Millisecond).String()
}

// clip shortens a label to what fits in a box; the box's tooltip has it
// whole.
func clip(s string) string {
	if len(s) <= maxLabel {
		return s
	}
	return s[:maxLabel-1] + "…"
}

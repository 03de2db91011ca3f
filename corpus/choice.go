package corpus

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/weftdev/weft/sched"
)

// The first word of a choice line.
const (
	verbSwitch  = "switch"
	verbPreempt = "preempt"
	verbPick    = "pick"
)

func isChoiceVerb(s string) bool {
	return s == verbSwitch || s == verbPreempt || s == verbPick
}

// noText stands for an unknown operation or site in an annotation.
const noText = "-"

// parseChoice parses a choice line, trimmed and not empty:
//
//	switch G#N -> H [@ OP SITE]
//	preempt G#N -> H [@ OP SITE]
//	pick G#N V/OF [@ OP SITE]
func parseChoice(line string) (sched.Choice, string) {
	var c sched.Choice
	fs := fields(line)
	verb := fs[0].s
	var rest []field
	switch verb {
	case verbSwitch, verbPreempt:
		if len(fs) < 4 {
			return c, fmt.Sprintf("incomplete %s: want \"%s G#N -> H\"", verb, verb)
		}
		c.Kind, c.Preempt = sched.RunChoice, verb == verbPreempt
		if p := parseEvent(fs[1].s, &c); p != "" {
			return c, p
		}
		if fs[2].s != "->" {
			return c, fmt.Sprintf("%s: want -> after %s, got %s", verb, fs[1].s, quote(fs[2].s))
		}
		c.Next = fs[3].s
		if !isLineage(c.Next) && c.Next != sched.Clock.ID() {
			return c, fmt.Sprintf("%s: next goroutine %s is not a lineage like 0.2.1, or clock", verb, quote(c.Next))
		}
		if c.Preempt && c.Next == c.G {
			return c, fmt.Sprintf("preempt: goroutine %s cannot preempt itself", c.G)
		}
		rest = fs[4:]
	case verbPick:
		if len(fs) < 3 {
			return c, "incomplete pick: want \"pick G#N V/OF\""
		}
		c.Kind = sched.PickChoice
		if p := parseEvent(fs[1].s, &c); p != "" {
			return c, p
		}
		if p := parsePick(fs[2].s, &c); p != "" {
			return c, p
		}
		rest = fs[3:]
	default:
		return c, fmt.Sprintf("unknown choice %s: want switch, preempt or pick", quote(verb))
	}
	if len(rest) == 0 {
		return c, ""
	}
	if rest[0].s != "@" {
		return c, fmt.Sprintf("%s: unexpected %s after the choice; an annotation starts with \" @ \"", verb, quote(rest[0].s))
	}
	if len(rest) < 3 {
		return c, fmt.Sprintf("%s: @ needs an operation and a site (- if unknown), like \"@ Mutex.Lock mu.go:12\"", verb)
	}
	site := rest[len(rest)-1].s
	op := trimSpace(line[rest[1].start:rest[len(rest)-1].start])
	if site != noText && !isSite(site) {
		return c, fmt.Sprintf("%s: site %s is not file:line or -", verb, quote(site))
	}
	if op != noText {
		c.Op = op
	}
	if site != noText {
		c.Site = site
	}
	return c, ""
}

// parseEvent parses "G#N" or "G#N+K" into c.G, c.N and c.K.
func parseEvent(s string, c *sched.Choice) string {
	g, n, ok := strings.Cut(s, "#")
	if !ok {
		return fmt.Sprintf("choice: %s is not goroutine#event like 0.2#3", quote(s))
	}
	if event, k, ok := strings.Cut(n, "+"); ok {
		if !isDecimal(k) {
			return fmt.Sprintf("choice: decision %s at event %s is not a number", quote(k), event)
		}
		sub, err := strconv.Atoi(k)
		if err != nil || sub < 1 {
			return fmt.Sprintf("choice: decision +%s out of range: it counts from +1", k)
		}
		c.K, n = sub, event
	}
	if !isLineage(g) {
		return fmt.Sprintf("choice: goroutine %s is not a lineage like 0.2.1", quote(g))
	}
	if !isDecimal(n) {
		return fmt.Sprintf("choice: event %s is not a number ≥ 1", quote(n))
	}
	num, err := strconv.Atoi(n)
	if err != nil {
		return fmt.Sprintf("choice: event number %s out of range", n)
	}
	if num < 1 {
		return "choice: event number 0: events count from 1"
	}
	c.G, c.N = g, num
	return ""
}

// parsePick parses "V/OF" into c.Value and c.Of.
func parsePick(s string, c *sched.Choice) string {
	v, of, ok := strings.Cut(s, "/")
	if !ok || !isDecimal(v) || !isDecimal(of) {
		return fmt.Sprintf("pick: %s is not value/count like 1/3", quote(s))
	}
	value, err1 := strconv.Atoi(v)
	count, err2 := strconv.Atoi(of)
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("pick: %s out of range", s)
	}
	if count < 2 {
		return fmt.Sprintf("pick among %d values: need at least 2", count)
	}
	if value >= count {
		return fmt.Sprintf("pick value %d out of range 0..%d", value, count-1)
	}
	c.Value, c.Of = value, count
	return ""
}

// isLineage reports whether s is a goroutine lineage: "0", or "0" followed
// by parts ".K", K ≥ 1 in decimal without leading zeros.
func isLineage(s string) bool {
	rest, ok := strings.CutPrefix(s, "0")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	rest, ok = strings.CutPrefix(rest, ".")
	if !ok {
		return false
	}
	for part := range strings.SplitSeq(rest, ".") {
		if !isDecimal(part) || part[0] == '0' {
			return false
		}
	}
	return true
}

// isSite reports whether s looks like file:line.
func isSite(s string) bool {
	i := strings.LastIndexByte(s, ':')
	return i > 0 && isDecimal(s[i+1:])
}

// formatEvent formats the event of c as G#N, or G#N+K for a decision
// after the first at that event.
func formatEvent(c sched.Choice) string {
	if c.K > 0 {
		return fmt.Sprintf("%s#%d+%d", cleanToken(c.G), c.N, c.K)
	}
	return fmt.Sprintf("%s#%d", cleanToken(c.G), c.N)
}

// formatChoice formats c as a choice line. A choice of unknown kind becomes
// a line Parse rejects, so that Write refuses the entry rather than drop it.
func formatChoice(c sched.Choice) string {
	var b strings.Builder
	switch c.Kind {
	case sched.RunChoice:
		verb := verbSwitch
		if c.Preempt {
			verb = verbPreempt
		}
		fmt.Fprintf(&b, "%s %s -> %s", verb, formatEvent(c), cleanToken(c.Next))
	case sched.PickChoice:
		fmt.Fprintf(&b, "%s %s#%d %d/%d", verbPick, cleanToken(c.G), c.N, c.Value, c.Of)
	default:
		fmt.Fprintf(&b, "unknown-kind-%d %s#%d", c.Kind, cleanToken(c.G), c.N)
	}
	op, site := cleanText(c.Op), cleanToken(c.Site)
	if op == noText {
		op = ""
	}
	if site != "" && !isSite(site) {
		site = "" // not a site; the annotation is only informative
	}
	if op != "" || site != "" {
		fmt.Fprintf(&b, " @ %s %s", cmp.Or(op, noText), cmp.Or(site, noText))
	}
	return b.String()
}

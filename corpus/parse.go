package corpus

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// versionLine is the first line of every file this package writes. Version
// 2 came with the controller's model of time (timers that fire while
// goroutines can still run): its choices may name the clock ("-> clock")
// and a second decision at an event ("G#N+K"). Version 1 files, written
// before, are read as well; they replay under the new model as far as they
// apply.
const versionLine = "weft schedule v2"

// versionLines are the first lines of the versions this package reads.
var versionLines = []string{"weft schedule v1", versionLine}

// versionPrefix starts the first line of every version of the format.
const versionPrefix = "weft schedule "

// A ParseError reports a malformed corpus file.
type ParseError struct {
	File    string // the file name given to Parse
	Line    int    // the line of the problem, from 1
	Problem string // what is wrong
}

// Error returns "FILE:LINE: PROBLEM".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Problem)
}

// Parse parses the content of a corpus file. The file name is used only in
// errors, which are of type *ParseError and name the first problem. Lines
// may end in CRLF, the last one need not end at all, spaces and tabs around
// a line are ignored, and so are a leading byte order mark and lines
// starting with # (in the header too).
func Parse(file string, data []byte) (*Entry, error) {
	lines, err := splitLines(file, data)
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, lines: lines}
	e, err := p.parse()
	if err != nil {
		return nil, err
	}
	return e, nil
}

// splitLines splits data into lines without their line endings, after
// checking that it is text.
func splitLines(file string, data []byte) ([]string, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // a byte order mark some editors add
	text := string(data)
	var lines []string
	for n := 1; text != ""; n++ {
		line, rest, _ := strings.Cut(text, "\n")
		line = strings.TrimSuffix(line, "\r")
		if problem := checkLine(line); problem != "" {
			return nil, &ParseError{file, n, problem}
		}
		lines = append(lines, line)
		text = rest
	}
	return lines, nil
}

type parser struct {
	file  string
	lines []string
	line  int // the number of the line being parsed, from 1
}

func (p *parser) errorf(format string, args ...any) error {
	return &ParseError{p.file, p.line, fmt.Sprintf(format, args...)}
}

func (p *parser) parse() (*Entry, error) {
	if err := p.version(); err != nil {
		return nil, err
	}
	e := new(Entry)
	if err := p.header(e); err != nil {
		return nil, err
	}
	for p.line < len(p.lines) {
		p.line++
		line := trimSpace(p.lines[p.line-1])
		if line == "" || line[0] == '#' {
			continue
		}
		c, problem := parseChoice(line)
		if problem != "" {
			return nil, p.errorf("%s", problem)
		}
		e.Schedule = append(e.Schedule, c)
	}
	return e, nil
}

func (p *parser) version() error {
	p.line = 1
	if len(p.lines) == 0 {
		return p.errorf("empty file: not a weft schedule file")
	}
	line := trimSpace(p.lines[0])
	switch {
	case slices.Contains(versionLines, line):
		return nil
	case strings.HasPrefix(line, versionPrefix):
		v := strings.TrimPrefix(line, versionPrefix)
		if len(v) > 1 && v[0] == 'v' && isDecimal(v[1:]) {
			return p.errorf("unsupported format version %s: this weft reads v1 and v2", v)
		}
		return p.errorf("malformed version line %s, want %q", quote(line), versionLine)
	}
	return p.errorf("not a weft schedule file: the first line is %s, want %q", quote(line), versionLine)
}

// The header keys this version knows, in the order Marshal writes them.
const (
	keyTest        = "test"
	keyFound       = "found"
	keyFailure     = "failure"
	keySignature   = "signature"
	keyPreemptions = "preemptions"
	keyHash        = "hash"
	keyInput       = "input"
	keyParallel    = "parallel"
)

// header parses the header lines, up to the first blank line or the end of
// the file, leaving p.line at that blank line.
func (p *parser) header(e *Entry) error {
	seen := make(map[string]int) // key → line
	for p.line < len(p.lines) {
		p.line++
		line := trimSpace(p.lines[p.line-1])
		if line == "" {
			break
		}
		if line[0] == '#' {
			continue
		}
		key, value, problem := splitHeader(line)
		if problem != "" {
			return p.errorf("%s", problem)
		}
		if first, dup := seen[key]; dup {
			return p.errorf("duplicate %s: header (first on line %d)", key, first)
		}
		seen[key] = p.line
		if problem := setHeader(e, key, value); problem != "" {
			return p.errorf("%s", problem)
		}
	}
	if _, ok := seen[keyTest]; !ok {
		return p.errorf("missing test: header (the header ends here)")
	}
	return nil
}

// splitHeader splits a header line "key: value" (or "key:", for an empty
// value).
func splitHeader(line string) (key, value, problem string) {
	key, value, ok := strings.Cut(line, ":")
	if !ok || value != "" && !isSpace(value[0]) {
		if f := fields(line); isChoiceVerb(f[0].s) {
			return "", "", fmt.Sprintf("choice %s in the header: a blank line must separate the header from the choices", quote(line))
		}
		return "", "", fmt.Sprintf("header line without ': ': %s", quote(line))
	}
	if !isHeaderKey(key) {
		return "", "", fmt.Sprintf("header key %s is not a word of letters, digits, '-', '_' and '.'", quote(key))
	}
	return key, trimSpace(value), ""
}

// isHeaderKey reports whether key may name a header line.
func isHeaderKey(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || i > 0 && (c == '-' || c == '_' || c == '.')) {
			return false
		}
	}
	return true
}

// setHeader stores the value of a header line in e.
func setHeader(e *Entry, key, value string) (problem string) {
	switch key {
	case keyTest:
		if value == "" {
			return "empty test: header"
		}
		e.Test = value
	case keyFound:
		found, problem := parseFound(value)
		if problem != "" {
			return "found: " + problem
		}
		e.Found = found
	case keyFailure:
		e.Failure = value
	case keySignature:
		e.Signature = value
	case keyPreemptions:
		n, orig, problem := parsePreemptions(value)
		if problem != "" {
			return "preemptions: " + problem
		}
		e.Preemptions, e.Original = n, orig
	case keyHash:
		h, ok := parseHex64(value)
		if !ok {
			return fmt.Sprintf("hash: %s is not a 64-bit hexadecimal number like 0x8f3a11c2d4e5f607", quote(value))
		}
		e.Hash = h
	case keyInput:
		in, problem := parseInput(value)
		if problem != "" {
			return "input: " + problem
		}
		e.Input = in
	case keyParallel:
		n, ok := parseCount(value)
		if !ok || n == 0 {
			return fmt.Sprintf("parallel: %s is not a number of slots like 2", quote(value))
		}
		e.Parallel = n
	default:
		e.Extra = append(e.Extra, [2]string{key, value})
	}
	return ""
}

// The fields of a found: header this version knows.
const (
	foundStrategy  = "strategy"
	foundSeed      = "seed"
	foundIteration = "iteration"
	foundDepth     = "depth"
)

// parseFound parses "strategy=S seed=0xHEX iteration=N depth=D": each field
// is optional, in any order, and unknown ones are kept.
func parseFound(value string) (Found, string) {
	var f Found
	seen := make(map[string]bool)
	for _, fl := range fields(value) {
		k, v, ok := strings.Cut(fl.s, "=")
		if !ok || k == "" {
			return Found{}, fmt.Sprintf("field %s is not key=value", quote(fl.s))
		}
		if seen[k] {
			return Found{}, fmt.Sprintf("duplicate field %s", k)
		}
		seen[k] = true
		var ok2 bool
		switch k {
		case foundStrategy:
			f.Strategy, ok2 = v, true
		case foundSeed:
			if f.Seed, ok2 = parseHex64(v); !ok2 {
				return Found{}, fmt.Sprintf("seed %s is not a 64-bit hexadecimal number like 0x1b2c3d4e", quote(v))
			}
		case foundIteration:
			if f.Iteration, ok2 = parseCount(v); !ok2 {
				return Found{}, fmt.Sprintf("iteration %s is not a number ≥ 0", quote(v))
			}
		case foundDepth:
			if f.Depth, ok2 = parseCount(v); !ok2 {
				return Found{}, fmt.Sprintf("depth %s is not a number ≥ 0", quote(v))
			}
		default:
			f.Extra = append(f.Extra, fl.s)
		}
	}
	return f, ""
}

// parsePreemptions parses "N" or "N (minimized from M)".
func parsePreemptions(value string) (n, orig int, problem string) {
	fs := fields(value)
	ok := len(fs) > 0
	if ok {
		n, ok = parseCount(fs[0].s)
	}
	switch {
	case !ok:
	case len(fs) == 1:
		return n, 0, ""
	case len(fs) == 4 && fs[1].s == "(minimized" && fs[2].s == "from" && strings.HasSuffix(fs[3].s, ")"):
		if orig, ok = parseCount(strings.TrimSuffix(fs[3].s, ")")); ok {
			return n, orig, ""
		}
	}
	return 0, 0, fmt.Sprintf("want N or \"N (minimized from M)\", got %s", quote(value))
}

// parseCount parses a decimal number ≥ 0 that fits an int.
func parseCount(s string) (int, bool) {
	if !isDecimal(s) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// parseHex64 parses a hexadecimal uint64 with the 0x prefix.
func parseHex64(s string) (uint64, bool) {
	digits, ok := strings.CutPrefix(s, "0x")
	if !ok || digits == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 16, 64)
	return n, err == nil
}

// parseInput parses the words of an input: header, 64-bit hexadecimal
// numbers separated by spaces.
func parseInput(value string) ([]uint64, string) {
	fs := fields(value)
	if len(fs) == 0 {
		return nil, "no words"
	}
	in := make([]uint64, len(fs))
	for i, f := range fs {
		w, ok := parseHex64(f.s)
		if !ok {
			return nil, fmt.Sprintf("word %d, %s, is not a 64-bit hexadecimal number like 0x1f", i+1, quote(f.s))
		}
		in[i] = w
	}
	return in, ""
}

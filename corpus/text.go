package corpus

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The lexical rules shared by Parse and Marshal. Whitespace is ASCII space
// and tab only, so that what Parse trims and splits is exactly what Marshal
// avoids writing.

func isSpace(b byte) bool { return b == ' ' || b == '\t' }

// trimSpace removes leading and trailing spaces and tabs.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// A field is a run of non-whitespace characters of a line, with its
// position, so that text spanning several fields can be cut out verbatim.
type field struct {
	s          string
	start, end int
}

// fields splits line around runs of spaces and tabs.
func fields(line string) []field {
	var out []field
	for i := 0; i < len(line); {
		if isSpace(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		out = append(out, field{line[i:j], i, j})
		i = j
	}
	return out
}

// isControl reports whether r may not appear in a line: control characters
// other than tab, C1 controls included.
func isControl(r rune) bool {
	return r < 0x20 && r != '\t' || r == 0x7f || 0x80 <= r && r < 0xa0
}

// checkLine returns the problem with the characters of a line, if any.
func checkLine(line string) string {
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == 0:
			return "NUL byte: not a text file"
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("invalid UTF-8 (byte %#02x): not a text file", line[i])
		case r == '\r':
			return "carriage return inside a line"
		case isControl(r):
			return fmt.Sprintf("control character %U", r)
		}
		i += size
	}
	return ""
}

// cleanText makes s writable as a value on one line: invalid UTF-8 and
// control characters (line breaks included) become U+FFFD and spaces, and
// surrounding whitespace goes.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
	return trimSpace(s)
}

// cleanToken makes s writable as one field: cleanText, with inner runs of
// whitespace replaced by '_'.
func cleanToken(s string) string {
	fs := fields(cleanText(s))
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.s
	}
	return strings.Join(parts, "_")
}

// isDecimal reports whether s is a non-empty string of ASCII digits.
func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// quote quotes s for an error message, shortening it if it is long.
func quote(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Package text formats the small pieces of weft's messages for people, the
// same way in every package that prints them: a dash for a field that is
// not known, a count with its noun.
package text

import "strconv"

// OrDash returns s, or "-" if s is empty: an unknown site or operation in
// a message or a table.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Count returns n and the noun, in the plural unless n is 1: "1 test",
// "3 tests". The plural is the noun with an s.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

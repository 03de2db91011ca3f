// Package maprangeold is a module of Go 1.21: its range loops over maps
// keep one variable for the whole loop.
package maprangeold

// Captured returns what closures made in the loop see of its variables:
// before Go 1.22, the loop's one pair.
func Captured(m map[string]int) []string {
	var fs []func() string
	for k, v := range m {
		fs = append(fs, func() string { return k + string(rune('0'+v)) })
	}
	for _, v := range m {
		fs = append(fs, func() string { return string(rune('0' + v)) })
	}
	for k := range m {
		k := k
		fs = append(fs, func() string { return k })
	}
	var out []string
	for _, f := range fs {
		out = append(out, f())
	}
	return out
}

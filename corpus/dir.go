package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// Dir returns the corpus directory of a test, relative to its package:
// testdata/weft/<name>. The '/' in the names of subtests separate nested
// directories. Each part of the name is made safe as a file name on any
// system: characters other than ASCII letters, digits and _.=+- become '_',
// as do leading and trailing dots (so no part is "." or ".."), names Windows
// reserves for devices (CON, NUL, COM1, ...) get a '_' appended, and a part
// longer than 100 bytes is shortened and suffixed with a hash of it.
//
// Different names can share a directory ("TestX/a b" and "TestX/a_b"); an
// entry records the full name of its test in Entry.Test.
func Dir(testName string) string {
	elems := []string{"testdata", "weft"}
	for part := range strings.SplitSeq(testName, "/") {
		elems = append(elems, safeName(part))
	}
	return filepath.Join(elems...)
}

// maxName bounds the length of a directory name made by safeName, well
// below the 255 bytes most file systems allow.
const maxName = 100

// safeName makes one part of a test name safe as a directory name.
func safeName(part string) string {
	b := []byte(strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_.=+-", r) {
			return r
		}
		return '_'
	}, part))
	if len(b) == 0 {
		return "_"
	}
	// A leading dot hides a file ("." and ".." are not names at all);
	// Windows drops trailing dots.
	for i := 0; i < len(b) && b[i] == '.'; i++ {
		b[i] = '_'
	}
	for i := len(b) - 1; i >= 0 && b[i] == '.'; i-- {
		b[i] = '_'
	}
	name := string(b)
	if stem, ext, _ := strings.Cut(name, "."); isWindowsDevice(stem) {
		name = stem + "_"
		if ext != "" {
			name += "." + ext
		}
	}
	if len(name) > maxName {
		sum := sha256.Sum256([]byte(part))
		name = name[:maxName-9] + "-" + hex.EncodeToString(sum[:4])
	}
	return name
}

// isWindowsDevice reports whether name is reserved on Windows, with any
// extension.
func isWindowsDevice(name string) bool {
	switch strings.ToUpper(name) {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(name) == 4 {
		prefix := strings.ToUpper(name[:3])
		return (prefix == "COM" || prefix == "LPT") && '0' <= name[3] && name[3] <= '9'
	}
	return false
}

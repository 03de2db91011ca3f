package weft_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// lineIn returns the line number of the line of file holding marker in a
// comment or string.
func lineIn(t *testing.T, file, marker string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, marker) && !strings.Contains(line, "lineOf(") && !strings.Contains(line, "lineIn(") {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("marker %q not found in %s", marker, file)
	return ""
}

func itoa(i int) string { return strconv.Itoa(i) }

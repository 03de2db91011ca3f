package bad

import "testing"

// TestBad names an identifier that no file declares: the package builds,
// its tests do not.
func TestBad(t *testing.T) {
	if N != undefinedName {
		t.Fatal("no")
	}
}

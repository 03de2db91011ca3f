package bad

import (
	"testing"

	"example.com/buildfail/good"
)

// TestBad names an identifier that no file declares: the package builds,
// its tests, which import a package weft rewrites, do not.
func TestBad(t *testing.T) {
	var c good.Counter
	c.Add()
	if c.N() != undefinedName {
		t.Fatal("no")
	}
}

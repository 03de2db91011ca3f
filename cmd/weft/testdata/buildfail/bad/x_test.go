package bad_test

import (
	"context"
	"testing"

	"example.com/buildfail/bad"
)

// TestX, an external test, imports package bad's tests, which do not
// build: go test reports one build failure for both. Its context is
// weft's, and package bad's tests, not rewritten, take Go's.
func TestX(t *testing.T) {
	if err := bad.Err(context.Background()); err != nil {
		t.Fatal(err)
	}
}

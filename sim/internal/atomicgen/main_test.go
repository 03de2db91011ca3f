package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedFileIsUpToDate fails when sim/atomic_gen.go is not what the
// generator writes now: the template or the type list changed and go
// generate was not run, or the file was edited by hand.
func TestGeneratedFileIsUpToDate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "atomic_gen.go")
	if err := run([]string{"-o", out}); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../atomic_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("sim/atomic_gen.go is stale: run go generate ./sim")
	}
}

package weft

import (
	"os"
	"testing"
)

// TestRestoreGoEnv checks that the test's process gets back the GOWORK and
// GOFLAGS weft test was run with, in place of its workspace's.
func TestRestoreGoEnv(t *testing.T) {
	t.Setenv("GOWORK", "/cache/weft/work/run.work")
	t.Setenv("GOFLAGS", "-buildvcs=false")
	t.Setenv("WEFT_USER_GOWORK", "")
	t.Setenv("WEFT_USER_GOFLAGS", "-tags=a")
	restoreGoEnv()
	if v, ok := os.LookupEnv("GOWORK"); ok {
		t.Errorf("GOWORK=%q, want it unset as weft test's environment had it", v)
	}
	if v := os.Getenv("GOFLAGS"); v != "-tags=a" {
		t.Errorf("GOFLAGS=%q, want -tags=a", v)
	}
	if _, ok := os.LookupEnv("WEFT_USER_GOFLAGS"); ok {
		t.Error("WEFT_USER_GOFLAGS left in the environment")
	}
}

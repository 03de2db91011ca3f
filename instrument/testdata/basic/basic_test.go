package basic

import "testing"

func TestRun(t *testing.T) {
	t.Parallel()
	if got := Run(3); got != 3 {
		t.Errorf("Run(3) = %d", got)
	}
	check(t, 1)
}

func check(t *testing.T, n int) {
	t.Helper()
	if n < 0 {
		t.Fatal("negative")
	}
}

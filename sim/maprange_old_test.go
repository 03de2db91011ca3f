//go:build go1.21

// This file's language version is Go 1.21 (its build constraint says so):
// a loop's variables are the loop's, not each iteration's.

package sim_test

import (
	"fmt"
	"testing"

	"github.com/weftdev/weft/sim"
)

// The variables of a loop of a Go version before 1.22 are the loop's,
// zero at the start.
func TestMapRangeVars(t *testing.T) {
	var fs []func() string
	for it, k, v := sim.MapRangeVars(map[string]int{"a": 1, "b": 2}); it.Next(); {
		k, v = it.Entry()
		fs = append(fs, func() string { return fmt.Sprint(k, v) })
	}
	if len(fs) != 2 || fs[0]() != fs[1]() {
		t.Errorf("the closures saw different variables")
	}
}

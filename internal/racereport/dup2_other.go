//go:build !unix || solaris

package racereport

import (
	"errors"
	"os"
)

// Without dup2, standard error cannot be redirected, and reports cannot be
// read back: weft names the racing goroutine without the report's stacks.
func dup2(f *os.File, fd int) error { return errors.ErrUnsupported }

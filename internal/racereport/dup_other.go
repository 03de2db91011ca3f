//go:build !unix

package racereport

import (
	"errors"
	"os"
)

func duplicate(f *os.File) (*os.File, error) { return nil, errors.ErrUnsupported }

//go:build unix

package racereport

import (
	"os"
	"syscall"
)

// duplicate returns a new file for f's descriptor.
func duplicate(f *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

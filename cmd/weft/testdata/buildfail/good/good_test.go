// Package good's test builds and passes, beside a package whose tests do
// not build.
package good

import (
	"sync"
	"testing"
)

func TestGood(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { wg.Done() }()
	wg.Wait()
}

package tune

import (
	"sync"
	"testing"
)

func scaleUp(p *Pool) {
	defer p.Close()
	p.Acquire()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.Acquire() }()
	p.Tune(2)
	wg.Wait()
}

func TestBug(t *testing.T)   { scaleUp(New(1, false)) }
func TestFixed(t *testing.T) { scaleUp(New(1, true)) }

package wakeup

import (
	"sync"
	"testing"
)

func twoWaiters(g *Gate) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); g.Wait() }()
	go func() { defer wg.Done(); g.Wait() }()
	go g.Open()
	wg.Wait()
}

func TestBug(t *testing.T)   { twoWaiters(New(false)) }
func TestFixed(t *testing.T) { twoWaiters(New(true)) }

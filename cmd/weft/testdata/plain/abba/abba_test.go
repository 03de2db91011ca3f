package abba

import (
	"sync"
	"testing"
)

func opposite(t *testing.T, transfer func(from, to *Account, n int)) {
	a, b := &Account{ID: 1, Balance: 10}, &Account{ID: 2, Balance: 10}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); transfer(a, b, 1) }()
	go func() { defer wg.Done(); transfer(b, a, 2) }()
	wg.Wait()
	if a.Balance+b.Balance != 20 {
		t.Errorf("money lost")
	}
}

func TestBug(t *testing.T)   { opposite(t, Transfer) }
func TestFixed(t *testing.T) { opposite(t, OrderedTransfer) }

// Package abba is the AB-BA deadlock: a transfer locks the source account,
// then the destination; two opposite transfers can each hold one lock and
// wait forever for the other.
package abba

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// Account is a bank account.
type Account struct {
	ID      int
	mu      sim.Mutex
	balance int
}

// Transfer moves amount from one account to another, locking the source
// first: the bug.
func Transfer(from, to *Account, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

// OrderedTransfer locks the two accounts in the order of their IDs: the fix.
func OrderedTransfer(from, to *Account, amount int) {
	first, second := from, to
	if second.ID < first.ID {
		first, second = second, first
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { opposite(t, Transfer) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { opposite(t, OrderedTransfer) }

func opposite(t *weft.T, transfer func(from, to *Account, amount int)) {
	a, b := &Account{ID: 1, balance: 100}, &Account{ID: 2, balance: 100}
	var wg sim.WaitGroup
	wg.Go(func() { transfer(a, b, 10) })
	wg.Go(func() { transfer(b, a, 20) })
	wg.Wait()
	if a.balance+b.balance != 200 {
		t.Errorf("money was created or lost: %d + %d", a.balance, b.balance)
	}
}

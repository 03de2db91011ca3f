// Package abba is the AB-BA deadlock with sync.Mutex.
package abba

import "sync"

// Account is a bank account.
type Account struct {
	ID      int
	mu      sync.Mutex
	Balance int
}

// Transfer locks the source, then the destination.
func Transfer(from, to *Account, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.Balance -= amount
	to.Balance += amount
}

// OrderedTransfer locks by ID.
func OrderedTransfer(from, to *Account, amount int) {
	a, b := from, to
	if b.ID < a.ID {
		a, b = b, a
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	from.Balance -= amount
	to.Balance += amount
}

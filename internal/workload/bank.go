package workload

import (
	"fmt"

	"github.com/weftdev/weft/sim"
)

// BankParams configure the bank workload (Bank): lock-heavy transfers
// between accounts.
type BankParams struct {
	// Accounts is the number of accounts (default 16).
	Accounts int
	// Workers is the number of goroutines making transfers (default 4).
	Workers int
	// Size is the number of transfers each worker makes (default 1000),
	// the knob of the workload's length: a transfer is about 8 operations.
	Size int
	// Initial is each account's opening balance (default 100).
	Initial int
	// Buggy makes the transfer lose updates: it reads the source's balance
	// under its lock, releases the lock, and locks it again to write the
	// new balance, so that a concurrent transfer's update can be
	// overwritten and the total is not conserved.
	Buggy bool
}

// BuggyBankParams are the tuned parameters of the buggy bank.
var BuggyBankParams = BankParams{Accounts: 2, Workers: 2, Size: 200, Buggy: true}

const bankEventsPerOp = 8

func (p BankParams) withDefaults() BankParams {
	if p.Accounts < 2 {
		p.Accounts = 16
	}
	if p.Workers <= 0 {
		p.Workers = 4
	}
	if p.Size <= 0 {
		p.Size = 1000
	}
	if p.Initial <= 0 {
		p.Initial = 100
	}
	return p
}

// Events estimates the operations of one run.
func (p BankParams) Events() int {
	p = p.withDefaults()
	per := bankEventsPerOp
	if p.Buggy {
		per += 2 // a second lock and unlock of the source
	}
	return p.Workers*p.Size*per + 2*p.Accounts + 2*p.Workers
}

type account struct {
	mu      sim.Mutex
	balance sim.Var[int]
}

// Bank returns the body of the bank workload: p.Workers goroutines (sim.Go
// through a sim.WaitGroup) each make p.Size transfers of a random amount
// between two random accounts, chosen by the worker's own deterministic
// generator. A transfer locks both accounts' sim.Mutex in index order (so
// transfers cannot deadlock), and moves the amount if the source can pay.
// At the end the body checks that the total is conserved, and panics with
// "bank: total X, want Y" if not.
func Bank(p BankParams) func() {
	p = p.withDefaults()
	return func() {
		accts := make([]account, p.Accounts)
		for i := range accts {
			accts[i].balance.Store(p.Initial)
		}
		g := newGate(p.Workers)
		var wg sim.WaitGroup
		for w := range p.Workers {
			wg.Go(func() {
				g.wait()
				r := rng(1, uint64(w))
				for range p.Size {
					from := r.IntN(len(accts))
					to := r.IntN(len(accts) - 1)
					if to >= from {
						to++
					}
					amount := 1 + r.IntN(p.Initial/4+1)
					if p.Buggy {
						transferBuggy(&accts[from], &accts[to], amount)
					} else {
						transfer(accts, from, to, amount)
					}
				}
			})
		}
		wg.Wait()
		total := 0
		for i := range accts {
			total += accts[i].balance.Load()
		}
		if want := p.Accounts * p.Initial; total != want {
			panic(fmt.Sprintf("bank: total %d, want %d", total, want))
		}
	}
}

func transfer(accts []account, from, to, amount int) {
	lo, hi := &accts[min(from, to)], &accts[max(from, to)]
	lo.mu.Lock()
	hi.mu.Lock()
	src, dst := &accts[from].balance, &accts[to].balance
	if b := src.Load(); b >= amount {
		src.Store(b - amount)
		dst.Store(dst.Load() + amount)
	}
	hi.mu.Unlock()
	lo.mu.Unlock()
}

// transferBuggy checks the balance in one critical section and debits it
// in another: the debit overwrites whatever happened in between.
func transferBuggy(from, to *account, amount int) {
	from.mu.Lock()
	b := from.balance.Load()
	from.mu.Unlock()
	if b < amount {
		return
	}
	from.mu.Lock()
	from.balance.Store(b - amount)
	from.mu.Unlock()
	to.mu.Lock()
	to.balance.Store(to.balance.Load() + amount)
	to.mu.Unlock()
}

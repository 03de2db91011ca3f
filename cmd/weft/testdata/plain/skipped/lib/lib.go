// Package lib runs functions on goroutines of its own, started with plain
// go statements, as etcd raft's rafttest runs its nodes. weft test leaves
// it as it is here (-instrument.skip), as its safety net leaves a package
// it cannot rewrite: its go statements stay Go's.
package lib

// Go runs f on a goroutine of its own.
func Go(f func()) { go f() }

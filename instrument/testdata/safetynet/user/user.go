// Package user is not instrumented: it must build against instrapi as
// rewritten, so the channel it takes from there stays a Go channel.
package user

import "example.com/safetynet/instrapi"

// Next receives from instrapi's channel.
func Next() int { return <-instrapi.Events() }

// Package bad builds, but its tests do not.
package bad

import "context"

// N is a number.
var N = 1

// Err returns ctx's error: weft rewrites its context to its own.
func Err(ctx context.Context) error { return ctx.Err() }

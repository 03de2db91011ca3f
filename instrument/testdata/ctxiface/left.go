package ctxiface

import "context"

// left is in a file that TestLeaveFileContext leaves as it is: its context
// is then the standard library's, and Log's call converts its own.
func left(ctx context.Context) error { return ctx.Err() }

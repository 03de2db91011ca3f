// Package instriface declares instrr's unnamed struct types again, as
// protobuf's protoiface does (Methods, SizeInput): the same types.
package instriface

import "example.com/aliases/instrr"

// Methods is instrr's methods.
type Methods = struct {
	Size func(SizeInput) int
}

// SizeInput is instrr's sizeInput.
type SizeInput = struct {
	Message instrr.Message
}

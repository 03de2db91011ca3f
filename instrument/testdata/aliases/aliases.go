// Package aliases uses instrimpl's State as an instrr.Message, as
// protobuf's descriptorpb does: it checks only if instrr's and
// instriface's aliases are one type, in every check of the rewrite.
package aliases

import (
	"example.com/aliases/instrimpl"
	"example.com/aliases/instrr"
)

// Size returns the size of a new message.
func Size() int {
	var m instrr.Message = new(instrimpl.State)
	var r instrr.Registry
	r.Add()
	return m.Methods().Size(struct{ Message instrr.Message }{m})
}

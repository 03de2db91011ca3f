// Package instrimpl implements instrr.Message through instriface's names,
// as protobuf's internal/impl does.
package instrimpl

import (
	"sync"

	"example.com/aliases/instriface"
)

// State is a message.
type State struct {
	once    sync.Once
	methods instriface.Methods
}

// Methods returns the message's methods, made once.
func (s *State) Methods() *instriface.Methods {
	s.once.Do(func() {
		s.methods.Size = func(instriface.SizeInput) int { return 1 }
	})
	return &s.methods
}

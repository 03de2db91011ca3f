package safetynet

import (
	"testing"
	"testing/synctest"

	"example.com/safetynet/instrapi"
	"example.com/safetynet/user"
)

func TestDrain(t *testing.T) {
	if got := Count(); got != 2 {
		t.Errorf("Count = %d", got)
	}
}

func TestUser(t *testing.T) {
	if user.Next() != 1 || instrapi.Local() != 2 {
		t.Error("Next or Local")
	}
}

// The function synctest.Test runs must keep its *testing.T.
func TestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t.Log("in a bubble")
	})
}

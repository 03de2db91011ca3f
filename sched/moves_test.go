package sched

import "testing"

// TestLooksSeeMoves checks the protocol by which observers learn that an
// execution moves (moves and look): every observer's next look sees an
// event after its last, however many observers look, and a look with no
// event since the last sees none.
func TestLooksSeeMoves(t *testing.T) {
	var c Controller
	a, b := c.look(), c.look()
	c.moves()
	c.moves() // the flag is set: not published again
	if c.progress.Load() != 1 {
		t.Fatalf("two moves without a look in between published %d times, want once", c.progress.Load())
	}
	if a2 := c.look(); a2 == a {
		t.Error("the first observer's next look missed the moves")
	}
	if b2 := c.look(); b2 == b {
		t.Error("the second observer's next look missed the moves")
	}
	x := c.look()
	if y := c.look(); y != x {
		t.Error("a look with no event since the last saw a move")
	}
	// An event between an observer's looks, another observer's look in
	// between.
	x = c.look()
	c.moves()
	c.look()
	if y := c.look(); y == x {
		t.Error("a look missed a move made before another observer's look")
	}
}

// TestLooksSeeMovesOfAnotherGoroutine checks the protocol across
// goroutines: a move made after a look, and before the next look (as a
// channel orders them), is seen by that look.
func TestLooksSeeMovesOfAnotherGoroutine(t *testing.T) {
	var c Controller
	move, moved := make(chan bool), make(chan struct{})
	go func() {
		for m := range move {
			if m {
				c.moves()
			}
			moved <- struct{}{}
		}
	}()
	defer close(move)
	for i := range 1000 {
		before := c.look()
		m := i%3 != 0
		move <- m
		<-moved
		if after := c.look(); (after != before) != m {
			t.Fatalf("round %d: moved %v, but the look saw %d then %d", i, m, before, after)
		}
	}
}

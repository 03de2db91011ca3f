package methodexpr

import "testing"

func TestPutAll(t *testing.T) {
	q := NewQueue(2)
	go PutAll(q, 1, 2)
	take := Taker()
	if a, b := take(q), take(q); a != 1 || b != 2 {
		t.Fatalf("took %d, %d", a, b)
	}
}

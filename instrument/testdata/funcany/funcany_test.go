package funcany

import "testing"

func TestChanArgument(t *testing.T) {
	ch := make(chan int, 1)
	if err := Call(func(c chan int) { c <- 1 }, ch); err != nil {
		t.Fatal(err)
	}
	if v := <-ch; v != 1 {
		t.Fatalf("received %d", v)
	}
}

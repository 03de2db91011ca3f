package maporder

import "testing"

func TestBug(t *testing.T) {
	c := NewCluster()
	c.Shutdown(false)
	if b := c.Broken(); len(b) != 0 {
		t.Errorf("broken streams: %v", b)
	}
}

func TestFixed(t *testing.T) {
	c := NewCluster()
	c.Shutdown(true)
	if b := c.Broken(); len(b) != 0 {
		t.Errorf("broken streams: %v", b)
	}
}

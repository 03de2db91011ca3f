package order

import "testing"

func TestBug(t *testing.T) {
	s := Start(false)
	if s.DB() != "main" {
		t.Error("wrong database")
	}
}

func TestFixed(t *testing.T) {
	s := Start(true)
	if s.DB() != "main" {
		t.Error("wrong database")
	}
}

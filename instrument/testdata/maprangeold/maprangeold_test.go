package maprangeold

import "testing"

func TestCaptured(t *testing.T) {
	got := Captured(map[string]int{"a": 1, "b": 2})
	if len(got) != 6 || got[0] != got[1] || got[2] != got[3] || got[4] == got[5] {
		t.Errorf("Captured = %q: want the loop's variables shared, but the one declared again", got)
	}
}

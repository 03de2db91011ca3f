package vetpos

import "testing"

func TestShow(t *testing.T) { Show() }

package logf

import (
	"sync"
	"testing"
)

// A goroutine logs after the test function returned, while a Cleanup
// waits for it: the test has not completed, in any schedule.
func TestLogBeforeCleanup(t *testing.T) {
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	release := make(chan bool)
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-release
		t.Logf("before the cleanup ends")
	}()
	close(release)
}

// A subtest's goroutine logs after the subtest completed, while its parent
// waits for it: the line goes to the parent, as under go test.
func TestLogToParent(t *testing.T) {
	var wg sync.WaitGroup
	defer wg.Wait()
	release := make(chan bool)
	t.Run("sub", func(t *testing.T) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-release
			t.Logf("after the subtest")
		}()
	})
	close(release)
}

// A goroutine waits for the test's context, which go test cancels just
// before the Cleanup functions run, while a Cleanup waits for it.
func TestContextBeforeCleanup(t *testing.T) {
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-t.Context().Done()
		t.Logf("canceled before the cleanup")
	}()
}

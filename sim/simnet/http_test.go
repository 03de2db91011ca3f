package simnet_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	"github.com/weftdev/weft/sim/simnet"
)

// TestHTTPServer: net/http's server on an in-memory listener, which its
// client, code weft does not rewrite, dials through the real listener
// beside it; then the server's Close, which closes the listener under
// its own lock (Go's) and waits for Serve to return. The listener's state
// was guarded by weft's mutex: a scheduling point under http's lock, and
// the execution failed as blocked in Close.
func TestHTTPServer(t *testing.T) {
	for seed := range uint64(10) {
		r := sched.Run(func() {
			l, _ := simnet.Listen("tcp", "127.0.0.1:0")
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })}
			done := sim.NewChan[struct{}](0)
			sim.Go(func() {
				defer done.Close()
				srv.Serve(l)
			})
			resp, err := http.Get("http://" + l.Addr().String() + "/")
			if err == nil {
				resp.Body.Close()
			}
			srv.Close()
			done.Recv()
		}, explore.RandomWalk(seed), sched.Options{BlockTimeout: 2 * time.Second})
		if r.Failure != nil {
			t.Fatalf("seed %d: %s\n%s", seed, r.Failure.Summary(), r.Failure.Stack)
		}
	}
}

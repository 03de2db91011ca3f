package simnet_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"testing"
	"time"

	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sim"
	"github.com/weftdev/weft/sim/simnet"
)

// certificate returns a self-signed certificate for the tests.
func certificate(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Unix(0, 0), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestTLS: crypto/tls over an in-memory connection, as hashicorp/yamux's
// tests run their sessions. The server's Read and Write run at once: the
// first to start the handshake holds tls's mutex, Go's, while it waits for
// the client's bytes under control; the other one, blocked in that mutex,
// goes away (as in the network) so that the client runs. It held the
// execution's turn, and weft reported it blocked.
func TestTLS(t *testing.T) {
	cert := certificate(t)
	simtest.ExploreAll(t, 4, func(c *checker) {
		l, _ := simnet.Listen("tcp", "127.0.0.1:0")
		defer l.Close()
		sim.Go(func() {
			conn, err := simnet.Dial("tcp", l.Addr().String())
			if err != nil {
				c.Errorf("dial: %v", err)
				return
			}
			cl := tls.Client(conn, &tls.Config{InsecureSkipVerify: true})
			defer cl.Close()
			cl.Write([]byte("ping"))
			got := make([]byte, 4)
			_, err = io.ReadFull(cl, got)
			c.Equal("client read", string(got), "pong")
			c.Equal("client error", err, error(nil))
		})
		conn, err := l.Accept()
		if err != nil {
			c.Errorf("accept: %v", err)
			return
		}
		srv := tls.Server(conn, &tls.Config{Certificates: []tls.Certificate{cert}})
		defer srv.Close()
		read := sim.NewChan[string](1)
		sim.Go(func() {
			got := make([]byte, 4)
			io.ReadFull(srv, got)
			read.Send(string(got))
		})
		srv.Write([]byte("pong"))
		c.Equal("server read", read.Recv(), "ping")
	})
}

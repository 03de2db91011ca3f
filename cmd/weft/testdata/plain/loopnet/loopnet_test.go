package loopnet

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"net"
	"testing"
	"time"
)

// ping writes two messages from a goroutine of its own, and reads their
// echoes: the client's connection is read and written at once, as
// yamux's sessions use theirs.
func ping(t *testing.T, fixed bool, config *tls.Config) {
	s, err := Listen(fixed, config)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if config != nil {
		c = tls.Client(c, &tls.Config{InsecureSkipVerify: true})
	}
	defer c.Close()
	msgs := []string{"ping", "pong"}
	go func() {
		for _, msg := range msgs {
			if _, err := c.Write([]byte(msg)); err != nil {
				t.Error(err)
			}
		}
	}()
	for i, msg := range msgs {
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != msg {
			t.Fatalf("read %q, %v", got, err)
		}
		if n := s.Served(); n < int64(i+1) {
			t.Errorf("served %d after reply %d", n, i+1)
		}
	}
}

// certificate returns a self-signed certificate.
func certificate(t *testing.T) *tls.Config {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

func TestBug(t *testing.T)      { ping(t, false, nil) }
func TestFixed(t *testing.T)    { ping(t, true, nil) }
func TestFixedTLS(t *testing.T) { ping(t, true, certificate(t)) }

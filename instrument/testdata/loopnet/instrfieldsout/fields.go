// Package instrfieldsout keeps a listener it asserts *net.TCPListener in
// a field it hands on as one: its net.Listen stays net's.
package instrfieldsout

import "net"

// A Layer accepts connections.
type Layer struct {
	listener *net.TCPListener
}

// New listens on addr.
func New(addr string) (*Layer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Layer{listener: l.(*net.TCPListener)}, nil
}

// Listener is the layer's listener.
func (l *Layer) Listener() *net.TCPListener { return l.listener }

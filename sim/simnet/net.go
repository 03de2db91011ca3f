// Package simnet is the loopback network under weft's control: net.Listen,
// net.Dial and their kin for code weft test rewrites.
//
// Real sockets between goroutines of one controlled execution are outside
// weft's control: a goroutine that reads a connection blocks in the
// network while the goroutine that would write the bytes, controlled,
// waits for its turn (hashicorp/yamux's tests join two sessions by TCP
// over 127.0.0.1). Under control, a tcp listener on a loopback address
// (or on all interfaces: an empty host, "0.0.0.0", "::") is also a
// listener of the execution's in-memory network, on the real listener's
// port, and a dial of that port connects to it in memory: accepts, reads,
// writes, closes and deadline waits are weft events, deadlines run on the
// virtual clock, and a write waits only when a megabyte the peer has not
// read is buffered, as a socket's buffers fill. Errors are net's: a
// *net.OpError wrapping net.ErrClosed, os.ErrDeadlineExceeded (a
// timeout), syscall.EPIPE (a write after the peer's close), io.EOF to the
// reader after the peer's close. The client's end of an in-memory
// connection gets a port of its execution, from 61000 up (above Linux's
// ephemeral range), the same in every replay; a listener's port is the
// kernel's.
//
// A unix socket's listener (net.Listen("unix", path)) is one of the
// execution's network too, on the real listener's path (keyed by the path
// as spelled), and a dial of that path connects in memory, a *UnixConn
// whose client's end is unnamed; its close removes the socket's file, as
// net's does. unixgram, unixpacket and udp are net's own.
//
// Code weft does not rewrite (net/http's client, the standard library's
// servers) dials the real listener: its connections are accepted beside
// the in-memory ones, by a goroutine the listener starts at its first
// Accept and ends at its close, and are net's own, outside weft's
// control. Outside an execution (plain mode, or a recorded run), for
// other networks than tcp, tcp4, tcp6 and unix, for other hosts, and for
// a dial of a port (or path) that no in-memory listener of the execution
// holds, these functions are net's own.
//
// The in-memory connections are *TCPConn, not *net.TCPConn: a type
// assertion to *net.TCPConn fails on them. weft test rewrites such an
// assertion whose result is used by its methods alone to AssertTCPConn
// (or MustTCPConn, AssertTCPListener, MustTCPListener), which they pass,
// and leaves the real network to a package that asserts *net.TCPConn or
// *net.TCPListener otherwise, switches on them, or asserts or switches
// on *net.UnixConn or *net.UnixListener, and to a call of net.ListenTCP
// or net.DialTCP whose result is used other than by its methods.
package simnet

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/weftdev/weft/sched"
)

// firstPort is the first port an execution's network allocates to the
// client's end of an in-memory connection: above Linux's ephemeral range
// (32768-60999), where real connections seldom are.
const firstPort = 61000

// network is the in-memory network of one execution.
type network struct {
	exec      uint64
	next      int                     // the next port to try
	listeners map[string]*memListener // by port, or by "unix:" and path
}

// nets holds each controller's network, for its current execution. Its
// lock is Go's: held briefly, never across an event.
var nets struct {
	mu sync.Mutex
	m  map[*sched.Controller]*network
}

// networkOf returns the network of g's execution, made afresh for each
// execution of the controller.
func networkOf(g *sched.G) *network {
	c := g.Controller()
	nets.mu.Lock()
	defer nets.mu.Unlock()
	if nets.m == nil {
		nets.m = map[*sched.Controller]*network{}
	}
	n := nets.m[c]
	if n == nil || n.exec != c.Execution() {
		n = &network{exec: c.Execution(), next: firstPort, listeners: map[string]*memListener{}}
		nets.m[c] = n
	}
	return n
}

// port allocates a port for a client's end of a connection in memory.
func (n *network) port() int {
	p := n.next
	n.next++
	if n.next > 65535 {
		n.next = firstPort
	}
	return p
}

// bind registers l at key: a tcp port, or a unix socket's unixKey.
func (n *network) bind(l *memListener, key string) {
	nets.mu.Lock()
	defer nets.mu.Unlock()
	n.listeners[key] = l
}

// lookup returns the listener at key, if any.
func (n *network) lookup(key string) *memListener {
	nets.mu.Lock()
	defer nets.mu.Unlock()
	return n.listeners[key]
}

// unbind frees l's key.
func (n *network) unbind(l *memListener, key string) {
	nets.mu.Lock()
	defer nets.mu.Unlock()
	if n.listeners[key] == l {
		delete(n.listeners, key)
	}
}

// ephemeral allocates a client's port.
func (n *network) ephemeral() int {
	nets.mu.Lock()
	defer nets.mu.Unlock()
	return n.port()
}

// controlled returns the controlled goroutine the caller runs on, if the
// network is one of weft's: tcp, tcp4, tcp6 or unix.
func controlled(network string) *sched.G {
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
		return sched.Current()
	}
	return nil
}

// localIP returns the IP of host if it is a loopback or unspecified
// address, or localhost; ok is false for any other host.
func localIP(host string) (ip net.IP, ok bool) {
	switch host {
	case "":
		return nil, true
	case "localhost":
		return net.IPv4(127, 0, 0, 1), true
	}
	ip = net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() && !ip.IsUnspecified() {
		return nil, false
	}
	return ip, true
}

// splitLocal splits a loopback address into its IP and port; ok is false
// for any other address.
func splitLocal(address string) (ip net.IP, port int, ok bool) {
	host, ps, err := net.SplitHostPort(address)
	if err != nil {
		return nil, 0, false
	}
	ip, ok = localIP(host)
	if !ok {
		return nil, 0, false
	}
	port, err = strconv.Atoi(ps)
	if err != nil || port < 0 || port > 65535 {
		return nil, 0, false
	}
	return ip, port, true
}

// Listen is net.Listen: under control, on a loopback address (or all
// interfaces) and a tcp network, a listener of the execution's in-memory
// network (a *TCPListener) on the real listener's port.
func Listen(network, address string) (net.Listener, error) {
	g := controlled(network)
	if g == nil || !local(network, address) {
		return net.Listen(network, address)
	}
	l, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	switch real := l.(type) {
	case *net.TCPListener:
		return &TCPListener{tcp: real, mem: listen(g, network, real, strconv.Itoa(real.Addr().(*net.TCPAddr).Port))}, nil
	case *net.UnixListener:
		return &UnixListener{mem: listen(g, network, real, unixKey(real.Addr().String()))}, nil
	}
	return l, nil
}

// local reports whether address is one of the execution's network: a
// loopback address (or all interfaces) for tcp, a path for unix.
func local(network, address string) bool {
	if network == "unix" {
		return address != ""
	}
	_, _, ok := splitLocal(address)
	return ok
}

// ListenTCP is net.ListenTCP: under control, on a loopback address (or
// all interfaces, a nil laddr included), a listener of the execution's
// in-memory network on the real listener's port; else net's, wrapped.
func ListenTCP(network string, laddr *net.TCPAddr) (*TCPListener, error) {
	l, err := net.ListenTCP(network, laddr)
	if err != nil {
		return nil, err
	}
	g := controlled(network)
	if g != nil && (laddr == nil || laddr.IP == nil || laddr.IP.IsLoopback() || laddr.IP.IsUnspecified()) {
		return &TCPListener{tcp: l, mem: listen(g, network, l, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))}, nil
	}
	return &TCPListener{tcp: l}, nil
}

// Dial is net.Dial: under control, a dial of a loopback address whose
// port an in-memory listener of the execution holds connects to it, a
// *TCPConn.
func Dial(network, address string) (net.Conn, error) {
	if c, ok, err := dialMem(network, address); ok {
		return c, err
	}
	return net.Dial(network, address)
}

// DialTimeout is net.DialTimeout, as Dial: an in-memory connection is
// made at once, the timeout unused.
func DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	if c, ok, err := dialMem(network, address); ok {
		return c, err
	}
	return net.DialTimeout(network, address, timeout)
}

// DialTCP is net.DialTCP, as Dial (laddr is not used in memory).
func DialTCP(network string, laddr, raddr *net.TCPAddr) (*TCPConn, error) {
	if raddr != nil {
		if c, ok, err := dialMem(network, raddr.String()); ok {
			if err != nil {
				return nil, err
			}
			return c.(*TCPConn), nil
		}
	}
	c, err := net.DialTCP(network, laddr, raddr)
	if err != nil {
		return nil, err
	}
	return &TCPConn{tcp: c}, nil
}

// dialMem connects to the in-memory listener of the execution address
// names, if there is one (ok): a *TCPConn, or a *UnixConn.
func dialMem(network, address string) (c net.Conn, ok bool, err error) {
	g := controlled(network)
	if g == nil {
		return nil, false, nil
	}
	if network == "unix" {
		return dialUnix(networkOf(g), address)
	}
	ip, port, local := splitLocal(address)
	if !local || port == 0 {
		return nil, false, nil
	}
	n := networkOf(g)
	l := n.lookup(strconv.Itoa(port))
	if l == nil {
		return nil, false, nil
	}
	if ip == nil || ip.IsUnspecified() {
		ip = l.addr.(*net.TCPAddr).IP
	}
	client := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: n.ephemeral()}
	server := &net.TCPAddr{IP: ip, Port: port}
	if ip == nil || ip.To4() == nil {
		client.IP, server.IP = net.IPv6loopback, net.IPv6loopback
	} else if ip.IsUnspecified() {
		server.IP = client.IP
	}
	m, err := l.connect(network, client, server)
	if err != nil {
		return nil, true, err
	}
	return &TCPConn{mem: m}, true, nil
}

// DialerDial is d.Dial, as Dial: an in-memory connection is made at
// once, the dialer's settings unused.
func DialerDial(d *net.Dialer, network, address string) (net.Conn, error) {
	if c, ok, err := dialMem(network, address); ok {
		return c, err
	}
	return d.Dial(network, address)
}

// DialerDialContext is d.DialContext, as Dial: an in-memory connection is
// made at once unless ctx is done.
func DialerDialContext(d *net.Dialer, ctx context.Context, network, address string) (net.Conn, error) {
	if ctx.Err() == nil {
		if c, ok, err := dialMem(network, address); ok {
			return c, err
		}
	}
	return d.DialContext(ctx, network, address)
}

package benchgen

import (
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
)

// wire counts bytes at the connection: everything read from and written to
// the socket (h1, h2: TCP payload incl. TLS records; h3: UDP datagrams).
type wire struct {
	in, out atomic.Int64
}

// wired is a client's wire, and how it reports it (client.wire): h1, h2
// and h3 embed it.
type wired struct{ w wire }

func (c *wired) wire() (in, out int64) { return c.w.in.Load(), c.w.out.Load() }

// countConn wraps a net.Conn and adds every byte to w.
type countConn struct {
	net.Conn
	w *wire
	// noWait: reads take only what the socket holds; one that would wait
	// fails with os.ErrDeadlineExceeded instead (h1's idle check over TLS).
	noWait bool
}

func (c *countConn) Read(p []byte) (int, error) {
	if c.noWait {
		return c.readNoWait(p)
	}
	n, err := c.Conn.Read(p)
	c.w.in.Add(int64(n))
	return n, err
}

func (c *countConn) readNoWait(p []byte) (int, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return 0, os.ErrDeadlineExceeded
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := rc.Control(func(fd uintptr) { n, rerr = rawRead(fd, p) }); err != nil {
		return 0, err
	}
	switch {
	case rerr == syscall.EAGAIN:
		return 0, os.ErrDeadlineExceeded
	case rerr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Addr: c.RemoteAddr(), Err: os.NewSyscallError("read", rerr)}
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	c.w.in.Add(int64(n))
	return n, nil
}

func (c *countConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.w.out.Add(int64(n))
	return n, err
}

// countPacketConn wraps a UDP socket for QUIC.
type countPacketConn struct {
	net.PacketConn
	w *wire
}

func (c *countPacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	n, a, err := c.PacketConn.ReadFrom(p)
	c.w.in.Add(int64(n))
	return n, a, err
}

// SetReadBuffer, SetWriteBuffer and SyscallConn let quic-go size the
// socket's buffers as it does for a bare *net.UDPConn.
func (c *countPacketConn) SetReadBuffer(n int) error {
	return c.PacketConn.(*net.UDPConn).SetReadBuffer(n)
}

func (c *countPacketConn) SetWriteBuffer(n int) error {
	return c.PacketConn.(*net.UDPConn).SetWriteBuffer(n)
}

func (c *countPacketConn) SyscallConn() (syscall.RawConn, error) {
	return c.PacketConn.(*net.UDPConn).SyscallConn()
}

func (c *countPacketConn) WriteTo(p []byte, a net.Addr) (int, error) {
	n, err := c.PacketConn.WriteTo(p, a)
	c.w.out.Add(int64(n))
	return n, err
}

package benchgen

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// fdIO is a plain-TCP visitor's socket I/O, done with raw system calls on
// the non-blocking socket; the runtime's netpoller is used only to wait.
// Two things make it cheaper per request than net.Conn (measured in
// BenchmarkVersusWrkAndAB, where system calls dominate):
//
//   - The request is written inside a RawConn.Read callback, after the
//     netpoller was armed for the answer, and the callback then waits for
//     readability at once: no read after the write that can only fail with
//     EAGAIN (net.Conn's Write then Read makes one).
//   - Arming forgets a readiness the poller saw before it (RawConn.Read
//     expects its callback to try the socket first), so the callback does:
//     a read of the idle socket comes first. Without it a server's
//     unannounced close (Apache event closes keep-alive connections when its
//     workers are busy, shutting down its side and lingering) that arrived
//     between two requests was never seen: the request went out on the
//     half-closed connection and the visitor waited out its whole timeout.
//     That read finds the close before anything is sent, so the request goes
//     out on a new connection instead (the idle check's job, done always).
//   - RawSyscall does not enter the scheduler's syscall state, so the
//     runtime's monitor thread does not hand the P to another thread while a
//     loopback write runs the server's receive path inline, and stays asleep.
//     The socket is non-blocking, so no such call can block.
//
// Sending and waiting (await) read nothing, so the caller takes its read
// buffer only once the answer is there: an attempt waiting on a slow server
// holds no buffer.
type fdIO struct {
	conn    net.Conn // the TCP conn, for a request that does not fit the socket at once
	rc      syscall.RawConn
	w       *wire
	req     []byte // still to send, by await (keep mode: or by Read)
	sendErr error  // the request could not be sent
	waitErr error  // the wait for the answer failed (a deadline, a closed conn); the next Read returns it
	// keep (HTTP/2): bytes found on the idle socket are the server's frames
	// (SETTINGS, PING, GOAWAY...), not a fault: await leaves them to Read,
	// which returns them and keeps the request for the next Read that finds
	// the socket idle. buf holds what queue was given (h1 points req at its
	// prebuilt request instead).
	keep  bool
	buf   []byte
	sends int // writes begun (keep mode: whether a queued request left)
	// stale: the idle socket was readable when a request was about to go
	// out (the server closed it, or sent bytes nobody asked for); nothing
	// was sent.
	stale bool
}

// errStale is Read's error when the connection was found stale before the
// request was sent.
var errStale = errors.New("connection closed by the server before the request was sent")

func newFdIO(c *net.TCPConn, w *wire) (*fdIO, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &fdIO{conn: c, rc: rc, w: w}, nil
}

// await sends the pending request and waits until the answer (or the
// connection's end) can be read, reading none of it. What went wrong is
// kept for Read.
func (f *fdIO) await() {
	if f.req == nil {
		return
	}
	err := f.rc.Read(func(fd uintptr) bool {
		if f.req == nil {
			return true // woken: readable
		}
		if f.keep {
			// Frames (or a close) already waiting are Read's to take first.
			if rawPeek(fd) {
				return true
			}
			return f.send(fd)
		}
		// The idle socket first: EAGAIN is the healthy answer.
		var b [1]byte
		if m, e := rawRead(fd, b[:]); e != syscall.EAGAIN {
			f.w.in.Add(int64(m))
			f.req, f.stale = nil, true
			return true
		}
		return f.send(fd)
	})
	if err != nil && !f.stale && f.sendErr == nil {
		f.waitErr = err // a deadline, or the conn was closed
	}
}

// Read reads the socket (after await: the answer). In keep mode a request
// still queued (a TLS handshake's, or one await left behind frames that
// were waiting) is sent by it, once the socket is idle.
func (f *fdIO) Read(p []byte) (int, error) {
	if f.req != nil && !f.keep {
		f.await()
	}
	switch {
	case f.stale:
		return 0, errStale
	case f.sendErr != nil:
		return 0, f.sendErr
	case f.waitErr != nil:
		return 0, f.waitErr
	}
	var n int
	var rerr error
	err := f.rc.Read(func(fd uintptr) bool {
		if f.req != nil {
			// Keep mode (a TLS handshake, or frames await found): what
			// waits is read first, the request leaves once the socket is idle.
			if n, rerr = rawRead(fd, p); rerr != syscall.EAGAIN {
				return true
			}
			rerr = nil
			return f.send(fd)
		}
		n, rerr = rawRead(fd, p)
		return rerr != syscall.EAGAIN
	})
	if f.sendErr != nil {
		return 0, f.sendErr
	}
	if err != nil {
		return 0, err // a deadline, or the conn was closed
	}
	if rerr != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Addr: f.conn.RemoteAddr(), Err: os.NewSyscallError("read", rerr)}
	}
	if n == 0 {
		return 0, io.EOF
	}
	f.w.in.Add(int64(n))
	return n, nil
}

// queue adds p to what the next Read sends (keep mode).
func (f *fdIO) queue(p []byte) {
	f.buf = append(f.buf, p...)
	f.req = f.buf
}

// pending reports whether queued bytes have not been sent yet.
func (f *fdIO) pending() bool { return f.req != nil }

// send writes the pending request; it returns true (stop) only on an error.
func (f *fdIO) send(fd uintptr) bool {
	req := f.req
	f.req = nil
	f.sends++
	if f.keep {
		defer func() { f.buf = req[:0] }()
	}
	n, err := rawWrite(fd, req)
	if err == syscall.EAGAIN {
		n, err = 0, nil
	}
	if err != nil {
		f.sendErr = &net.OpError{Op: "write", Net: "tcp", Addr: f.conn.RemoteAddr(), Err: os.NewSyscallError("write", err)}
		return true
	}
	f.w.out.Add(int64(n))
	if n < len(req) {
		// The socket's buffer is full: finish through the netpoller (the
		// write lock is not the read lock we hold).
		m, err := f.conn.Write(req[n:])
		f.w.out.Add(int64(m))
		if err != nil {
			f.sendErr = err
			return true
		}
	}
	return false
}

func rawRead(fd uintptr, p []byte) (int, error) { return rawIO(syscall.SYS_READ, fd, p) }

func rawWrite(fd uintptr, p []byte) (int, error) { return rawIO(syscall.SYS_WRITE, fd, p) }

// rawIO is read(2) or write(2) (trap) of p on fd, again when a signal
// interrupts it; nothing at all for an empty p.
func rawIO(trap, fd uintptr, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}

// rawPeek reports whether the socket has bytes waiting, or was closed or
// failed (anything but EAGAIN), consuming nothing.
func rawPeek(fd uintptr) bool {
	var b [1]byte
	for {
		_, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1,
			syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		return e != syscall.EAGAIN
	}
}

// peekSocket looks at a socket without waiting and without consuming:
// closed when the peer closed or reset it, data when bytes are waiting.
func peekSocket(c *net.TCPConn) (closed, data bool) {
	rc, err := c.SyscallConn()
	if err != nil {
		return true, false
	}
	var b [1]byte
	cerr := rc.Control(func(fd uintptr) {
		n, _, e := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case e == syscall.EAGAIN:
		case e != nil:
			closed = true
		case n == 0:
			closed = true
		default:
			data = true
		}
	})
	if cerr != nil {
		return true, false
	}
	return closed, data
}

// fdConn is a net.Conn whose reads and writes go through fdIO in keep mode
// (HTTP/2 over TLS): what the TLS layer writes is queued and sent by its
// next read, after that read found the socket idle, so a request costs one
// write and no read that can only fail with EAGAIN, as for cleartext.
type fdConn struct {
	net.Conn // the TCP conn: addresses, deadlines, Close
	f        *fdIO
}

func (c *fdConn) Read(p []byte) (int, error) { return c.f.Read(p) }

func (c *fdConn) Write(p []byte) (int, error) {
	c.f.queue(p)
	return len(p), nil
}

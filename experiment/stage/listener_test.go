package stage

import (
	"context"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// The kernel's tables as /proc/net/tcp and tcp6 print them: which
// listening sockets a connection to 127.0.0.1:8080 reaches.
func TestLoopbackListeners(t *testing.T) {
	const head = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	line := func(addr, st, uid string) string {
		return "   0: " + addr + " 00000000:0000 " + st + " 00000000:00000000 00:00000000 00000000  " + uid + "        0 1234 1 0000000000000000 100 0 0 10 0\n"
	}
	for _, c := range []struct {
		name, out string
		uids      []int
		owner     int
	}{
		{"any address, root", head + line("00000000:1F90", "0A", "0") + "v6\nowner 1001\n", []int{0}, 1001},
		{"loopback, the site user", head + line("0100007F:1F90", "0A", "1001") + "v6\nowner 1001\n", []int{1001}, 1001},
		{"another address", head + line("0A0A000A:1F90", "0A", "1001") + "v6\nowner 1001\n", nil, 1001},
		{"another port", head + line("00000000:0050", "0A", "1001") + "v6\nowner 1001\n", nil, 1001},
		{"a connection, not a listener", head + line("0100007F:1F90", "01", "1001") + "v6\nowner 1001\n", nil, 1001},
		{"IPv6 any, caddy", head + "v6\n" + head + line(strings.Repeat("0", 32)+":1F90", "0A", "999") + "owner 1001\n", []int{999}, 1001},
		{"IPv6 loopback does not answer 127.0.0.1", head + "v6\n" + head + line(strings.Repeat("0", 31)+"1:1F90", "0A", "1001") + "owner 1001\n", nil, 1001},
		{"IPv4-mapped any", head + "v6\n" + head + line("0000000000000000FFFF000000000000:1F90", "0A", "1001") + "owner 1001\n", []int{1001}, 1001},
		{"IPv4-mapped another address", head + "v6\n" + head + line("0000000000000000FFFF00000A0A000A:1F90", "0A", "1001") + "owner 1001\n", nil, 1001},
		{"IPv4-mapped loopback", head + "v6\n" + head + line("0000000000000000FFFF00000100007F:1F90", "0A", "1001") + "owner\n", []int{1001}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ls, owner, err := loopbackListeners([]byte(c.out), 8080)
			if err != nil {
				t.Fatal(err)
			}
			var uids []int
			for _, l := range ls {
				uids = append(uids, l.uid)
			}
			if !slices.Equal(uids, c.uids) || owner != c.owner {
				t.Errorf("listeners %v, owner %d; want %v, %d", uids, owner, c.uids, c.owner)
			}
		})
	}
}

// On this machine's own kernel: a port root listens on is the server's
// (the same socket each time); a socket made by another user (nobody, uid
// 65534: the site user's case) on the loopback is a stranger, named with
// its uid; a port nobody listens on is not fetched from either.
func TestLoopbackServer(t *testing.T) {
	testenv.NeedRoot(t)
	ctx := context.Background()
	h := host.NewLocal(io.Discard)
	root, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	port := root.Addr().(*net.TCPAddr).Port
	ls, problem, err := loopbackServer(ctx, h, port, "nobody")
	if err != nil || problem != "" || len(ls) != 1 {
		t.Errorf("root's listener: %v %q, %v; want it alone, no problem", ls, problem, err)
	}
	again, _, _ := loopbackServer(ctx, h, port, "nobody")
	if !slices.Equal(ls, again) {
		t.Errorf("the same listener read twice: %v, then %v", ls, again)
	}
	fd, port2 := listenAs(t, 65534)
	_, problem, err = loopbackServer(ctx, h, port2, "nobody")
	if err != nil || !strings.Contains(problem, "the site user nobody (uid 65534)") {
		t.Errorf("nobody's listener: %q, %v; want it named", problem, err)
	}
	if _, problem, err := loopbackServer(ctx, h, port2, "root"); err != nil || !strings.Contains(problem, "uid 65534") {
		t.Errorf("nobody's listener, another site user: %q, %v; want it named", problem, err)
	}
	if _, problem, err := loopbackServer(ctx, h, port, "no-such-user-here"); err != nil || !strings.Contains(problem, "not a user on the host") {
		t.Errorf("an unknown site user: %q, %v; want it said", problem, err)
	}
	syscall.Close(fd)
	if _, problem, err := loopbackServer(ctx, h, port2, "nobody"); err != nil || !strings.Contains(problem, "nothing listens on port") {
		t.Errorf("a port nobody listens on: %q, %v; want it said", problem, err)
	}
}

// listenAs makes a listening socket on 127.0.0.1 owned by uid (the
// kernel takes a socket's owner from its maker's filesystem uid), on a
// thread of its own.
func listenAs(t *testing.T, uid int) (fd, port int) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // the thread's fsuid changes: never given back to the runtime
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(uid), 0, 0); e != 0 {
			done <- e
			return
		}
		var err error
		fd, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err == nil {
			err = syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
		}
		if err == nil {
			err = syscall.Listen(fd, 1)
		}
		if err == nil {
			var sa syscall.Sockaddr
			if sa, err = syscall.Getsockname(fd); err == nil {
				port = sa.(*syscall.SockaddrInet4).Port
			}
		}
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return fd, port
}

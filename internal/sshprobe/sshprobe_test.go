package sshprobe

import (
	"net"
	"testing"
)

// serve answers the one connection Banner makes to a new listener with
// greeting, then hangs up.
func serve(t *testing.T, greeting string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Write([]byte(greeting))
			c.Close()
		}
	}()
	return l.Addr().String()
}

func TestBanner(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := closed.Addr().String()
	closed.Close()
	for _, c := range []struct {
		name string
		addr string
		want bool
	}{
		{"sshd", serve(t, "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n"), true},
		{"another server", serve(t, "HTTP/1.1 400 Bad Request\r\n\r\n"), false},
		{"closes at once", serve(t, ""), false},
		{"nothing listens", nobody, false},
	} {
		if got := Banner(c.addr); got != c.want {
			t.Errorf("%s: Banner = %v, want %v", c.name, got, c.want)
		}
	}
}

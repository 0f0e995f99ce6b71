package testenv

import (
	"net"
	"testing"
)

// FreeUDPAndTCPPort returns a port free for both UDP and TCP on 127.0.0.1
// (Caddy binds both for an HTTPS site with HTTP/3).
func FreeUDPAndTCPPort(t testing.TB) int {
	t.Helper()
	for range 50 {
		l, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.LocalAddr().(*net.UDPAddr).Port
		tl, err := net.Listen("tcp", l.LocalAddr().String())
		l.Close()
		if err != nil {
			continue
		}
		tl.Close()
		return port
	}
	t.Fatal("no free UDP+TCP port on 127.0.0.1")
	return 0
}

package testenv

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/wptest/wptest/internal/flock"
	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// aptProbeLock serialises the tests that listen on port 80 of this
// machine's loopback and of AptCacherAddr (test packages run in parallel
// processes).
const aptProbeLock = "/tmp/wptest-apt-proxy-probe.lock"

// CheckAptProxyMirrorOnly fails t unless the apt proxy, asked by a host
// (through run, a shell on it), fetches from the Debian mirror and from
// nothing else: web servers on this machine's port 80, at 127.0.0.1 and at
// AptCacherAddr, each holding a file at names apt would fetch, get no
// request and the host gets none of their bytes, whether it names them by
// address, by "localhost", by this machine's name in its /etc/hosts, or
// asks for a tunnel (CONNECT); the mirror's InRelease of suite still comes
// through. Port 80: the only port apt-cacher-ng lets a URL name.
func CheckAptProxyMirrorOnly(t testing.TB, suite string, run func(script string) string) {
	t.Helper()
	unlock, err := flock.Take(aptProbeLock, syscall.LOCK_EX)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	const secret = "wptest-apt-proxy-leak-canary"
	var hits atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(secret + "\n"))
	})}
	defer srv.Close()
	served := []string{AptCacherAddr}
	for _, addr := range []string{"127.0.0.1", AptCacherAddr} {
		l, err := net.Listen("tcp", net.JoinHostPort(addr, "80"))
		if err != nil {
			if addr == AptCacherAddr || !errors.Is(err, syscall.EADDRINUSE) {
				t.Fatalf("listen on %s:80: %v", addr, err)
			}
			// Some other server holds it: the proxy must refuse that one too.
			t.Logf("127.0.0.1:80 is taken by another program: the proxy is tried against it as it is")
			continue
		}
		if addr == "127.0.0.1" {
			served = append(served, addr)
		}
		go srv.Serve(l)
	}
	proxy := AptCacherAddr + "/" + strconv.Itoa(machine.AptCacherPort)
	// ask sends one request line to the proxy and prints its status line
	// and whether the canary came back.
	ask := func(line, host string) string {
		script := "timeout 60 bash -c 'exec 3<>/dev/tcp/" + proxy + " && printf \"" + line + "\\r\\nHost: " + host +
			"\\r\\nConnection: close\\r\\n\\r\\n\" >&3 && cat <&3' 2>/dev/null | { IFS= read -r status; c=$(grep -c " + secret + "); echo \"${status%$(printf '\\r')} canary=$c\"; }"
		return run(script)
	}
	for _, c := range []struct{ line, host string }{
		{"GET http://127.0.0.1/x HTTP/1.0", "127.0.0.1"},
		{"GET http://127.0.0.1/wptest_1.0_all.deb HTTP/1.0", "127.0.0.1"},
		{"GET http://127.0.0.1/debian/pool/main/w/wptest/wptest_1.0_all.deb HTTP/1.0", "127.0.0.1"},
		{"GET http://127.0.0.1/debian/dists/" + suite + "/InRelease HTTP/1.0", "127.0.0.1"},
		{"GET http://localhost/debian/pool/main/w/wptest/wptest_1.0_all.deb HTTP/1.0", "localhost"},
		{"GET http://" + machine.GatewayName + "/wptest_1.0_all.deb HTTP/1.0", machine.GatewayName},
		{"GET http://" + AptCacherAddr + "/debian/pool/main/w/wptest/wptest_1.0_all.deb HTTP/1.0", AptCacherAddr},
		{"CONNECT 127.0.0.1:80 HTTP/1.1", "127.0.0.1:80"},
		{"CONNECT " + AptCacherAddr + ":80 HTTP/1.1", AptCacherAddr + ":80"},
	} {
		got := ask(c.line, c.host)
		if !strings.HasSuffix(got, " canary=0") || strings.Contains(got, " 200 ") {
			t.Errorf("through the apt proxy, %q got %q: want it refused, nothing of this machine's servers", c.line, got)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("this machine's web servers on port 80 (%s) got %d requests through the apt proxy, want none", strings.Join(served, ", "), n)
	}
	if got := ask("GET http://deb.debian.org/debian/dists/"+suite+"/InRelease HTTP/1.0", "deb.debian.org"); !strings.Contains(got, " 200 ") {
		t.Errorf("the mirror through the apt proxy: %q, want 200", got)
	}
}

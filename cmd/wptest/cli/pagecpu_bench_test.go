package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// BenchmarkPageCPUBareHosts: the CPU one WordPress page costs the server
// (the agency fixture's home page, no plugins: none can be downloaded
// here) under Apache as cPanel ships it and Apache tuned, on a bare
// Debian 12 host (PHP 8.2) and a bare Debian 13 host (PHP 8.4, the post's),
// in one run. Each host: `wptest up` tuned-apache, `wptest seed --fixture
// agency`, then per profile (tuned-apache, then `wptest swap` to
// cpanel-apache) 20 unmeasured pages and -pages measured ones, 4 at a time,
// from this machine, between two idle samples of `wptest srvstat --target`.
// Reported per platform and profile: ms of CPU per page of all the host's
// processes (its cgroup) and of the php group alone (srvstat), and the
// Debian 13 / Debian 12 ratio of each. The hosts run one after the other
// (CPU time, not wall time, is measured; a busy machine still moves it a
// little: compare within one run).
//
//	go test ./cmd/wptest/cli -run '^$' -bench PageCPUBareHosts -benchtime 1x -v
func BenchmarkPageCPUBareHosts(b *testing.B) {
	testenv.NeedBinary(b, "go")
	pages := 200
	if v := os.Getenv("WPTEST_BENCH_PAGES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("WPTEST_BENCH_PAGES=%q", v)
		}
		pages = n
	}
	agent := filepath.Join(b.TempDir(), "wptest")
	if out, err := exec.Command("go", "build", "-o", agent, "github.com/wptest/wptest/cmd/wptest").CombinedOutput(); err != nil {
		b.Fatalf("go build wptest: %v\n%s", err, out)
	}
	ruid2 := testenv.Ruid2Source(b)
	profiles := []string{"tuned-apache", "cpanel-apache"}
	type key struct{ suite, profile string }
	hostMs, phpMs := map[key]float64{}, map[key]float64{}
	for _, suite := range []string{"bookworm", "trixie"} {
		bh := testenv.BareHostsOn(b, suite, "page-"+suite)[0]
		conn := []string{"--target", bh.Target, "--known-hosts", bh.KnownHosts, "--identity", bh.Identity}
		putFile(b, bh, ruid2, "/root/mod_ruid2.c")
		must := func(args ...string) {
			b.Helper()
			if code, out, errOut := runCLIArgs(append(args, conn...)...); code != 0 {
				b.Fatalf("%s: wptest %v: exit %d\n%s\n%s", bh.Platform, args, code, out, host.Tail([]byte(errOut), 40))
			}
		}
		for i, p := range profiles {
			verb := "swap"
			if i == 0 {
				verb = "up"
			}
			args := []string{verb, "--profile", p, "--agent", agent}
			if p == "cpanel-apache" {
				args = append(args, "-var", "ruid2_source_url=file:///root/mod_ruid2.c")
			}
			must(args...)
			if i == 0 {
				must("seed", "--fixture", "agency")
				must("verify")
			}
			page := homePage(b, bh)
			if code, out, errOut := runCLIArgs("bench", "--url", "http://"+bh.IP+"/", "-c", "4", "-n", "20"); code != 0 {
				b.Fatalf("%s %s: warm-up: exit %d\n%s\n%s", bh.Platform, p, code, out, errOut)
			}
			var host, php float64
			var ok, body int64
			for n := 0; n < b.N; n++ {
				m := sampledLoad(b, bh, append(conn, "--agent", agent), bh.Platform+" "+p, "-n", strconv.Itoa(pages))
				host, php, ok, body = host+m.host(), php+m.group("php"), ok+m.ok, body+m.body
			}
			b.Logf("%s %s: the page: %s; %d bytes per answer under load", bh.Platform, p, page, body/ok)
			k := key{suite, p}
			hostMs[k], phpMs[k] = host*1000/float64(ok), php*1000/float64(ok)
			b.ReportMetric(hostMs[k], "host-ms/page-"+bh.Platform+"-"+p)
			b.ReportMetric(phpMs[k], "php-ms/page-"+bh.Platform+"-"+p)
			b.Logf("%s %s: %d pages: %.1f ms CPU per page (all the host's processes), %.1f ms of it PHP's", bh.Platform, p, ok, hostMs[k], phpMs[k])
		}
	}
	for _, p := range profiles {
		old, cur := key{"bookworm", p}, key{"trixie", p}
		b.ReportMetric(hostMs[cur]/hostMs[old], "host-ratio-13/12-"+p)
		b.ReportMetric(phpMs[cur]/phpMs[old], "php-ratio-13/12-"+p)
		b.Logf("%s: Debian 13 / Debian 12 CPU per page: %.2f (host), %.2f (php)", p, hostMs[cur]/hostMs[old], phpMs[cur]/phpMs[old])
	}
}

// homePage describes the home page the load asks for: its status, size,
// title and the theme and generator it names (the same site on every host).
func homePage(t testing.TB, bh *testenv.BareHost) string {
	t.Helper()
	resp, err := http.Get("http://" + bh.IP + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	find := func(re string) string {
		if m := regexp.MustCompile(re).FindSubmatch(body); m != nil {
			return string(m[1])
		}
		return "-"
	}
	if resp.StatusCode != 200 || find(`<title>([^<]*)</title>`) == "-" {
		t.Fatalf("%s: the home page answers %d with %d bytes and no <title>: not the site's page", bh.Platform, resp.StatusCode, len(body))
	}
	return fmt.Sprintf("%d, %d bytes, title %q, theme %s, generator %q", resp.StatusCode, len(body),
		find(`<title>([^<]*)</title>`), find(`/wp-content/themes/([a-z0-9-]+)/`), find(`<meta name="generator" content="([^"]*)"`))
}

// putFile copies a local file to a bare host.
func putFile(t testing.TB, bh *testenv.BareHost, local, remote string) {
	t.Helper()
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), tg, host.Options{KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	b, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Put(context.Background(), remote, bytes.NewReader(b), host.PutOptions{Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
}

package benchgen

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// wpSite writes a WordPress-like page and its 22 assets under www/wp: the
// block library's and the theme's stylesheets (one with two web fonts and a
// background image in url()s), jQuery and a few plugin scripts, six images
// (one by srcset), a favicon, and two references to other origins (Google
// Fonts, a tag manager) that are skipped. Contents are made from a fixed
// seed: the same bytes every run. It returns the page's path and the
// same-origin asset count.
func wpSite(t testing.TB, docroot string) (string, int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(24, 1))
	dir := filepath.Join(docroot, "wp")
	write := func(rel string, b []byte) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		n := 3 + rng.IntN(8)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	// text of about n bytes, compressible as CSS or minified JS are (3-5x).
	css := func(n int) []byte {
		var b strings.Builder
		for b.Len() < n {
			fmt.Fprintf(&b, ".wp-%s-%s{margin:%dpx %dpx;color:#%06x;display:%s}\n", word(), word(), rng.IntN(40), rng.IntN(40),
				rng.IntN(1<<24), []string{"block", "flex", "grid", "none"}[rng.IntN(4)])
		}
		return []byte(b.String())
	}
	js := func(n int) []byte {
		var b strings.Builder
		for b.Len() < n {
			fmt.Fprintf(&b, "function %s(%s,%s){return %s.%s(%s)+%d};", word(), word(), word(), word(), word(), word(), rng.IntN(1000))
		}
		return []byte(b.String())
	}
	binary := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	var assets []string
	add := func(rel string, b []byte) {
		write(rel, b)
		assets = append(assets, rel)
	}
	add("wp-includes/css/dist/block-library/style.min.css", css(95<<10))
	add("wp-content/themes/twentytwentyfour/style.css", append(css(30<<10),
		[]byte(`@font-face{font-family:Inter;src:url(assets/fonts/inter.woff2) format("woff2")}
@font-face{font-family:Cardo;src:url("assets/fonts/cardo.woff2") format("woff2")}
.hero{background:url('../../uploads/2024/01/hero-bg.jpg') center/cover}`)...))
	add("wp-content/themes/twentytwentyfour/assets/fonts/inter.woff2", binary(48<<10))
	add("wp-content/themes/twentytwentyfour/assets/fonts/cardo.woff2", binary(36<<10))
	add("wp-content/uploads/2024/01/hero-bg.jpg", binary(120<<10))
	for _, p := range []string{"contact-form-7/includes/css/styles.css", "woocommerce/assets/css/woocommerce.css", "jetpack/css/jetpack.css"} {
		add("wp-content/plugins/"+p, css(8<<10+rng.IntN(16<<10)))
	}
	add("wp-includes/js/jquery/jquery.min.js", js(87<<10))
	add("wp-includes/js/jquery/jquery-migrate.min.js", js(13<<10))
	add("wp-includes/js/wp-emoji-release.min.js", js(5<<10))
	for _, p := range []string{"contact-form-7/includes/js/index.js", "woocommerce/assets/js/frontend/cart-fragments.min.js",
		"jetpack/_inc/build/photon/photon.min.js", "akismet/_inc/akismet-frontend.js"} {
		add("wp-content/plugins/"+p, js(2<<10+rng.IntN(20<<10)))
	}
	add("wp-content/themes/twentytwentyfour/assets/js/navigation.js", js(4<<10))
	var imgs []string
	for i, n := range []int{180, 90, 60, 45, 30} {
		rel := fmt.Sprintf("wp-content/uploads/2024/01/photo-%d-1024x683.jpg", i+1)
		add(rel, binary(n<<10))
		imgs = append(imgs, rel)
	}
	add("wp-content/uploads/2024/01/photo-1-2048x1366.jpg", binary(400<<10)) // the srcset's first candidate
	add("wp-content/uploads/2024/01/cropped-icon-32x32.png", binary(2<<10))
	var page strings.Builder
	page.WriteString(`<!DOCTYPE html><html lang="en-US"><head><meta charset="UTF-8">
<title>Hello world! &#8211; A WordPress site</title>
<link rel='stylesheet' id='google-fonts-css' href='https://fonts.googleapis.com/css?family=Inter' media='all' />
<link rel='stylesheet' id='wp-block-library-css' href='/wp/wp-includes/css/dist/block-library/style.min.css?ver=6.5.3' media='all' />
<link rel='stylesheet' id='theme-css' href='/wp/wp-content/themes/twentytwentyfour/style.css?ver=1.1' media='all' />
<link rel='stylesheet' href='/wp/wp-content/plugins/contact-form-7/includes/css/styles.css?ver=5.9' media='all' />
<link rel='stylesheet' href='/wp/wp-content/plugins/woocommerce/assets/css/woocommerce.css?ver=8.8' media='all' />
<link rel='stylesheet' href='/wp/wp-content/plugins/jetpack/css/jetpack.css?ver=13.4' media='all' />
<script src="/wp/wp-includes/js/jquery/jquery.min.js?ver=3.7.1" id="jquery-core-js"></script>
<script src="/wp/wp-includes/js/jquery/jquery-migrate.min.js?ver=3.4.1" id="jquery-migrate-js"></script>
<script src="/wp/wp-includes/js/wp-emoji-release.min.js?ver=6.5.3" defer></script>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-XXXX"></script>
<link rel="icon" href="/wp/wp-content/uploads/2024/01/cropped-icon-32x32.png" sizes="32x32" />
<style id='global-styles-inline-css'>`)
	page.Write(css(12 << 10))
	page.WriteString("</style></head><body class=\"home blog\">\n")
	for i, img := range imgs {
		srcset := ""
		if i == 0 {
			srcset = fmt.Sprintf(` srcset="/wp/wp-content/uploads/2024/01/photo-1-2048x1366.jpg 2048w, /wp/%s 1024w"`, img)
		}
		fmt.Fprintf(&page, "<article class=\"post\"><h2>%s %s</h2><img loading=\"lazy\" width=\"1024\" height=\"683\" src=\"/wp/%s\"%s alt=\"\"><p>%s</p></article>\n",
			word(), word(), img, srcset, strings.Repeat(word()+" ", 300))
	}
	for _, p := range []string{"contact-form-7/includes/js/index.js", "woocommerce/assets/js/frontend/cart-fragments.min.js",
		"jetpack/_inc/build/photon/photon.min.js", "akismet/_inc/akismet-frontend.js"} {
		fmt.Fprintf(&page, "<script src=\"/wp/wp-content/plugins/%s?ver=1\" defer></script>\n", p)
	}
	page.WriteString(`<script src="/wp/wp-content/themes/twentytwentyfour/assets/js/navigation.js?ver=1.1"></script></body></html>`)
	write("index.html", []byte(page.String()))
	// photo-1-1024x683.jpg is never fetched: its srcset's first candidate is.
	return "/wp/index.html", len(assets) - 1
}

// browseRun is one line of the comparison.
type browseRun struct {
	proto    string
	visitors int
	fresh    bool
}

// h1 over 6 connections vs h2 and h3 over one, against Debian's Caddy (TLS,
// gzip) and nginx (TLS, h2, gzip; Debian's nginx 1.22 has no h3) serving a
// WordPress-like page of 22 assets: every page view whole, on the protocol
// asked for, every asset once. The page-view times and the bytes are
// logged, not compared (no timing in tests): `go test -run
// TestBrowseAgainstRealServer -v` prints the table.
func TestBrowseAgainstRealServer(t *testing.T) {
	t.Run("caddy", func(t *testing.T) {
		s := testsrv.StartCaddy(t)
		page, n := wpSite(t, filepath.Join(s.Dir, "www"))
		browseCompare(t, s.TLSURL(page), caddyRoots(t, s), n, []string{"h1", "h2", "h3"})
	})
	t.Run("nginx", func(t *testing.T) {
		base, dir, roots := startNginxTLS(t)
		page, n := wpSite(t, filepath.Join(dir, "www"))
		browseCompare(t, base+page, roots, n, []string{"h1", "h2"})
	})
}

func browseCompare(t *testing.T, url string, roots *x509.CertPool, nAssets int, protos []string) {
	// Long enough for whole page views on every protocol, fresh and kept:
	// what is checked. The times are only logged (3 s windows made the
	// test 43 CPU-s instead of 15, for the same checks).
	const dur = time.Second
	var runs []browseRun
	for _, m := range []struct {
		visitors int
		fresh    bool
	}{{1, true}, {1, false}, {8, true}} {
		for _, p := range protos {
			runs = append(runs, browseRun{p, m.visitors, m.fresh})
		}
	}
	t.Logf("%-3s %-8s %-7s %6s %9s %9s %9s %9s %6s %11s %11s %s", "", "visitors", "conns", "views", "ttfb p50", "view p50", "view p90",
		"view p99", "conns", "wire in/v", "wire out/v", "responses")
	for _, c := range runs {
		bc := BrowseConfig{
			Base:     Config{URL: url, Proto: c.proto, RootCAs: roots, Timeout: 20 * time.Second},
			Visitors: c.visitors, Duration: dur, Warmup: 200 * time.Millisecond,
		}
		if c.fresh {
			bc.ViewsPerVisitor = 1
		}
		r, err := Browse(context.Background(), bc)
		if err != nil {
			t.Fatal(err)
		}
		checkBrowse(t, r)
		want := map[string]string{"h1": "http/1.1", "h2": "h2", "h3": "h3"}[c.proto]
		version := map[string]string{"h1": "HTTP/1.1", "h2": "HTTP/2.0", "h3": "HTTP/3.0"}[c.proto]
		if r.PageViewsFailed != 0 || r.AssetOutcomes.OK != r.PageViews*int64(nAssets) || r.SkippedAssets != 2*r.PageViews ||
			r.Negotiated[want] != r.Connections || len(r.Negotiated) > 1 || r.Responses[version] != r.PageViews*int64(nAssets+1) {
			t.Fatalf("%+v: %d of %d views failed, assets %+v (want %d a view), skipped %d, connections %d %v, responses %v, errors %v",
				c, r.PageViewsFailed, r.PageViews, r.AssetOutcomes, nAssets, r.SkippedAssets, r.Connections, r.Negotiated, r.Responses, r.Errors)
		}
		perVisitor := float64(r.Connections) / float64(r.PageViews)
		if c.fresh && (c.proto == "h1" && (perVisitor < 2 || perVisitor > 6) || c.proto != "h1" && r.Connections != r.PageViews) {
			t.Fatalf("%+v: %d connections for %d fresh page views (keep-alive closes %d, errors %v)", c, r.Connections, r.PageViews, r.KeepAliveCloses, r.Errors)
		}
		mode := "fresh"
		if !c.fresh {
			mode = "kept"
		}
		t.Logf("%-3s %-8d %-7s %6d %7.2fms %7.2fms %7.2fms %7.2fms %6d %11.0f %11.0f %v", c.proto, c.visitors,
			fmt.Sprintf("%d/%s", r.ConnsPerVisitor, mode), r.PageViews, r.TTFB.P50, r.PageView.P50, r.PageView.P90, r.PageView.P99,
			r.Connections, r.WireIn.Mean, r.WireOut.Mean, r.Responses)
	}
}

// nginxTLSConf: Debian's nginx with TLS, h2 and gzip, as a WordPress host
// serves static files.
var nginxTLSConf = template.Must(template.New("n").Parse(`
daemon off;
master_process on;
worker_processes 1;
pid {{.Dir}}/nginx.pid;
error_log {{.Dir}}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path {{.Dir}}/tmp/body;
  proxy_temp_path {{.Dir}}/tmp/proxy;
  fastcgi_temp_path {{.Dir}}/tmp/fcgi;
  uwsgi_temp_path {{.Dir}}/tmp/uwsgi;
  scgi_temp_path {{.Dir}}/tmp/scgi;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  keepalive_timeout 120s;
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  gzip on;
  gzip_types text/css application/javascript;
  server {
    listen 127.0.0.1:{{.Port}} ssl http2;
    ssl_certificate {{.Dir}}/cert.pem;
    ssl_certificate_key {{.Dir}}/key.pem;
    root {{.Dir}}/www;
  }
}
`))

// startNginxTLS starts Debian's nginx with TLS (a certificate for
// localhost made here, trusted by the returned pool), h1 and h2 by ALPN.
// It returns https://localhost:port, the server's directory and the pool.
func startNginxTLS(t *testing.T) (string, string, *x509.CertPool) {
	t.Helper()
	testenv.ShareLocalServer(t) // first: on main it also skips under -short (testenv.Integration)
	bin := testenv.NeedBinary(t, "nginx")
	testenv.NeedRoot(t)
	dir := testsrv.Docroot(t)
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "cert.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	must(os.WriteFile(filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	port := testenv.FreeUDPAndTCPPort(t)
	var conf bytes.Buffer
	must(nginxTLSConf.Execute(&conf, struct {
		Dir  string
		Port int
	}{dir, port}))
	cf := filepath.Join(dir, "nginx.conf")
	must(os.WriteFile(cf, conf.Bytes(), 0o644))
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	must(err)
	cmd := exec.Command(bin, "-p", dir+"/", "-c", cf)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	must(cmd.Start())
	logf.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // its own group: master and worker, by the master's pid
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	testenv.WaitFor(t, 20*time.Second, "nginx listening on "+addr, func() bool {
		select {
		case <-done:
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			l, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			t.Fatalf("nginx exited: %s\n%s", l, b)
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return fmt.Sprintf("https://localhost:%d", port), dir, roots
}

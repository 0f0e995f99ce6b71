// Package testsrv starts real web servers (Debian's Apache, nginx and Caddy) on free
// loopback ports from temporary configs, for bench's integration tests. Each
// server is a child process of the test, stopped by its own pid at cleanup;
// nothing system-wide is touched.
package testsrv

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/wptest/wptest/internal/testenv"
)

// Docroot files every server gets.
const (
	Small = "/1k.html"   // 1,024 bytes
	CSS   = "/style.css" // ~140 KB of compressible CSS
	Large = "/1m.bin"    // 1 MiB, incompressible
)

// Docroot makes a world-readable temp dir with the test files (the servers
// drop root privileges, so the path must be readable by www-data).
func Docroot(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wptest-bench-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	www := filepath.Join(dir, "www")
	must(t, os.MkdirAll(www, 0o755))
	must(t, os.Chmod(dir, 0o755))
	small := "<html><head><title>Test Document.</title></head><body><p>" // padded to 1024
	small += strings.Repeat("a", 1024-len(small)-len("</p></body></html>\n")) + "</p></body></html>\n"
	must(t, os.WriteFile(filepath.Join(www, "1k.html"), []byte(small), 0o644))
	var css strings.Builder
	for i := 0; css.Len() < 140<<10; i++ {
		fmt.Fprintf(&css, ".c%d { color: #%06x; margin: %dpx %dpx; font: 14px/1.4 sans-serif; }\n", i, i*2654435761%0xffffff, i%17, i%5)
	}
	must(t, os.WriteFile(filepath.Join(www, "style.css"), []byte(css.String()), 0o644))
	big := make([]byte, 1<<20)
	rand.Read(big)
	must(t, os.WriteFile(filepath.Join(www, "1m.bin"), big, 0o644))
	// Files modified within the last second get a weak ETag from Apache
	// (W/"…", 2 bytes longer) until that second has passed, so how many
	// answers carry it would depend on how busy the machine is. Files older
	// than any run give every answer the same headers.
	for _, f := range []string{"1k.html", "style.css", "1m.bin"} {
		must(t, os.Chtimes(filepath.Join(www, f), settled, settled))
	}
	return dir
}

// settled is the modification time of every docroot file: fixed and in the
// past, so validators (ETag, Last-Modified) are strong and the same each run.
var settled = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Server is a running server.
type Server struct {
	Dir  string
	Port int // HTTP (Apache) or HTTPS+h3 (Caddy)
	// HTTPPort: Caddy's cleartext port (h1 + h2c).
	HTTPPort int
	cmd      *exec.Cmd
	logPath  string
}

// URL returns http://127.0.0.1:Port+path.
func (s *Server) URL(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", s.Port, path) }

// Accesses is Apache's "Total Accesses" from mod_status (-1 when it cannot
// be read): how a test waits until the server has answered some requests.
func (s *Server) Accesses() int64 {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(s.URL("/server-status?auto"))
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Total Accesses: "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

// Pid is the main process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// ApacheOptions shape the Apache config.
type ApacheOptions struct {
	MPM               string // "event" (default) or "prefork"
	MaxRequestWorkers int    // default 150
	KeepAliveTimeout  int    // seconds, default 5
	Deflate           bool   // mod_deflate on text/css, text/html
	CPUs              string // pin the server to these CPUs (taskset -c), e.g. "0"
	// Extra is appended to the config: modules and handlers a test needs
	// (CGI, FastCGI). "{{.Dir}}" in it is the server's directory.
	Extra string
}

var apacheConf = template.Must(template.New("a").Parse(`
LoadModule mpm_{{.MPM}}_module /usr/lib/apache2/modules/mod_mpm_{{.MPM}}.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule status_module /usr/lib/apache2/modules/mod_status.so
{{if .Deflate}}LoadModule filter_module /usr/lib/apache2/modules/mod_filter.so
LoadModule deflate_module /usr/lib/apache2/modules/mod_deflate.so
AddOutputFilterByType DEFLATE text/html text/css application/javascript{{end}}
ServerName 127.0.0.1
Listen 127.0.0.1:{{.Port}}
User www-data
Group www-data
PidFile {{.Dir}}/httpd.pid
DefaultRuntimeDir {{.Dir}}
Mutex file:{{.Dir}} default
ErrorLog {{.Dir}}/error.log
LogLevel warn
TypesConfig /etc/mime.types
DocumentRoot {{.Dir}}/www
<Directory {{.Dir}}/www>
  Require all granted
</Directory>
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout {{.KeepAliveTimeout}}
Timeout 60
ListenBacklog 511
ExtendedStatus On
<Location /server-status>
  SetHandler server-status
</Location>
{{if eq .MPM "prefork"}}StartServers {{.MaxRequestWorkers}}
MinSpareServers 1
MaxSpareServers {{.MaxRequestWorkers}}
ServerLimit {{.MaxRequestWorkers}}
MaxRequestWorkers {{.MaxRequestWorkers}}
{{else}}ServerLimit 16
ThreadsPerChild 25
StartServers {{.Children}}
MinSpareThreads 25
MaxSpareThreads {{.MaxRequestWorkers}}
MaxRequestWorkers {{.MaxRequestWorkers}}
{{end}}
{{.ExtraConf}}`))

// StartApache starts Debian's apache2 in the foreground from a temp config.
func StartApache(t testing.TB, o ApacheOptions) *Server {
	t.Helper()
	testenv.Integration(t) // a web server: not under -short
	bin := testenv.NeedBinary(t, "apache2")
	testenv.NeedRoot(t)
	if o.MPM == "" {
		o.MPM = "event"
	}
	if o.MaxRequestWorkers == 0 {
		o.MaxRequestWorkers = 150
	}
	if o.KeepAliveTimeout == 0 {
		o.KeepAliveTimeout = 5
	}
	dir := Docroot(t)
	port := testenv.FreeUDPAndTCPPort(t)
	// Event MPM: start every child up front and never stop one for being
	// spare (the kit's settings), so no idle keep-alive connection is closed
	// under the client's feet by a child going away.
	cf := writeConf(t, apacheConf, struct {
		ApacheOptions
		Dir       string
		Port      int
		Children  int
		ExtraConf string
	}{o, dir, port, (o.MaxRequestWorkers + 24) / 25, strings.ReplaceAll(o.Extra, "{{.Dir}}", dir)}, dir, "httpd.conf")
	s := &Server{Dir: dir, Port: port}
	s.cmd = command(t, o.CPUs, bin, "-f", cf, "-DFOREGROUND")
	s.start(t, port, "tcp", errorLog(dir))
	return s
}

// writeConf writes the config tmpl makes of data to dir/name, and returns
// its path.
func writeConf(t testing.TB, tmpl *template.Template, data any, dir, name string) string {
	t.Helper()
	var conf bytes.Buffer
	must(t, tmpl.Execute(&conf, data))
	path := filepath.Join(dir, name)
	must(t, os.WriteFile(path, conf.Bytes(), 0o644))
	return path
}

// command runs bin with args, pinned to cpus (taskset -c) unless that is "".
func command(t testing.TB, cpus, bin string, args ...string) *exec.Cmd {
	t.Helper()
	if cpus == "" {
		return exec.Command(bin, args...)
	}
	return exec.Command(testenv.NeedBinary(t, "taskset"), append([]string{"-c", cpus, bin}, args...)...)
}

// errorLog reads dir/error.log, for the message of a server that did not start.
func errorLog(dir string) func() string {
	return func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return string(b)
	}
}

func (s *Server) start(t testing.TB, port int, network string, logs func() string) {
	t.Helper()
	// Not while another test samples this machine's web servers by name.
	testenv.ShareLocalServer(t)
	// Output to a file, not a pipe: a pipe would keep Wait waiting on any
	// child that outlives the parent. Its own process group, so the whole
	// server (parent and children) is stopped by the group's id.
	s.logPath = filepath.Join(s.Dir, "server.log")
	lf, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stdout, s.cmd.Stderr = lf, lf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = s.cmd.Start()
	lf.Close()
	if err != nil {
		t.Fatalf("start %s: %v", s.cmd.Path, err)
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		// Children that outlived the parent (or ignored TERM).
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-done:
			t.Fatalf("%s exited: %s\n%s", s.cmd.Path, s.Log(), logs())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not listening on %d after 20s: %s\n%s", s.cmd.Path, port, s.Log(), logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// NginxOptions shape the nginx config.
type NginxOptions struct {
	Workers int    // worker_processes, default 1
	CPUs    string // pin the server to these CPUs (taskset -c), e.g. "0"
	// WorkerConnections is each worker's connection limit (default 4096);
	// above that, the worker's file limit is raised to match.
	WorkerConnections int
}

// The config of loadgen-anchors.md Appendix A: static files, sendfile, no
// access log, keep-alive without a request limit.
var nginxConf = template.Must(template.New("n").Parse(`
daemon off;
master_process on;
worker_processes {{.Workers}};
pid {{.Dir}}/nginx.pid;
error_log {{.Dir}}/error.log warn;
{{if gt .WorkerConnections 4096}}worker_rlimit_nofile {{.Files}};
{{end}}events { worker_connections {{.WorkerConnections}}; }
http {
  access_log off;
  client_body_temp_path {{.Dir}}/tmp/body;
  proxy_temp_path {{.Dir}}/tmp/proxy;
  fastcgi_temp_path {{.Dir}}/tmp/fcgi;
  uwsgi_temp_path {{.Dir}}/tmp/uwsgi;
  scgi_temp_path {{.Dir}}/tmp/scgi;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  types { text/html html; text/css css; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:{{.Port}} backlog=4096;
    root {{.Dir}}/www;
  }
}
`))

// StartNginx starts Debian's nginx (master + workers, in the foreground)
// from a temp config.
func StartNginx(t testing.TB, o NginxOptions) *Server {
	t.Helper()
	testenv.Integration(t) // a web server: not under -short
	bin := testenv.NeedBinary(t, "nginx")
	testenv.NeedRoot(t)
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.WorkerConnections == 0 {
		o.WorkerConnections = 4096
	}
	dir := Docroot(t)
	must(t, os.MkdirAll(filepath.Join(dir, "tmp"), 0o755))
	port := testenv.FreeUDPAndTCPPort(t)
	cf := writeConf(t, nginxConf, struct {
		NginxOptions
		Dir   string
		Port  int
		Files int // a file per connection, and some for the log, listener and files served
	}{o, dir, port, o.WorkerConnections + 64}, dir, "nginx.conf")
	s := &Server{Dir: dir, Port: port}
	s.cmd = command(t, o.CPUs, bin, "-p", dir+"/", "-c", cf)
	s.start(t, port, "tcp", errorLog(dir))
	return s
}

var caddyfile = template.Must(template.New("c").Parse(`{
	admin off
	skip_install_trust
	storage file_system {{.Dir}}/data
	http_port {{.HTTPPort}}
	https_port {{.Port}}
	auto_https disable_redirects
	servers :{{.Port}} {
		protocols h1 h2 h3
	}
	servers :{{.HTTPPort}} {
		protocols h1 h2c
	}
}
https://localhost:{{.Port}} {
	tls internal
	root * {{.Dir}}/www
	{{if not .NoEncode}}encode gzip{{end}}
	file_server
}
http://127.0.0.1:{{.HTTPPort}} {
	root * {{.Dir}}/www
	{{if not .NoEncode}}encode gzip{{end}}
	file_server
}
`))

// CaddyOptions shape the Caddy config.
type CaddyOptions struct {
	CPUs string // pin the server to these CPUs (taskset -c), e.g. "0"
	// NoEncode leaves out "encode gzip": every client gets the same bytes
	// whatever Accept-Encoding it sends (h2load asks for gzip by default).
	NoEncode bool
}

// StartCaddy starts Debian's caddy with h1/h2/h3 on Port (TLS, internal CA,
// certificate for "localhost": send that SNI) and h1/h2c on HTTPPort, with
// gzip encoding.
func StartCaddy(t testing.TB) *Server { return StartCaddyWith(t, CaddyOptions{}) }

// StartCaddyWith is StartCaddy shaped by o.
func StartCaddyWith(t testing.TB, o CaddyOptions) *Server {
	t.Helper()
	testenv.Integration(t) // a web server: not under -short
	bin := testenv.NeedBinary(t, "caddy")
	dir := Docroot(t)
	s := &Server{Dir: dir, Port: testenv.FreeUDPAndTCPPort(t), HTTPPort: testenv.FreeUDPAndTCPPort(t)}
	path := writeConf(t, caddyfile, struct {
		*Server
		CaddyOptions
	}{s, o}, dir, "Caddyfile")
	s.cmd = command(t, o.CPUs, bin, "run", "--config", path, "--adapter", "caddyfile")
	// Caddy keeps its CA and state under HOME/XDG dirs: keep them in the temp dir.
	s.cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir+"/xdg-data", "XDG_CONFIG_HOME="+dir+"/xdg-config")
	s.start(t, s.HTTPPort, "tcp", func() string { return "" })
	// The TLS port serves once the internal CA (made on first start) has
	// issued the certificate for localhost: wait for a handshake.
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", fmt.Sprintf("127.0.0.1:%d", s.Port),
			&tls.Config{ServerName: "localhost", InsecureSkipVerify: true})
		if err == nil {
			c.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("caddy TLS port %d: no handshake after 20s: %v\n%s", s.Port, err, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// RootCA is the file of Caddy's internal root CA (made on first start).
func (s *Server) RootCA() string {
	return filepath.Join(s.Dir, "data", "pki", "authorities", "local", "root.crt")
}

// TLSURL is https://localhost:Port+path (the certificate's name; Caddy
// picks the site by SNI and Host).
func (s *Server) TLSURL(path string) string {
	return fmt.Sprintf("https://localhost:%d%s", s.Port, path)
}

// Log is what the server printed.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// Crash kills the whole server (parent and children) at once with SIGKILL.
func (s *Server) Crash() { syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) }

package h3probe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/testenv"
)

// TestGetAgainstCaddy runs a real Caddy with HTTP/3 on a loopback UDP port
// and fetches a file through the quic-go client.
func TestGetAgainstCaddy(t *testing.T) {
	testenv.Integration(t) // a real Caddy: a web server
	caddy := testenv.NeedBinary(t, "caddy")
	testenv.NeedBinary(t, "openssl")
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("h3probe says hello\n", 10)
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	out, err := exec.Command("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
		"-nodes", "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
		"-keyout", key, "-out", cert).CombinedOutput()
	if err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	port := testenv.FreeUDPAndTCPPort(t)
	conf := filepath.Join(dir, "Caddyfile")
	caddyfile := "{\n\tadmin off\n\tskip_install_trust\n\tauto_https off\n\tservers {\n\t\tprotocols h1 h2 h3\n\t}\n}\n" +
		"https://127.0.0.1:" + strconv.Itoa(port) + " {\n\ttls " + cert + " " + key + "\n\troot * " + root + "\n\tfile_server\n}\n"
	if err := os.WriteFile(conf, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(caddy, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	logf, _ := os.Create(filepath.Join(dir, "caddy.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	url := "https://127.0.0.1:" + strconv.Itoa(port) + "/hello.txt"
	var res Result
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err = Get(context.Background(), url, Options{ServerName: "localhost", CAFile: cert, Timeout: 2 * time.Second})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "caddy.log"))
		t.Fatalf("Get: %v\ncaddy log:\n%s", err, log)
	}
	if res.Proto != "HTTP/3.0" || res.Status != 200 || string(res.Body) != body {
		t.Fatalf("got proto %q status %d body %q", res.Proto, res.Status, res.Body)
	}

	// A certificate the client does not trust is refused.
	other := filepath.Join(dir, "other.pem")
	out, err = exec.Command("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
		"-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", filepath.Join(dir, "otherkey.pem"), "-out", other).CombinedOutput()
	if err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	if _, err := Get(context.Background(), url, Options{ServerName: "localhost", CAFile: other, Timeout: 2 * time.Second}); err == nil {
		t.Fatal("Get trusted a certificate that is not in the CA file")
	}
	// Plain http is refused before anything is sent.
	if _, err := Get(context.Background(), "http://127.0.0.1:1/", Options{}); err == nil || !strings.Contains(err.Error(), "https") {
		t.Fatalf("http URL: err = %v", err)
	}
}

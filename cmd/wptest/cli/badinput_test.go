package cli

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// snapshot is every path under dir with its mode and content: what a
// command that fails on bad input must leave as it found it.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		m[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sshFiles writes a well-formed known_hosts (pinning 127.0.0.1:1) and an
// unencrypted identity into dir, and malformed copies of each.
func sshFiles(t *testing.T, dir string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hk, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	line := knownhosts.Line([]string{knownhosts.Normalize("127.0.0.1:1")}, hk) + "\n"
	blk, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]string{
		"hosts.known": line,
		"bad.known":   "127.0.0.1 ssh-ed25519 not-base64!!\n",
		"id_ed25519":  string(pem.EncodeToMemory(blk)),
		"bad_id":      "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n",
		"notes.txt":   "my notes: not to be lost\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "full", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "full", "sub", "keep"), []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The exit-code table for bad input (README: 2 = usage or config error,
// before anything is created), held by one test: every bad flag, file named
// by a flag, URL and target below exits 2 with a message naming what is
// wrong, leaves the working directory exactly as it was (no run directory,
// an existing file byte-equal), and a run that never started prints no
// --resume hint. Before, the ssh rows exited 4, h3probe's 4, bench's 6; the
// --warmup, --rate NaN, --interval and --give-up rows ran; run --target
// ssh:// made a run directory; fixture build --out notes.txt replaced the
// file.
func TestBadInputExitCodes(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	quick := filepath.Join(filepath.Dir(self), "..", "..", "..", "experiments", "quick.hcl")
	const tgt = "ssh://root@127.0.0.1:1"
	const url = "http://127.0.0.1:1/"
	agent := []string{"SSH_AUTH_SOCK=/nonexistent/agent.sock"}
	for _, tc := range []struct {
		name string
		env  []string // nil: no SSH_AUTH_SOCK
		args []string
		want string // in stderr
	}{
		// Files named by flags: known_hosts, identity, no way to authenticate.
		{"known-hosts missing", agent, []string{"status", "--target", tgt, "--known-hosts", "nosuch.known"}, "--known-hosts"},
		{"known-hosts malformed", agent, []string{"status", "--target", tgt, "--known-hosts", "bad.known"}, "--known-hosts"},
		{"known-hosts not given", agent, []string{"status", "--target", tgt}, "--known-hosts is required"},
		{"identity missing", nil, []string{"status", "--target", tgt, "--known-hosts", "hosts.known", "--identity", "nosuch_id"}, "--identity"},
		{"identity malformed", nil, []string{"status", "--target", tgt, "--known-hosts", "hosts.known", "--identity", "bad_id"}, "not a private key"},
		{"identity a known_hosts", nil, []string{"status", "--target", tgt, "--known-hosts", "hosts.known", "--identity", "hosts.known"}, "not a private key"},
		{"no identity and no agent", nil, []string{"status", "--target", tgt, "--known-hosts", "hosts.known"}, "no --identity and no ssh-agent"},
		{"up: no identity and no agent", nil, []string{"up", "--profile", "caddy", "--target", tgt, "--known-hosts", "hosts.known"}, "no --identity and no ssh-agent"},
		{"target malformed", agent, []string{"status", "--target", "ssh://", "--known-hosts", "hosts.known"}, "missing host"},

		// h3probe's URL.
		{"h3probe malformed URL", nil, []string{"h3probe", "https://[::1"}, "want https://HOST"},
		{"h3probe http URL", nil, []string{"h3probe", "http://127.0.0.1:1/"}, "https only"},
		{"h3probe no host", nil, []string{"h3probe", "https:///x"}, "want https://HOST"},
		{"h3probe --timeout -1s", nil, []string{"h3probe", "--timeout", "-1s", "https://127.0.0.1:1/"}, "--timeout -1s"},

		// bench's flags.
		{"bench ftp URL", nil, []string{"bench", "--url", "ftp://127.0.0.1/", "--duration", "1s"}, "want http:// or https://"},
		{"bench URL without scheme", nil, []string{"bench", "--url", "127.0.0.1:8080/", "--duration", "1s"}, "want http:// or https://"},
		{"bench --proto h9", nil, []string{"bench", "--url", url, "--proto", "h9"}, `proto "h9"`},
		{"bench --method POST", nil, []string{"bench", "--url", url, "--method", "POST"}, `method "POST"`},
		{"bench -H nocolon", nil, []string{"bench", "--url", url, "-H", "nocolon"}, `header "nocolon"`},
		{"bench --rate -1", nil, []string{"bench", "--url", url, "--rate", "-1"}, "rate -1"},
		{"bench --rate NaN", nil, []string{"bench", "--url", url, "--rate", "NaN"}, "rate NaN"},
		{"bench --rate +Inf", nil, []string{"bench", "--url", url, "--rate", "+Inf"}, "rate +Inf"},
		{"bench --duration -1s", nil, []string{"bench", "--url", url, "--duration", "-1s"}, "--duration -1s"},
		{"bench --warmup -5s", nil, []string{"bench", "--url", url, "--warmup", "-5s"}, "--warmup -5s"},
		{"bench --timeout -1s", nil, []string{"bench", "--url", url, "--timeout", "-1s"}, "--timeout -1s"},
		{"bench -n -1", nil, []string{"bench", "--url", url, "-n", "-1"}, "-n -1"},
		{"bench crowd --give-up -1s", nil, []string{"bench", "--scenario", "crowd", "--url", url, "--give-up", "-1s"}, "--give-up -1s"},
		{"bench crowd --probe-url ftp", nil, []string{"bench", "--scenario", "crowd", "--url", url, "--probe-url", "ftp://127.0.0.1/"}, "want http:// or https://"},
		{"bench ab second URL bad", nil, []string{"bench", "--scenario", "ab", "--url", url, "--url", "gopher://127.0.0.1/"}, "want http:// or https://"},

		// srvstat's interval.
		{"srvstat --interval -1s", nil, []string{"srvstat", "--interval", "-1s"}, "--interval -1s"},
		{"srvstat --interval 0s", nil, []string{"srvstat", "--interval", "0s"}, "--interval 0s"},
		{"srvstat --duration -1s", nil, []string{"srvstat", "--duration", "-1s"}, "--duration -1s"},

		// run's targets and the files its machines need.
		{"run --target ssh://", agent, []string{"run", quick, "--target", "ssh://"}, "missing host"},
		{"run --target ssh://host/path", agent, []string{"run", quick, "--target", "ssh://root@127.0.0.1:1/x", "--known-hosts", "hosts.known"}, "unexpected path"},
		{"run --target ssh:// with password", agent, []string{"run", quick, "--target", "ssh://root:hunter2@127.0.0.1:1"}, "passwords are not accepted"},
		{"run --target ftp://", agent, []string{"run", quick, "--target", "ftp://127.0.0.1"}, "want hetzner, local"},
		{"run static: no known_hosts", agent, []string{"run", quick, "--target", tgt, "--identity", "id_ed25519"}, "known_hosts is required"},
		{"run static: known_hosts malformed", agent, []string{"run", quick, "--target", tgt, "--known-hosts", "bad.known", "--identity", "id_ed25519"}, "known_hosts"},
		{"run static: target not pinned", agent, []string{"run", quick, "--target", "ssh://root@127.0.0.1:2", "--known-hosts", "hosts.known", "--identity", "id_ed25519"}, "has no pin"},
		{"run static: no identity", agent, []string{"run", quick, "--target", tgt, "--known-hosts", "hosts.known"}, "no identity"},
		{"run static: identity malformed", agent, []string{"run", quick, "--target", tgt, "--known-hosts", "hosts.known", "--identity", "bad_id"}, "not a private key"},
		{"run --runs a file", agent, []string{"run", quick, "--target", "local", "--runs", "notes.txt"}, "--runs"},

		// Places to write that hold something: refused, untouched.
		{"fixture build --out a file", nil, []string{"fixture", "build", "--fixture", "minimal", "--out", "notes.txt"}, "not a directory"},
		{"fixture build --out a non-empty dir", nil, []string{"fixture", "build", "--fixture", "minimal", "--out", "full"}, "not empty"},
		{"fixture lock --lock not a lock", nil, []string{"fixture", "lock", "--fixture", "minimal", "--lock", "notes.txt"}, "notes.txt"},
		{"seed --manifest-out a file", nil, []string{"seed", "--target", "local", "--manifest-out", "notes.txt"}, "--manifest-out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sshFiles(t, dir)
			before := snapshot(t, dir)
			var out, errb bytes.Buffer
			code := Run(context.Background(), &App{Args: tc.args, Env: tc.env, Stdout: &out, Stderr: &errb, WorkDir: dir})
			stderr := errb.String()
			if code != 2 {
				t.Errorf("exit %d, want 2 (usage/config); stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "--resume") {
				t.Errorf("a --resume hint for a run that never started:\n%s", stderr)
			}
			if strings.Contains(stderr+out.String(), "hunter2") {
				t.Errorf("the target's password is in the output:\n%s", stderr)
			}
			after := snapshot(t, dir)
			for p, v := range after {
				if w, ok := before[p]; !ok {
					t.Errorf("created %s", p)
				} else if w != v {
					t.Errorf("changed %s: %q, was %q", p, v, w)
				}
			}
			for p := range before {
				if _, ok := after[p]; !ok {
					t.Errorf("removed %s", p)
				}
			}
		})
	}
}

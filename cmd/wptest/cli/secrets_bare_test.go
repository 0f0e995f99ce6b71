package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
)

// TestBareHostSecretsInNoArgvOrEnviron: on a Debian host with the
// servers' packages (baked.Servers: no secret is in an apt install; its
// mod_ruid2 marker removed, so the build runs again), while
// `up` builds mod_ruid2 from a URL that holds a user and password (served
// here, answering only with them and only after a while, so curl lives
// long enough to be seen), while `apply` fetches and builds it again and
// checks the site's database credentials, and while `seed` runs,
// a watcher sweeps every process's argv (what ps shows every user, the
// site user too) and environ, over and over, for the URL's password and
// the site database's password (in every argv, and in every environ the
// site user may read) and a token in the wptest process's environment (in
// every environ): none is ever seen. Then verify, with a link to /dev/zero at the site's
// marker and a link to a root-only file at wp-config.php, exits 5 naming
// each, printing nothing of the file, in bounded memory.
func TestBareHostSecretsInNoArgvOrEnviron(t *testing.T) {
	t.Parallel() // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	testenv.NeedBinary(t, "go")
	hs := baked.Hosts(t, baked.Servers, "web")
	bh := hs[0]
	ctx := context.Background()
	h, conn, sh := bareHost(t, bh)
	// The token is in the environment of the wptest process that runs up,
	// apply and seed (the built binary, as a user runs it: a test that
	// runs in parallel may not set its own environment).
	const token = "hcloud-canary-9b2e7d41"
	const urlPW = "S3cretPW-e2e-c41d"
	src, served := ruid2Server(t, bh.Gateway, "alice", urlPW)
	agent := buildAgent(t) // the package's one build
	wptestExe := func(args ...string) (int, string) {
		cmd := exec.CommandContext(ctx, agent, append(args, conn...)...)
		cmd.Env = append(os.Environ(), "HCLOUD_TOKEN="+token)
		out, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("wptest %s: %v", args[0], err)
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	// verify runs in this process, whose heap the watchdog bounds.
	wptest := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Run(ctx, &App{Args: append(args, conn...), Stdout: &stdout, Stderr: &stderr, Env: os.Environ()})
		return code, stdout.String() + stderr.String()
	}
	profile := []string{"--profile", "cpanel-apache", "-var", "ruid2_source_url=" + src}

	// The image's mod_ruid2 was built from the pinned copy: without its
	// marker, up fetches it from the URL as on a fresh host.
	sh("rm /usr/lib/apache2/modules/mod_ruid2.so.built")
	watcherSees(t, h)
	w := startWatcher(t, h, "user "+urlPW, "all "+token)
	code, out := wptestExe(append([]string{"up", "--agent", agent}, profile...)...)
	w.stop(t, "up")
	if code != 0 {
		t.Fatalf("up: exit %d\n%s", code, out)
	}
	if n := served.Load(); n < 1 {
		t.Fatalf("the mod_ruid2.c server answered no request with the credentials: curl did not get them")
	}
	if strings.Contains(out, urlPW) {
		t.Errorf("up printed the URL's password:\n%s", out)
	}

	// The site database's password (root's file), which apply checks
	// the site's credentials file against; mod_ruid2 is built (fetched)
	// again.
	res, err := h.Run(ctx, host.Cmd{Script: `. /etc/wptest/site-db.env && printf '%s' "$DB_PASSWORD"`, SecretStdout: true})
	if err != nil || len(res.Stdout) < 8 {
		t.Fatalf("the site database's password: %v", err)
	}
	dbPW := string(res.Stdout)
	const doc = "/home/wpsite/public_html"
	asSite := func(script string) {
		t.Helper()
		sh("cd / && setpriv --reuid=wpsite --regid=wpsite --init-groups -- sh -ec " + host.Quote(script))
	}
	sh("rm /usr/lib/apache2/modules/mod_ruid2.so.built")
	before := served.Load()
	w = startWatcher(t, h, "user "+urlPW, "all "+token, "user "+dbPW)
	code, out = wptestExe(append([]string{"apply"}, profile...)...)
	w.stop(t, "apply")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, out)
	}
	if served.Load() == before {
		t.Errorf("apply did not fetch mod_ruid2.c again")
	}

	w = startWatcher(t, h, "user "+urlPW, "all "+token, "user "+dbPW)
	code, out = wptestExe("seed", "--fixture", "minimal")
	w.stop(t, "seed")
	if code != 0 {
		t.Fatalf("seed: exit %d\n%s", code, out)
	}
	if strings.Contains(out, dbPW) {
		t.Errorf("seed printed the database password")
	}

	// verify: the site user's links where root would read.
	sh("umask 077 && printf 'root only: 31d7\\n' >/root/secret")
	stopHeap := heapWatchdog(512 << 20)
	defer stopHeap()
	asSite("cd " + doc + " && mv .wptest-fixture.json marker.bak && ln -s /dev/zero .wptest-fixture.json")
	if code, out := wptest("verify"); code != int(exitcode.Mismatch) || !strings.Contains(out, ".wptest-fixture.json") {
		t.Errorf("verify, the marker a link to /dev/zero: exit %d, want 5 naming it:\n%s", code, out)
	}
	asSite("cd " + doc + " && mv -f marker.bak .wptest-fixture.json && mv wp-config.php cfg.bak && ln -s /root/secret wp-config.php")
	code, out = wptest("verify")
	if code != int(exitcode.Mismatch) || !strings.Contains(out, "MISMATCH file wp-config.php: a symlink") {
		t.Errorf("verify, wp-config.php a link to a root-only file: exit %d, want 5 naming it:\n%s", code, out)
	}
	if strings.Contains(out, "root only") || strings.Contains(out, "(17 bytes") {
		t.Errorf("verify printed of the root-only file:\n%s", out)
	}
}

// ruid2Server serves the pinned mod_ruid2.c on addr's host (the bare
// host's gateway) to user:pw only, each answer after 3 s (so the curl
// fetching it lives long enough for the watcher to see it); it returns
// the URL with the credentials and the count of answers given.
func ruid2Server(t *testing.T, addr, user, pw string) (string, *atomic.Int64) {
	t.Helper()
	body, err := os.ReadFile(testenv.Ruid2Source(t))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pw {
			w.Header().Set("WWW-Authenticate", `Basic realm="wptest"`)
			http.Error(w, "credentials, please", http.StatusUnauthorized)
			return
		}
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
			return
		}
		served.Add(1)
		w.Write(body)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return fmt.Sprintf("http://%s:%s@%s/mod_ruid2.c", user, pw, l.Addr()), &served
}

// watcher sweeps, on the host, every process's argv and environ for
// needles until stopped; what it finds arrives on hit.
type watcher struct {
	h      host.Host
	stopF  string
	hit    chan string
	done   chan error
	mu     sync.Mutex
	out    bytes.Buffer
	sweeps string
}

// watchScript reads its needles from stdin, one a line as "SCOPE NEEDLE"
// (never in an argv, where it would find itself), and sweeps /proc until
// $stop exists: the argv of every process (what ps shows every user), and
// the environ of every process for scope "all" (a token of the
// operator's must be in none), of those the site user may read for scope
// "user" (read with the site user's uid and gid as effective ids, root's
// capabilities dropped meanwhile: /proc/PID/environ is its owner's; as
// nobody before the site user exists). It prints "HIT where: what" for a
// find and "sweeps N" at the end. One perl process (perl-base is in every
// Debian) reads /proc itself, 50 times a second: a shell loop that forked
// tr for every process swept 3 times a second on a busy machine and took
// a CPU of the host's to do it.
const watchScript = `exec perl -e '
use strict;
my $stop = shift;
my @n;
while (my $l = <STDIN>) { chomp $l; my ($scope, $x) = split(/ /, $l, 2); push @n, [$scope, $x] if length($x // ""); }
$| = 1;
sub slurp { open(my $fh, "<", $_[0]) or return undef; local $/; my $s = <$fh>; close $fh; return $s; }
sub hit { printf("HIT %s: needle %d in %s\n", $_[1], $_[0], substr($_[2], 0, 300)); }
my $sweeps = 0;
until (-e $stop) {
	my @u = getpwnam("wpsite");
	@u = getpwnam("nobody") unless @u;
	@u or die "neither wpsite nor nobody is a user here";
	opendir(my $d, "/proc") or die "/proc: $!";
	my @pids = grep { /^[0-9]+$/ && $_ != $$ } readdir($d);
	closedir($d);
	my (%argv, %mine);
	for my $p (@pids) {
		my $a = slurp("/proc/$p/cmdline");
		next unless defined $a && length $a;
		$a =~ tr/\0/ /;
		$argv{$p} = $a;
		for my $i (0 .. $#n) { hit($i + 1, "argv of $p", $a) if index($a, $n[$i][1]) >= 0; }
	}
	$) = "$u[3] $u[3]";
	$> = $u[2];
	$> == $u[2] or die "euid $u[2]: $!";
	for my $p (@pids) { my $e = slurp("/proc/$p/environ"); $mine{$p} = $e if defined $e; }
	$> = 0;
	$) = "0 0";
	for my $p (@pids) {
		my $all = slurp("/proc/$p/environ");
		next unless defined $all;
		for my $i (0 .. $#n) {
			my ($scope, $x) = @{$n[$i]};
			my $e = $scope eq "all" ? $all : $mine{$p};
			hit($i + 1, "environ of $p ($scope)", $argv{$p} // "") if defined $e && index($e, $x) >= 0;
		}
	}
	$sweeps++;
	select(undef, undef, undef, 0.02);
}
unlink $stop;
print "sweeps $sweeps\n";
' "$stop"`

func startWatcher(t *testing.T, h host.Host, needles ...string) *watcher {
	t.Helper()
	w := &watcher{h: h, stopF: "/run/wptest-watch-stop-" + fmt.Sprint(time.Now().UnixNano()), hit: make(chan string, 100), done: make(chan error, 1)}
	started := make(chan struct{})
	go func() {
		_, err := h.Run(context.Background(), host.Cmd{Script: "stop=" + host.Quote(w.stopF) + "\necho watching >&2\n" + watchScript,
			Stdin: strings.NewReader(strings.Join(needles, "\n") + "\n"), Stdout: w, Stderr: &startSignal{c: started}, Timeout: time.Hour, Label: "watch"})
		w.done <- err
	}()
	select {
	case <-started:
	case err := <-w.done:
		t.Fatalf("the watcher did not start: %v", err)
	}
	return w
}

// Write takes the watcher's output: a HIT line goes to hit as well.
func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.Write(p)
	for _, l := range strings.Split(string(p), "\n") {
		if strings.HasPrefix(l, "HIT ") {
			select {
			case w.hit <- l:
			default:
			}
		}
	}
	return len(p), nil
}

// stop ends the watcher and fails t for anything it saw while what ran.
func (w *watcher) stop(t *testing.T, what string) {
	t.Helper()
	if _, err := w.h.Run(context.Background(), host.Cmd{Script: "touch " + host.Quote(w.stopF)}); err != nil {
		t.Fatal(err)
	}
	if err := <-w.done; err != nil {
		t.Fatalf("the watcher during %s: %v", what, err)
	}
	w.mu.Lock()
	out := w.out.String()
	w.mu.Unlock()
	if strings.Contains(out, "HIT ") {
		t.Errorf("during %s, a secret was seen:\n%s", what, out)
	}
	t.Logf("watcher during %s: %s", what, strings.TrimSpace(out[strings.LastIndex(out, "sweeps"):]))
	if !strings.Contains(out, "sweeps ") || strings.Contains(out, "sweeps 0\n") {
		t.Errorf("the watcher did not sweep during %s:\n%s", what, out)
	}
}

// watcherSees proves the watcher can fail: it sees a needle in a
// process's argv, in root's environ (scope all), in the environ of a
// process of the user it reads as (scope user), and of another user's
// process as root (scope all), and not in root's environ for scope user. The canaries' values are in no argv (the script comes
// on stdin; VAR=value before a command is the shell's).
func watcherSees(t *testing.T, h host.Host) {
	t.Helper()
	w := startWatcher(t, h, "all canary-argv-5e1", "all canary-env-5e2", "user canary-user-5e3", "user canary-root-5e4", "all canary-other-5e5")
	if _, err := h.Run(context.Background(), host.Cmd{Label: "canaries", Timeout: time.Minute, Script: `u=wpsite; id -u $u >/dev/null 2>&1 || u=nobody
W=canary-env-5e2 sleep 2 &
W=canary-user-5e3 setpriv --reuid=$u --regid="$(id -g $u)" --clear-groups sleep 2 &
W=canary-root-5e4 sleep 2 &
W=canary-other-5e5 setpriv --reuid=$u --regid="$(id -g $u)" --clear-groups sleep 2 &
sh -c 'sleep 2' canary-argv-5e1 &
wait`}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.h.Run(context.Background(), host.Cmd{Script: "touch " + host.Quote(w.stopF)}); err != nil {
		t.Fatal(err)
	}
	if err := <-w.done; err != nil {
		t.Fatalf("the watcher: %v", err)
	}
	w.mu.Lock()
	out := w.out.String()
	w.mu.Unlock()
	for i, where := range []string{"argv of", "environ of", "environ of", "", "environ of"} {
		if where == "" {
			continue
		}
		if !regexp.MustCompile(`(?m)^HIT ` + where + ` [0-9]+( \((all|user)\))?: needle ` + fmt.Sprint(i+1) + ` in `).MatchString(out) {
			t.Errorf("the watcher did not see needle %d (in the %s a process) over 2 s:\n%s", i+1, where, out)
		}
	}
	if strings.Contains(out, "needle 4 in") {
		t.Errorf("the watcher saw root's environ as the site user:\n%s", out)
	}
}

// startSignal closes c at the first byte written.
type startSignal struct {
	once sync.Once
	c    chan struct{}
}

func (s *startSignal) Write(p []byte) (int, error) {
	s.once.Do(func() { close(s.c) })
	return len(p), nil
}

var _ io.Writer = (*watcher)(nil)

package srvstat

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// The test server's groups, as the cPanel profile declares them: Apache,
// and PHP: the CGI binary by its cPanel name (a symlink's: comm ea-php82)
// or its own (php-cgi8.2), and php-fpm, running as the site user (here
// Apache's www-data; php-fpm's master runs as root, so it is not PHP's).
var serverGroups = []Group{
	{Name: "web", Exe: []string{"apache2"}},
	{Name: "php", Exe: []string{"ea-php82", "php-cgi8.2", "php-fpm8.2"}, Users: []string{"www-data"}},
}

// Apache prefork runs PHP three ways: cPanel's (the handler is a symlink to
// php-cgi, exec'd by the worker), through a shell wrapper that runs php-cgi
// as its child (both exit per request: a child exits with its parent
// between two samples), and PHP-FPM, whose workers exit after 3 requests.
const phpConf = `
LoadModule alias_module /usr/lib/apache2/modules/mod_alias.so
LoadModule cgi_module /usr/lib/apache2/modules/mod_cgi.so
LoadModule actions_module /usr/lib/apache2/modules/mod_actions.so
LoadModule proxy_module /usr/lib/apache2/modules/mod_proxy.so
LoadModule proxy_fcgi_module /usr/lib/apache2/modules/mod_proxy_fcgi.so
ScriptAlias /cgi-sys/ {{.Dir}}/cgi-sys/
ScriptAlias /cgi-wrap/ {{.Dir}}/cgi-wrap/
<Directory {{.Dir}}/cgi-sys>
  Options +ExecCGI +FollowSymLinks
  Require all granted
</Directory>
<Directory {{.Dir}}/cgi-wrap>
  Options +ExecCGI
  Require all granted
</Directory>
Action application/x-httpd-ea-php82 /cgi-sys/ea-php82
Action application/x-wrapped-php /cgi-wrap/ea-php82
<Directory {{.Dir}}/www/direct>
  AddHandler application/x-httpd-ea-php82 .php
</Directory>
<Directory {{.Dir}}/www/wrapped>
  AddHandler application/x-wrapped-php .php
</Directory>
<Directory {{.Dir}}/www/fpm>
  <FilesMatch "\.php$">
    SetHandler "proxy:unix:{{.Dir}}/fpm.sock|fcgi://localhost"
  </FilesMatch>
</Directory>
`

const fpmConf = `[global]
pid = %[1]s/fpm.pid
error_log = %[1]s/fpm.log
daemonize = no
[www]
user = www-data
group = www-data
listen = %[1]s/fpm.sock
listen.owner = www-data
listen.group = www-data
listen.mode = 0660
pm = static
pm.max_children = 2
pm.max_requests = 3
`

// burnPHP uses a few ms of CPU and answers.
const burnPHP = "<?php $x = 0; for ($i = 0; $i < 300000; $i++) { $x += $i % 7; } echo $x, \"\\n\";\n"

// phpServer is Apache prefork (4 workers) running PHP the three ways, and PHP-FPM.
type phpServer struct {
	*testsrv.Server
	apache []int // Apache's processes: parent and workers
	urls   []string
}

func startPHPServer(t *testing.T) *phpServer {
	t.Helper()
	phpCGI := testenv.NeedBinary(t, "php-cgi8.2")
	fpm := testenv.NeedBinary(t, "php-fpm8.2")
	s := testsrv.StartApache(t, testsrv.ApacheOptions{MPM: "prefork", MaxRequestWorkers: 4, Extra: phpConf})
	dir := s.Dir
	for _, d := range []string{"cgi-sys", "cgi-wrap", "www/direct", "www/wrapped", "www/fpm"} {
		must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	must(t, os.Symlink(phpCGI, filepath.Join(dir, "cgi-sys/ea-php82")))
	must(t, os.WriteFile(filepath.Join(dir, "cgi-wrap/ea-php82"), []byte("#!/bin/sh\n"+phpCGI+"\n"), 0o755))
	for _, d := range []string{"direct", "wrapped", "fpm"} {
		must(t, os.WriteFile(filepath.Join(dir, "www", d, "burn.php"), []byte(burnPHP), 0o644))
	}
	conf := filepath.Join(dir, "fpm.conf")
	must(t, os.WriteFile(conf, []byte(fmt.Sprintf(fpmConf, dir)), 0o644))
	cmd := exec.Command(fpm, "-F", "-y", conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	must(t, cmd.Start())
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	testenv.WaitFor(t, time.Minute, "php-fpm's socket", func() bool { _, err := os.Stat(filepath.Join(dir, "fpm.sock")); return err == nil })
	ps := &phpServer{Server: s}
	for _, d := range []string{"direct", "wrapped", "fpm"} {
		u := s.URL("/" + d + "/burn.php")
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != "899997" {
			t.Fatalf("%s: %s %q\n%s", u, resp.Status, b, s.Log())
		}
		ps.urls = append(ps.urls, u)
	}
	// Prefork started its 4 workers, and keeps them (MaxSpareServers 4).
	testenv.WaitFor(t, time.Minute, "Apache's 4 workers", func() bool {
		ps.apache = append(ps.apache[:0], s.Pid())
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if st, ok := readStatFields(pid); ok && st.ppid == s.Pid() && st.comm == "apache2" {
				ps.apache = append(ps.apache, pid)
			}
		}
		return len(ps.apache) == 5
	})
	return ps
}

type statFields struct {
	comm string
	ppid int
}

func readStatFields(pid int) (statFields, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return statFields{}, false
	}
	i, j := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[j+1:]))
	ppid, _ := strconv.Atoi(f[1])
	return statFields{comm: string(b[i+1 : j]), ppid: ppid}, true
}

// bracketed is a sample with the cgroup's usage and the clock read just
// before and just after it: the truth at the sample lies between.
type bracketed struct {
	smp              Sample
	usageLo, usageHi uint64    // cgroup CPU, ns
	webLo, webHi     uint64    // Apache's processes' own CPU, ns
	tLo, tHi         time.Time // wall clock
}

func sampleBracketed(t *testing.T, s *Sampler, cg string, web []int) bracketed {
	t.Helper()
	var b bracketed
	b.tLo = time.Now()
	b.webLo = clocks(t, web)
	b.usageLo = cgroupUsage(t, cg)
	b.smp = sample(t, s)
	b.usageHi = cgroupUsage(t, cg)
	b.webHi = clocks(t, web)
	b.tHi = time.Now()
	return b
}

func clocks(t *testing.T, pids []int) uint64 {
	sum := uint64(0)
	for _, pid := range pids {
		c, ok := procClock(pid)
		if !ok {
			t.Fatalf("Apache's process %d is gone: the web group's truth is lost", pid)
		}
		sum += c
	}
	return sum
}

func groupSum(s Sample) float64 {
	sum := 0.0
	for _, u := range s.Groups {
		sum += u.CPUSec
	}
	return sum
}

// checkInvariants checks, for every pair of samples a before b in ss
// (each interval, and the whole run):
//
//	(a) every group's CPU ≤ CPUs × the time between them (+ a's rounding),
//	    or ≤ the kernel's count for the cgroup when that is more;
//	(b) the groups' sum = the CPU the cgroup's processes used, within the
//	    samples' rounding (cpu_rounding_s: b's below, a's above).
//
// The truth at a sample lies between the cgroup's usage read just before
// it and just after it (plus a tick per CPU: usage is as of the kernel's
// last update of the tasks running then).
func checkInvariants(t *testing.T, name string, ss []bracketed) {
	t.Helper()
	ahead := 0 // intervals where the kernel's count ran ahead of the wall clock
	defer func() {
		t.Logf("%s: in %d of %d intervals the kernel counted more CPU for these processes than CPUs × wall time", name, ahead, len(ss)-1)
	}()
	pairs := [][2]int{{0, len(ss) - 1}}
	for i := 1; i < len(ss); i++ {
		pairs = append(pairs, [2]int{i - 1, i})
	}
	for _, p := range pairs {
		a, b := ss[p[0]], ss[p[1]]
		got := groupSum(b.smp) - groupSum(a.smp)
		// The cgroup's usage, like a process's time, is behind by up to a
		// tick for each task running on a CPU when it is read.
		stale := float64(b.smp.CPUs) * 0.01
		lo := float64(int64(b.usageLo)-int64(a.usageHi))/1e9 - stale - b.smp.CPURoundingS
		hi := float64(b.usageHi-a.usageLo)/1e9 + stale + a.smp.CPURoundingS
		if got < lo-1e-9 || got > hi+1e-9 {
			t.Errorf("%s, samples %d..%d: the groups used %.4f s, the cgroup %.4f..%.4f s (rounding %.2f/%.2f s): %v", name, p[0], p[1], got,
				float64(int64(b.usageLo)-int64(a.usageHi))/1e9, float64(b.usageHi-a.usageLo)/1e9, a.smp.CPURoundingS, b.smp.CPURoundingS, groupDeltas(a.smp, b.smp))
		}
		// (a) against the wall clock; but on a VM the kernel's CPU time can
		// run ahead of it over a short span (here, under stress-ng: the
		// whole machine's cpuacct usage over 20 ms intervals exceeded 2
		// CPUs × wall time in 3% of them, by up to 0.15 s): then the
		// kernel's own count for these processes is the limit.
		span := b.tHi.Sub(a.tLo).Seconds()
		limit := float64(b.smp.CPUs) * span
		if kernel := float64(b.usageHi-a.usageLo) / 1e9; kernel > limit {
			ahead++
			limit = kernel + stale
		}
		for g, u := range b.smp.Groups {
			d := u.CPUSec - a.smp.Groups[g].CPUSec
			if d > limit+a.smp.CPURoundingS+1e-9 || d < -1e-9 {
				t.Errorf("%s, samples %d..%d: group %s used %.4f s in %.4f s on %d CPUs (rounding %.2f s at the first): %v", name, p[0], p[1], g, d, span, b.smp.CPUs, a.smp.CPURoundingS, groupDeltas(a.smp, b.smp))
			}
		}
	}
}

func groupDeltas(a, b Sample) string {
	var p []string
	for _, g := range GroupNames([]Sample{a, b}) {
		p = append(p, fmt.Sprintf("%s %.4f (%d exits)", g, b.Groups[g].CPUSec-a.Groups[g].CPUSec, b.Groups[g].Exits-a.Groups[g].Exits))
	}
	return strings.Join(p, ", ")
}

// Under Apache prefork with a CGI per request (direct, and wrapped in a
// shell that exits with it) and PHP-FPM recycling its workers, both
// invariants hold in every sample and over the run, with and without
// process accounting; with it, the web group is exactly Apache's own
// processes' CPU: PHP that lived less than an interval is PHP's.
func TestInvariantsUnderPreforkCGIAndFPM(t *testing.T) {
	cg, inside := inNamespace(t)
	if !inside {
		return
	}
	ab := testenv.NeedBinary(t, "ab")
	srv := startPHPServer(t)
	withAcct := New(Config{Groups: serverGroups, NoPSS: true, Acct: true})
	defer withAcct.Close()
	byParent := New(Config{Groups: serverGroups, NoPSS: true})
	defer byParent.Close()
	var acct, parents []bracketed
	both := func() {
		acct = append(acct, sampleBracketed(t, withAcct, cg, srv.apache))
		parents = append(parents, sampleBracketed(t, byParent, cg, srv.apache))
	}
	both()
	if withAcct.acct == nil {
		t.Fatalf("no process accounting in a pid namespace of our own, as root: %s", withAcct.AcctError())
	}
	// Three ab runs side by side; samples every 20 ms while they run (the
	// cadence only decides how many processes are seen mid-life).
	var runs []*exec.Cmd
	var outs []*testenv.SyncBuffer
	for _, u := range srv.urls {
		var out testenv.SyncBuffer
		c := exec.Command(ab, "-q", "-n", "40", "-c", "2", u)
		c.Stdout, c.Stderr = &out, &out
		must(t, c.Start())
		runs, outs = append(runs, c), append(outs, &out)
	}
	done := make(chan error, len(runs))
	for _, c := range runs {
		go func() { done <- c.Wait() }()
	}
	tk := time.NewTicker(20 * time.Millisecond)
	defer tk.Stop()
	for finished := 0; finished < len(runs); {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("ab: %v", err)
			}
			finished++
		case <-tk.C:
			both()
		}
	}
	both()
	for i, o := range outs {
		if !strings.Contains(o.String(), "Failed requests:        0") || strings.Contains(o.String(), "Non-2xx") {
			t.Fatalf("ab %s:\n%s", srv.urls[i], o.String())
		}
	}
	checkInvariants(t, "with process accounting", acct)
	checkInvariants(t, "by parents", parents)

	first, last := acct[0], acct[len(acct)-1]
	web := last.smp.Groups["web"].CPUSec - first.smp.Groups["web"].CPUSec
	for _, r := range []struct {
		name string
		ss   []bracketed
	}{{"with accounting", acct}, {"by parents", parents}} {
		a, b := r.ss[0], r.ss[len(r.ss)-1]
		t.Logf("%s, %d samples: groups' sum %.4f s, cgroup %.4f..%.4f s: %s", r.name, len(r.ss), groupSum(b.smp)-groupSum(a.smp),
			float64(int64(b.usageLo)-int64(a.usageHi))/1e9, float64(b.usageHi-a.usageLo)/1e9, groupDeltas(a.smp, b.smp))
	}
	t.Logf("Apache's processes themselves %.4f s (web also has its children's CPU before they exec'd); %d exited processes not accounted for",
		float64(last.webHi-first.webLo)/1e9, withAcct.lost)
	// Every exit in its group: the 3 ab runs in other; 40 direct CGIs, 40
	// wrappers and their 40 php-cgi, and at least 13 php-fpm workers
	// (2 workers, 3 requests each, 40 requests) in php, php-fpm's running
	// as www-data since their fork (read while still root, then again).
	exits := func(ss []bracketed, g string) int64 {
		return ss[len(ss)-1].smp.Groups[g].Exits - ss[0].smp.Groups[g].Exits
	}
	if exits(acct, Other) != 3 || exits(parents, Other) != 3 || exits(acct, "php") < 133 || exits(acct, "web") != 0 {
		t.Errorf("exits: other %d and %d (by parents), want 3 (ab); php %d, want ≥ 133; web %d, want 0",
			exits(acct, Other), exits(parents, Other), exits(acct, "php"), exits(acct, "web"))
	}
	if web <= 0 || last.smp.ExitsFrom != "acct" || parents[0].smp.ExitsFrom != "parents" {
		t.Errorf("web %.4f s, exits from %q and %q", web, last.smp.ExitsFrom, parents[0].smp.ExitsFrom)
	}
}

// A process that starts and ends between two samples counts in its own
// group with process accounting, exactly: its reaper's cutime gives the
// amount (the kernel's wait4 figure, to the reaper's tick rounding), its
// exit record the group. Without accounting it counts in its parent's.
func TestShortLivedProcessesCountInTheirOwnGroup(t *testing.T) {
	_, inside := inNamespace(t)
	if !inside {
		return
	}
	sh := testenv.NeedBinary(t, "sh")
	dir := t.TempDir()
	burn := filepath.Join(dir, "srvstat-burn")
	must(t, os.Symlink(sh, burn))
	groups := []Group{{Name: "burn", Exe: []string{"srvstat-burn"}}}
	// Go forks once, on its first exec, to probe for clone's pidfd: not here.
	must(t, exec.Command(sh, "-c", "exit 0").Run())
	withAcct := New(Config{Groups: groups, NoPSS: true, Acct: true})
	defer withAcct.Close()
	byParent := New(Config{Groups: groups, NoPSS: true})
	defer byParent.Close()
	a0, p0 := sample(t, withAcct), sample(t, byParent)
	if withAcct.acct == nil {
		t.Fatalf("no process accounting: %s", withAcct.AcctError())
	}
	// Five burners, one after the other, reaped by this process (other):
	// the last one runs a burner of its own (a grandchild). No sample sees them.
	used := time.Duration(0)
	for i := range 5 {
		script := "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"
		if i == 4 {
			script = burn + " -c '" + script + "'; " + script
		}
		c := exec.Command(burn, "-c", script)
		must(t, c.Run())
		used += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	a1, p1 := sample(t, withAcct), sample(t, byParent)
	got := a1.Groups["burn"].CPUSec - a0.Groups["burn"].CPUSec
	// This process's cutime and cstime are rounded down to ticks, apart,
	// at each sample: their growth is within 2 ticks of the truth either
	// way; the children's rusage is in µs.
	if d := got - used.Seconds(); d < -0.02-1e-5 || d > 0.02+1e-5 || a1.Groups["burn"].Exits-a0.Groups["burn"].Exits != 6 {
		t.Errorf("with accounting: burn used %.4f s (%d exits); its processes used %.4f s (6 exits)", got, a1.Groups["burn"].Exits-a0.Groups["burn"].Exits, used.Seconds())
	}
	if b := p1.Groups["burn"].CPUSec - p0.Groups["burn"].CPUSec; b != 0 || p1.Groups[Other].CPUSec-p0.Groups[Other].CPUSec < used.Seconds()-0.02 {
		t.Errorf("by parents: burn %.4f s, other %.4f s; the burners used %.4f s", b, p1.Groups[Other].CPUSec-p0.Groups[Other].CPUSec, used.Seconds())
	}
	t.Logf("burners used %.4f s; with accounting the burn group %.4f s", used.Seconds(), got)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

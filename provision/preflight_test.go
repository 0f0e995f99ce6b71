package provision

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wptest/wptest/host"
)

// TestPreflightLocalHost runs the preflight on this machine with a small
// profile: its lines must say what this host is (compared with what the
// test reads itself) and which of the profile's SELinux and firewalld ops
// would run, having checked those and no other op.
func TestPreflightLocalHost(t *testing.T) {
	ctx := context.Background()
	h := host.NewLocal(nil)
	facts, err := h.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pending := filepath.Join(dir, "labelled")  // absent: selinux_label would run
	touched := filepath.Join(dir, "other-ran") // made only if other's guard runs
	docroot := filepath.Join(dir, "no-such-home", "public_html")
	src := fmt.Sprintf(`
profile {
  description = "preflight test"
  platforms   = [%[1]q]
}
platform %[1]q {
  package_manager = %[2]q
}
command "selinux_label" {
  unless = "test -e %[3]s"
  run    = "true"
}
command "selinux_done" {
  unless = "true"
  run    = "true"
}
command "firewalld_ports" {
  only_if = "false"
  run     = "true"
}
command "other" {
  unless = "touch %[4]s"
  run    = "true"
}
site {
  docroot = %[5]q
  owner   = "root"
  group   = "root"
  php     = "php"
  rewrite = "htaccess"
}
`, facts.Platform, or(facts.PackageManager, "apt"), pending, touched, docroot)
	fsys := fstest.MapFS{"p/main.hcl": {Data: []byte(src)}}
	p, diags := Load(fsys, "p", Vars{})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	r, diags := p.Render(facts.Platform)
	if diags.HasErrors() {
		t.Fatalf("render: %v", diags)
	}
	pf, err := r.Preflight(ctx, h, facts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(touched); err == nil {
		t.Error("the preflight checked command.other: only selinux_* and firewalld_* ops are its business")
	}
	var out bytes.Buffer
	pf.WriteText(&out)
	t.Logf("preflight on this machine:\n%s", out.String())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) > 20 {
		t.Errorf("%d lines: more than one screen", len(lines))
	}
	get := func(what string) []string {
		var l []string
		for _, s := range lines[1:] {
			if strings.HasPrefix(s, fmt.Sprintf("  %-10s ", what)) {
				l = append(l, strings.TrimPrefix(s, fmt.Sprintf("  %-10s ", what)))
			}
		}
		if len(l) == 0 {
			t.Errorf("no %q line in:\n%s", what, out.String())
			l = []string{""}
		}
		return l
	}
	if want := "preflight on local: what the host is, and what profile p will change"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if l := get("platform")[0]; !strings.HasPrefix(l, fmt.Sprintf("%s (%s %s, %s, ", facts.Platform, facts.OSID, facts.OSVersion, facts.Arch)) ||
		!strings.HasSuffix(l, ": the profile's "+facts.Platform+" plan") {
		t.Errorf("platform line %q", l)
	}

	// SELinux: what this machine has (read here from selinuxfs), and the
	// one op that would run.
	se := "absent"
	if b, err := os.ReadFile("/sys/fs/selinux/enforce"); err == nil {
		se = map[string]string{"1": "enforcing", "0": "permissive"}[strings.TrimSpace(string(b))]
	} else if _, err := os.Stat("/etc/selinux/config"); err == nil {
		se = "disabled"
	}
	l := get("SELinux")[0]
	if !strings.HasPrefix(l, se+":") || !strings.Contains(l, "will run command.selinux_label") || strings.Contains(l, "selinux_done") {
		t.Errorf("SELinux line %q: want %s, command.selinux_label to run, selinux_done not", l, se)
	}
	if len(pf.SELinux) != 2 || !pf.SELinux[0].Change || pf.SELinux[1].Change {
		t.Errorf("SELinux ops %+v: want selinux_label to change, selinux_done not", pf.SELinux)
	}
	if l := get("firewalld")[0]; !strings.HasPrefix(l, facts.Firewalld+": ") || strings.Contains(l, "will run") {
		t.Errorf("firewalld line %q: state %s and nothing to run (only_if false)", l, facts.Firewalld)
	}
	wantInit := "none: no systemd"
	if fi, err := os.Stat("/run/systemd/system"); err == nil && fi.IsDir() {
		wantInit = "systemd: "
	}
	if l := get("init")[0]; !strings.HasPrefix(l, wantInit) {
		t.Errorf("init line %q, want %q...", l, wantInit)
	}

	// Memory: the total is /proc/meminfo's (available moves, so only its
	// place in the line is checked).
	total := meminfo(t, "MemTotal")
	if pf.MemTotal != total<<10 || pf.MemAvailable <= 0 || pf.MemAvailable > pf.MemTotal {
		t.Errorf("memory total %d available %d, /proc/meminfo MemTotal %d kB", pf.MemTotal, pf.MemAvailable, total)
	}
	if l := get("memory")[0]; !strings.Contains(l, " available of "+gib(total<<10)) {
		t.Errorf("memory line %q, want ... available of %s", l, gib(total<<10))
	}

	// Disk: every path the profile writes is on a filesystem, the missing
	// docroot on its nearest existing parent's.
	var paths []string
	for _, d := range pf.Disks {
		if d.Free <= 0 || d.Free > d.Total || !strings.HasPrefix(d.Mount, "/") {
			t.Errorf("disk %+v", d)
		}
		paths = append(paths, d.Paths...)
	}
	if strings.Join(paths, " ") != "/ /var/lib "+docroot {
		t.Errorf("disk paths %q, want /, /var/lib and the docroot", paths)
	}
	for _, l := range get("disk") {
		if !strings.Contains(l, " GiB free of ") {
			t.Errorf("disk line %q", l)
		}
	}
	if !strings.Contains(strings.Join(get("disk"), "\n"), docroot) {
		t.Errorf("no disk line names the docroot %s", docroot)
	}
}

func meminfo(t *testing.T, key string) int64 {
	t.Helper()
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && k == key {
			n, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/meminfo", key)
	return 0
}

// The words for each state, without a host: what a user of an enforcing
// AlmaLinux host with firewalld sees.
func TestPreflightText(t *testing.T) {
	pf := &Preflight{
		Host: "web-1", Profile: "caddy", Platform: "almalinux-9",
		Facts:    host.Facts{OSID: "almalinux", OSVersion: "9.8", Platform: "almalinux-9", Arch: "x86_64", Init: "systemd", PackageManager: "dnf", SELinux: "enforcing", Firewalld: "running"},
		MemTotal: 4 << 30, MemAvailable: 512 << 20,
		Disks: []DiskSpace{{Mount: "/", Paths: []string{"/", "/var/lib", "/home/wpsite/public_html"}, Free: 30 << 30, Total: 38 << 30}},
		SELinux: []OpPreview{
			{ID: "command.selinux_site_contexts", Change: true},
			{ID: "command.selinux_fpm_database"},
			{ID: "command.selinux_caddy_ports", Error: "exit 1\nmore"},
		},
		Firewalld: []OpPreview{{ID: "command.firewalld_ports"}},
	}
	var b bytes.Buffer
	pf.WriteText(&b)
	want := `preflight on web-1: what the host is, and what profile caddy will change
  platform   almalinux-9 (almalinux 9.8, x86_64, dnf): the profile's almalinux-9 plan
  SELinux    enforcing: stays enforcing; will run command.selinux_site_contexts; could not check command.selinux_caddy_ports: exit 1; 1 op(s) done already
  firewalld  running: the profile's ports in place
  init       systemd: services are started and enabled with systemctl
  memory     0.5 GiB available of 4.0 GiB (low: MariaDB, PHP and the web server may not all fit)
  disk       30.0 GiB free of 38.0 GiB on / (/, /var/lib, /home/wpsite/public_html)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	pf.Facts.SELinux, pf.Facts.Firewalld, pf.Facts.Init = "disabled", "absent", "none"
	pf.SELinux, pf.Firewalld = nil, nil
	b.Reset()
	pf.WriteText(&b)
	for _, s := range []string{"  SELinux    disabled: nothing to label\n", "  firewalld  absent: nothing to open\n", "  init       none: no systemd;"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("missing %q in:\n%s", s, b.String())
		}
	}
}

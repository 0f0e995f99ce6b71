package profiles_test

// Contract tests: properties every shipped profile's rendered plan must
// have on almalinux-9, where nothing here can run it (no RPM repository is
// reachable), so the plan is the only thing a test can read before a user
// pays for servers. Each test states one property of the rendered ops, not
// their exact text (the goldens hold that), so a new profile or a reworded
// op is held to the same rules.

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
)

const alma = "almalinux-9"

// offline renders profile name for platform with -var args, offline.
func offline(t *testing.T, name, platform string, args ...string) *provision.Report {
	t.Helper()
	p, diags := provision.Load(profiles.FS, name, provision.Vars{Args: args})
	if diags.HasErrors() {
		var b bytes.Buffer
		_ = provision.WriteDiagnostics(&b, p.Files(), diags, true)
		t.Fatalf("load %s %v: %s", name, args, b.String())
	}
	r, diags := p.Render(platform)
	if diags.HasErrors() {
		t.Fatalf("render %s for %s: %v", name, platform, diags)
	}
	return r.Offline()
}

func specStr(op *provision.OpReport, key string) string {
	s, _ := op.Spec[key].(string)
	return s
}

func specList(op *provision.OpReport, key string) []string {
	l, _ := op.Spec[key].([]string)
	return l
}

// script is what a command op runs, with its guards.
func script(op *provision.OpReport) string {
	return specStr(op, "only_if") + "\n" + specStr(op, "unless") + "\n" + specStr(op, "run")
}

func variable(rep *provision.Report, name string) any {
	for _, v := range rep.Variables {
		if v.Name == name {
			return v.Value
		}
	}
	return nil
}

// ---- PHP: the module stream comes before any PHP package ----

var streamEnable = regexp.MustCompile(`dnf -y module enable php:([0-9]+\.[0-9]+)\b`)

// isPHPPackage: a package of PHP itself, or one that requires it (EPEL's
// wordpress would pull in the default PHP 8.0 if no stream were enabled).
func isPHPPackage(name string) bool {
	return name == "php" || strings.HasPrefix(name, "php-") || name == "wordpress"
}

func TestContractPHPStreamBeforeAnyPHPPackage(t *testing.T) {
	for _, name := range profiles.Names() {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{nil, ""}, // the default: whatever php_version defaults to
			{[]string{"php_version=8.2"}, "8.2"},
		} {
			t.Run(fmt.Sprintf("%s/%v", name, tc.args), func(t *testing.T) {
				rep := offline(t, name, alma, tc.args...)
				stream, version := -1, ""
				for i, op := range rep.Ops {
					if op.Kind != "command" {
						continue
					}
					if m := streamEnable.FindStringSubmatch(specStr(op, "run")); m != nil {
						if stream >= 0 {
							t.Errorf("%s enables php:%s again (%s enabled php:%s)", op.ID, m[1], rep.Ops[stream].ID, version)
						}
						stream, version = i, m[1]
					}
				}
				if stream < 0 {
					t.Fatalf("no op enables a php module stream (dnf -y module enable php:X.Y): PHP would be AlmaLinux 9's default 8.0")
				}
				if tc.want != "" && version != tc.want {
					t.Errorf("-var %v enables php:%s", tc.args, version)
				}
				if v, _ := variable(rep, "php_version").(string); v != "" && v != version {
					t.Errorf("php_version = %q but the plan enables php:%s", v, version)
				}
				for i, op := range rep.Ops {
					if op.Kind != "package" {
						continue
					}
					for _, n := range specList(op, "names") {
						if isPHPPackage(n) && i < stream {
							t.Errorf("%s installs %s (op %d) before %s enables php:%s (op %d)", op.ID, n, i+1, rep.Ops[stream].ID, version, stream+1)
						}
					}
				}
				// The post ran PHP 8.4 everywhere: any other version is a
				// deviation the host manifest records in words.
				if version != "8.4" {
					found := false
					for _, d := range rep.Deviations {
						found = found || strings.Contains(d, "PHP "+version) && strings.Contains(d, "8.4")
					}
					if !found {
						t.Errorf("PHP %s instead of the post's 8.4, but no deviation says so: %q", version, rep.Deviations)
					}
				}
			})
		}
	}
}

// ---- SELinux: what a confined server reads has a context ----

// fcontext is one "semanage fcontext -a -t TYPE 'REGEX'" of the plan.
type fcontext struct {
	typ, re, op string
	index       int
	rx          *regexp.Regexp
}

var fcontextAdd = regexp.MustCompile(`semanage fcontext -a -t ([a-z0-9_]+) '([^']+)'`)

// stem is the fixed part of a file-context regex: the path it is rooted at.
func (f fcontext) stem() string {
	s := f.re
	if i := strings.IndexAny(s, "([.*?+\\|^$"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, "/")
}

func fcontexts(t *testing.T, rep *provision.Report) []fcontext {
	var out []fcontext
	for i, op := range rep.Ops {
		if op.Kind != "command" {
			continue
		}
		for _, m := range fcontextAdd.FindAllStringSubmatch(specStr(op, "run"), -1) {
			rx, err := regexp.Compile("^(?:" + m[2] + ")$")
			if err != nil {
				t.Fatalf("%s: file context %q is not a regex: %v", op.ID, m[2], err)
			}
			out = append(out, fcontext{typ: m[1], re: m[2], op: op.ID, index: i, rx: rx})
		}
	}
	return out
}

// labelOf is the type SELinux gives p by the plan's rules: of the rules
// that match, the one with the longest fixed stem (selinux's "most
// specific" rule, which local rules win on a tie).
func labelOf(rules []fcontext, p string) (fcontext, bool) {
	var best fcontext
	ok := false
	for _, r := range rules {
		if r.rx.MatchString(p) && (!ok || len(r.stem()) > len(best.stem())) {
			best, ok = r, true
		}
	}
	return best, ok
}

// policyLabelled are paths selinux-policy itself labels for httpd_t:
// nothing for a profile to add.
var policyLabelled = map[string]string{
	"/run/php-fpm/":   "httpd_var_run_t (selinux-policy's apache.fc)",
	"/etc/php-fpm.d/": "etc_t, readable by every domain",
	"/etc/php.d/":     "etc_t, readable by every domain",
	"/etc/nginx/":     "httpd_config_t (selinux-policy's apache.fc)",
	"/var/log/nginx/": "httpd_log_t (selinux-policy's apache.fc)",
	"/run/nginx.pid":  "httpd_var_run_t (selinux-policy's apache.fc)",
}

func policyLabel(p string) (string, bool) {
	for pre, why := range policyLabelled {
		if strings.HasPrefix(p, pre) {
			return why, true
		}
	}
	return "", false
}

// absPaths are the absolute paths in a configuration file (comments cut
// at commentPrefix).
var absPath = regexp.MustCompile(`(?:^|[\s"'=])(?:unix/)?(/[A-Za-z0-9_./-]+)`)

func absPaths(body, commentPrefix string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if i := strings.Index(line, commentPrefix); i >= 0 {
			line = line[:i]
		}
		for _, m := range absPath.FindAllStringSubmatch(line, -1) {
			out = append(out, path.Clean(m[1]))
		}
	}
	return out
}

// serverRunning reports whether the plan keeps service name running.
func serverRunning(rep *provision.Report, name string) bool {
	for _, op := range rep.Ops {
		if op.Kind == "service" && specStr(op, "name") == name && specStr(op, "state") == "running" {
			return true
		}
	}
	return false
}

func fileOps(rep *provision.Report, match func(p string) bool) []*provision.OpReport {
	var out []*provision.OpReport
	for _, op := range rep.Ops {
		if op.Kind == "file" && match(specStr(op, "path")) {
			out = append(out, op)
		}
	}
	return out
}

// read is one path a confined server reads (or writes), and the types
// that let it.
type read struct {
	server, path, why string
	types             []string
}

var httpdReadable = []string{"httpd_sys_content_t", "httpd_sys_rw_content_t", "httpd_config_t", "httpd_var_lib_t", "httpd_var_run_t", "httpd_log_t", "cert_t"}

// confinedReads lists what each confined server of the plan reads: PHP-FPM
// (httpd_t on RHEL) the site, Caddy (httpd_t from EPEL's package) the site
// and every path its Caddyfile names.
func confinedReads(t *testing.T, rep *provision.Report) []read {
	var out []read
	site := rep.Site
	siteReads := func(server string) {
		if site == nil {
			t.Fatalf("%s serves no declared site", server)
		}
		out = append(out,
			read{server, path.Dir(site.Docroot), "the site user's home, passed through to the docroot", httpdReadable},
			read{server, site.Docroot, "the docroot", httpdReadable},
			read{server, site.Docroot + "/wp-includes/version.php", "WordPress core", []string{"httpd_sys_content_t", "httpd_sys_rw_content_t"}},
			read{server, site.Docroot + "/wp-content/uploads/2024/01/a.jpg", "uploads (WordPress writes there)", []string{"httpd_sys_rw_content_t"}},
		)
	}
	if serverRunning(rep, "php-fpm") {
		siteReads("php-fpm")
		for _, op := range fileOps(rep, func(p string) bool { return strings.HasPrefix(p, "/etc/php-fpm.d/") }) {
			for _, p := range absPaths(specStr(op, "content"), ";") {
				out = append(out, read{"php-fpm", p, "named in " + specStr(op, "path"), httpdReadable})
			}
		}
	}
	if serverRunning(rep, "caddy") {
		siteReads("caddy")
		out = append(out, read{"caddy", "/usr/bin/caddy", "the executable: httpd_exec_t is what confines Caddy to httpd_t", []string{"httpd_exec_t"}})
		cf := fileOps(rep, func(p string) bool { return path.Base(p) == "Caddyfile" })
		if len(cf) == 0 {
			t.Fatal("caddy runs but the plan writes no Caddyfile")
		}
		for _, op := range cf {
			out = append(out, read{"caddy", specStr(op, "path"), "its configuration", []string{"httpd_config_t"}})
			body := specStr(op, "content")
			for _, p := range absPaths(body, "#") {
				types := httpdReadable
				if regexp.MustCompile(`output file\s+` + regexp.QuoteMeta(p) + `\b`).MatchString(body) {
					types = []string{"httpd_log_t"}
				}
				out = append(out, read{"caddy", p, "named in " + specStr(op, "path"), types})
			}
		}
		out = append(out, read{"caddy", "/var/lib/caddy/.local/share/caddy/instance.uuid", "its data directory (HOME)", []string{"httpd_var_lib_t"}})
	}
	if serverRunning(rep, "nginx") {
		out = append(out, nginxReads(t, rep, siteReads)...)
	}
	return out
}

// nginxReads: AppStream's nginx runs in httpd_t (the policy labels
// /usr/sbin/nginx httpd_exec_t): the site, its configuration and every
// path that names, the FPM socket (fastcgi_pass unix:PATH) included.
func nginxReads(t *testing.T, rep *provision.Report, siteReads func(string)) []read {
	var out []read
	siteReads("nginx")
	conf := fileOps(rep, func(p string) bool { return path.Base(p) == "nginx.conf" })
	if len(conf) == 0 {
		t.Fatal("nginx runs but the plan writes no nginx.conf")
	}
	for _, op := range conf {
		out = append(out, read{"nginx", specStr(op, "path"), "its configuration", []string{"httpd_config_t"}})
		// try_files lists URIs, not files.
		body := regexp.MustCompile(`(?m)^\s*try_files .*$`).ReplaceAllString(specStr(op, "content"), "")
		for _, p := range absPaths(body, "#") {
			out = append(out, read{"nginx", p, "named in " + specStr(op, "path"), httpdReadable})
		}
		for _, m := range regexp.MustCompile(`unix:(/[^\s;]+)`).FindAllStringSubmatch(body, -1) {
			out = append(out, read{"nginx", m[1], "its FastCGI socket", httpdReadable})
		}
	}
	return out
}

// restorecons are the paths each restorecon of the plan relabels.
var restoreconCmd = regexp.MustCompile(`restorecon((?:\s+-[A-Za-z]+)*)((?:\s+/[^\s;&|)]+)+)`)

type restore struct {
	op        string
	index     int
	paths     []string
	recursive bool
}

func restorecons(rep *provision.Report) []restore {
	var out []restore
	for i, op := range rep.Ops {
		if op.Kind != "command" {
			continue
		}
		for _, m := range restoreconCmd.FindAllStringSubmatch(specStr(op, "run"), -1) {
			if strings.Contains(m[1], "n") {
				continue // a dry run
			}
			out = append(out, restore{op.ID, i, strings.Fields(m[2]), strings.Contains(m[1], "R")})
		}
	}
	return out
}

func (r restore) covers(p string) bool {
	for _, q := range r.paths {
		if q == p || r.recursive && strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// creators are the ops that make path p itself (not what goes in it: files
// made inside a labelled directory inherit its type).
func creators(rep *provision.Report, p string) []int {
	var out []int
	for i, op := range rep.Ops {
		switch op.Kind {
		case "directory", "file", "link":
			if specStr(op, "path") == p {
				out = append(out, i)
			}
		case "user":
			if specStr(op, "home") == p {
				out = append(out, i)
			}
		case "command":
			if c := specStr(op, "creates"); c == p || strings.HasPrefix(c, p+"/") {
				out = append(out, i)
			}
		}
	}
	return out
}

func TestContractConfinedServersReadOnlyLabelledPaths(t *testing.T) {
	for _, name := range profiles.Names() {
		t.Run(name, func(t *testing.T) {
			rep := offline(t, name, alma)
			rules := fcontexts(t, rep)
			reads := confinedReads(t, rep)
			if len(reads) == 0 {
				t.Logf("%s runs no confined server on %s: nothing to hold to this contract", name, alma)
				return
			}
			for _, rd := range reads {
				if why, ok := policyLabel(rd.path); ok {
					t.Logf("%s reads %s (%s): labelled by the policy: %s", rd.server, rd.path, rd.why, why)
					continue
				}
				r, ok := labelOf(rules, rd.path)
				if !ok {
					t.Errorf("%s reads %s (%s), but no semanage fcontext op of the plan labels it", rd.server, rd.path, rd.why)
					continue
				}
				if !slices.Contains(rd.types, r.typ) {
					t.Errorf("%s reads %s (%s): %s labels it %s, want one of %v", rd.server, rd.path, rd.why, r.op, r.typ, rd.types)
				}
			}
			// Every rule takes effect: a restorecon covering its stem runs
			// after the rule and after the op that makes the path.
			restores := restorecons(rep)
			for _, r := range rules {
				after := slices.Concat([]int{r.index}, creators(rep, r.stem()))
				last := slices.Max(after)
				ok := false
				for _, rs := range restores {
					ok = ok || rs.index >= last && rs.covers(r.stem())
				}
				if !ok {
					t.Errorf("%s adds %s -> %s, but no restorecon of %s runs after %s", r.op, r.re, r.typ, r.stem(), rep.Ops[last].ID)
				}
			}
		})
	}
}

// Caddy from EPEL is confined only if its %post could run semanage: the
// package with semanage comes first.
func TestContractSemanageBeforeEPELCaddy(t *testing.T) {
	for _, name := range profiles.Names() {
		t.Run(name, func(t *testing.T) {
			rep := offline(t, name, alma)
			semanage, caddy := -1, -1
			for i, op := range rep.Ops {
				if op.Kind != "package" {
					continue
				}
				names := specList(op, "names")
				if slices.Contains(names, "policycoreutils-python-utils") && semanage < 0 {
					semanage = i
				}
				if slices.Contains(names, "caddy") && caddy < 0 {
					caddy = i
				}
			}
			if caddy < 0 {
				t.Log("no caddy package: nothing to hold to this contract")
				return
			}
			switch {
			case semanage < 0:
				t.Errorf("caddy is installed by %s, but semanage (policycoreutils-python-utils) never: its %%post labels nothing", rep.Ops[caddy].ID)
			case semanage > caddy:
				t.Errorf("caddy is installed by %s (op %d) before semanage (%s, op %d): its %%post labels nothing", rep.Ops[caddy].ID, caddy+1, rep.Ops[semanage].ID, semanage+1)
			}
		})
	}
}

// Apache runs unconfined, as on a cPanel server, by its executable's
// label; everything else stays confined.
func TestContractApacheUnconfinedByItsLabelOnly(t *testing.T) {
	for _, name := range profiles.Names() {
		t.Run(name, func(t *testing.T) {
			rep := offline(t, name, alma)
			if !serverRunning(rep, "httpd") {
				t.Log("no Apache: nothing to hold to this contract")
				return
			}
			r, ok := labelOf(fcontexts(t, rep), "/usr/sbin/httpd")
			if !ok || r.typ != "bin_t" {
				t.Fatalf("Apache runs, but no op labels /usr/sbin/httpd bin_t (so systemd starts it unconfined_service_t): %+v", r)
			}
			if r.stem() != "/usr/sbin/httpd" {
				t.Errorf("%s labels %q bin_t: more than Apache's executable", r.op, r.re)
			}
		})
	}
}

// Nothing broader than the servers need: no permissive domains, no
// switching SELinux off, only the booleans listed here, and every SELinux
// change guarded so hosts without SELinux skip it.
var allowedBooleans = map[string]string{
	"httpd_can_network_connect_db on": "PHP-FPM (httpd_t) reaches MariaDB on 127.0.0.1:3306",
	"httpd_can_network_connect off":   "EPEL's caddy turns it on for ACME; the profile's Caddy fetches nothing",
}

var setsebool = regexp.MustCompile(`setsebool -P ([a-z0-9_]+) (on|off)`)

func TestContractSELinuxNothingBroader(t *testing.T) {
	for _, name := range profiles.Names() {
		t.Run(name, func(t *testing.T) {
			rep := offline(t, name, alma)
			for _, op := range rep.Ops {
				s := script(op)
				for _, bad := range []string{"semanage permissive", "setenforce", "/etc/selinux/config", "selinux=0", "enforcing=0", "chcon "} {
					if strings.Contains(s, bad) {
						t.Errorf("%s runs %q", op.ID, bad)
					}
				}
				for _, m := range setsebool.FindAllStringSubmatch(specStr(op, "run"), -1) {
					if _, ok := allowedBooleans[m[1]+" "+m[2]]; !ok {
						t.Errorf("%s sets %s %s: not a boolean a server here needs", op.ID, m[1], m[2])
					}
				}
				run := specStr(op, "run")
				if strings.Contains(run, "semanage ") || strings.Contains(run, "setsebool ") || strings.Contains(run, "restorecon ") {
					if !strings.Contains(specStr(op, "only_if"), "selinuxenabled") {
						t.Errorf("%s changes SELinux without only_if selinuxenabled: it would fail where SELinux is off", op.ID)
					}
				}
			}
		})
	}
}

// ---- firewalld: every listening port is open to allow_from only ----

// TestContractFirewalldScoped: where firewalld runs, every port a profile
// serves (TCP; UDP for HTTP/3 on the TLS port) is opened by wptest-firewall
// to exactly the allow_from sources, now and --permanent, as the Hetzner
// firewall opens them to the load generators and allow_from; nothing is
// opened to everyone (no --add-port, no --add-service), and with no
// allow_from nothing is opened (the op still runs: it removes what an
// earlier profile opened).
func TestContractFirewalldScoped(t *testing.T) {
	sources := `["203.0.113.7", "2001:db8::/64"]`
	for _, name := range profiles.Names() {
		for _, args := range [][]string{nil, {"http_port=8080", "https_port=8443"}} {
			for _, allow := range []string{"", sources} {
				a := args
				if allow != "" {
					a = append(append([]string{}, args...), "allow_from="+allow)
				}
				t.Run(fmt.Sprintf("%s/%v", name, a), func(t *testing.T) {
					rep := offline(t, name, alma, a...)
					ports := map[string]int{}
					for _, v := range rep.Variables {
						// Numbers come as JSON text.
						if n, err := strconv.Atoi(fmt.Sprint(v.Value)); err == nil && strings.HasSuffix(v.Name, "_port") {
							ports[v.Name] = n
						}
					}
					if ports["http_port"] == 0 || ports["https_port"] == 0 {
						t.Fatalf("no http_port/https_port: %v", ports)
					}
					want := fmt.Sprintf("'%d/tcp %d/tcp %d/udp'", ports["http_port"], ports["https_port"], ports["https_port"])
					src := "''"
					if allow != "" {
						src = "'203.0.113.7 2001:db8::/64'"
					}
					n := 0
					for _, op := range rep.Ops {
						run := specStr(op, "run")
						if strings.Contains(run, "firewall-cmd") && (strings.Contains(run, "--add-port") || strings.Contains(run, "--add-service")) {
							t.Errorf("%s opens a port to every source: %s", op.ID, run)
						}
						if op.Kind != "command" || !strings.Contains(run, "wptest-firewall ") {
							continue
						}
						n++
						if !strings.Contains(specStr(op, "only_if"), "firewall-cmd --state") || !strings.HasPrefix(op.ID, "command.firewalld_") {
							t.Errorf("%s: not guarded by firewall-cmd --state, or not named firewalld_* (the preflight shows those)", op.ID)
						}
						if !strings.HasSuffix(run, "wptest-firewall apply "+want+" "+src) || !strings.HasSuffix(specStr(op, "unless"), "wptest-firewall --check "+want+" "+src) {
							t.Errorf("%s: run %q unless %q, want apply/--check %s %s", op.ID, run, specStr(op, "unless"), want, src)
						}
					}
					if n != 1 {
						t.Errorf("%d ops run wptest-firewall, want 1", n)
					}
				})
			}
		}
	}
}

// ---- mod_ruid2: RGroups @none only ----

var rgroups = regexp.MustCompile(`(?m)^[ \t]*RGroups[ \t]+(.*?)[ \t]*$`)

func TestContractRGroupsNone(t *testing.T) {
	for _, name := range profiles.Names() {
		for _, platform := range []string{alma, "debian-12"} {
			t.Run(name+"/"+platform, func(t *testing.T) {
				rep := offline(t, name, platform)
				for _, op := range fileOps(rep, func(string) bool { return true }) {
					for _, m := range rgroups.FindAllStringSubmatch(specStr(op, "content"), -1) {
						// mod_ruid2 0.9.8 hands any other value to
						// ap_gname2id(): httpd exits "bad group name".
						if m[1] != "@none" {
							t.Errorf("%s: RGroups %s; only @none starts", specStr(op, "path"), m[1])
						}
					}
				}
			})
		}
	}
}

// ---- downloads: none without a checksum ----

var download = regexp.MustCompile(`\b(curl|wget)\b[^\n]*\s-[A-Za-z]*[oO]\s+("?[^\s"]+"?)`)

func TestContractNoDownloadWithoutChecksum(t *testing.T) {
	for _, name := range profiles.Names() {
		for _, platform := range []string{alma, "debian-12"} {
			t.Run(name+"/"+platform, func(t *testing.T) {
				rep := offline(t, name, platform)
				for _, op := range rep.Ops {
					if op.Kind != "command" {
						continue
					}
					run := specStr(op, "run")
					for _, m := range download.FindAllStringSubmatch(run, -1) {
						out := m[2]
						if !regexp.MustCompile(`sha256sum\s+` + regexp.QuoteMeta(out)).MatchString(run) {
							t.Errorf("%s downloads %s with %s and never checks its SHA-256", op.ID, out, m[1])
						}
					}
					if regexp.MustCompile(`(dnf|yum|rpm|apt-get|dpkg)\b[^\n]*\s(install|-i|-U)\b[^\n]*https?://`).MatchString(run) {
						t.Errorf("%s installs a package straight from a URL (no checksum)", op.ID)
					}
				}
			})
		}
	}
}

// A confined server binds only http_port_t ports: Caddy's TCP ports, and
// the UDP port of HTTP/3, are labelled when they are not already.
func TestContractConfinedServerPortsLabelled(t *testing.T) {
	for _, name := range profiles.Names() {
		for _, args := range [][]string{nil, {"http_port=8080", "https_port=8444"}} {
			t.Run(fmt.Sprintf("%s/%v", name, args), func(t *testing.T) {
				rep := offline(t, name, alma, args...)
				server := ""
				for _, s := range []string{"caddy", "nginx"} {
					if serverRunning(rep, s) {
						server = s
					}
				}
				if server == "" {
					t.Log("no confined server binds ports here: nothing to hold to this contract")
					return
				}
				http, https := fmt.Sprint(variable(rep, "http_port")), fmt.Sprint(variable(rep, "https_port"))
				want := []string{"tcp " + http, "tcp " + https}
				for _, op := range fileOps(rep, func(p string) bool { return path.Base(p) == "Caddyfile" }) {
					if strings.Contains(specStr(op, "content"), " h3") {
						want = append(want, "udp "+https)
					}
				}
				for _, w := range want {
					ok := false
					for _, op := range rep.Ops {
						ok = ok || op.Kind == "command" && strings.Contains(specStr(op, "only_if"), "selinuxenabled") &&
							strings.Contains(specStr(op, "run"), "semanage port -a -t http_port_t -p "+w)
					}
					if !ok {
						t.Errorf("%s binds %s, but no op makes it http_port_t", server, w)
					}
				}
			})
		}
	}
}

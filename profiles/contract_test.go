package profiles_test

// Contract tests: properties every shipped profile's rendered plan must
// have, above all on almalinux-9, where nothing here can run it (no RPM
// repository is reachable), so the plan is the only thing a test can read
// before a user pays for servers. Each test states one property of the rendered ops, not
// their exact text (the goldens hold that), so a new profile or a reworded
// op is held to the same rules.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
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

// platforms are every platform the shipped profiles render for.
var platforms = []string{"debian-12", "debian-13", alma}

var streamEnable = regexp.MustCompile(`dnf -y module enable "?php:`)

// isPHPPackage: a package of PHP itself, or one that requires it (EPEL's
// wordpress would pull in the default PHP if no stream were enabled).
func isPHPPackage(name string) bool {
	return name == "php" || strings.HasPrefix(name, "php-") || name == "wordpress"
}

// streamOutcome runs the php_stream op's script (run, or its unless guard)
// as a host would, with stand-ins for dnf and rpm that answer as an
// AlmaLinux 9 host offering the given php streams (the `dnf -q module list
// php` table) with no PHP installed, and records what the script asks dnf
// to do.
func streamOutcome(t *testing.T, script string, offered []string) (log string, err error) {
	return streamOutcomeOn(t, script, offered, "", "")
}

// streamOutcomeOn is streamOutcome on a host where the stream enabled is
// enabled ("" none) and the PHP installed is php ("" none, else its
// version, as rpm prints it).
func streamOutcomeOn(t *testing.T, script string, offered []string, enabled, php string) (log string, err error) {
	t.Helper()
	dir := t.TempDir()
	var table strings.Builder
	table.WriteString("AlmaLinux 9 - AppStream\nName Stream   Profiles                   Summary\n")
	for _, v := range offered {
		fmt.Fprintf(&table, "php  %s      common [d], devel, minimal PHP scripting language\n", v)
	}
	table.WriteString("\nHint: [d]efault, [e]nabled, [x]disabled, [i]nstalled\n")
	enabledList := "exit 1"
	if enabled != "" {
		enabledList = "echo 'php  " + enabled + " [e]  common [d], devel, minimal PHP scripting language'"
	}
	rpm := "exit 1"
	if php != "" {
		rpm = "case \"$*\" in *--qf*) printf '%s' " + php + " ;; esac"
	}
	stub := map[string]string{
		"dnf": "#!/bin/sh\necho \"dnf $*\" >>\"$LOG\"\ncase \"$*\" in\n*'module list --enabled php'*) " + enabledList + " ;;\n*'module list php'*) cat \"$TABLE\" ;;\nesac\n",
		"rpm": "#!/bin/sh\necho \"rpm $*\" >>\"$LOG\"\n" + rpm + "\n",
	}
	for n, body := range stub {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "table"), []byte(table.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "LOG=" + filepath.Join(dir, "log"), "TABLE=" + filepath.Join(dir, "table")}
	out, err := cmd.CombinedOutput()
	b, _ := os.ReadFile(filepath.Join(dir, "log"))
	return string(b) + string(out), err
}

// TestContractPHPStreamBeforeAnyPHPPackage: on almalinux-9 exactly one op
// enables a php module stream, before any PHP package; php_version MAJOR.x
// (the default) enables the newest MAJOR.* stream the host offers,
// MAJOR.MINOR exactly that one, and a version the host does not offer
// stops the apply naming those it does.
func TestContractPHPStreamBeforeAnyPHPPackage(t *testing.T) {
	offeredEL96 := []string{"8.1", "8.2", "8.3"}
	offeredWith84 := []string{"8.1", "8.2", "8.3", "8.4"}
	for _, name := range profiles.Names() {
		for _, tc := range []struct {
			args    []string
			offered []string
			want    string // the stream enabled; "" = refused
		}{
			{nil, offeredEL96, "8.3"},
			{nil, offeredWith84, "8.4"},
			{[]string{"php_version=8.2"}, offeredWith84, "8.2"},
			{[]string{"php_version=8.4"}, offeredEL96, ""},
		} {
			t.Run(fmt.Sprintf("%s/%v/%v", name, tc.args, tc.offered), func(t *testing.T) {
				t.Parallel() // each its own rendering and stub directory: the shell runs overlap
				rep := offline(t, name, alma, tc.args...)
				stream := -1
				for i, op := range rep.Ops {
					if op.Kind == "command" && streamEnable.MatchString(specStr(op, "run")) {
						if stream >= 0 {
							t.Errorf("%s enables a php stream again (%s did)", op.ID, rep.Ops[stream].ID)
						}
						stream = i
					}
				}
				if stream < 0 {
					t.Fatalf("no op enables a php module stream (dnf -y module enable php:...): PHP would be AlmaLinux 9's default")
				}
				for i, op := range rep.Ops {
					for _, n := range specList(op, "names") {
						if op.Kind == "package" && isPHPPackage(n) && i < stream {
							t.Errorf("%s installs %s (op %d) before %s enables the php stream (op %d)", op.ID, n, i+1, rep.Ops[stream].ID, stream+1)
						}
					}
				}
				op := rep.Ops[stream]
				log, err := streamOutcome(t, specStr(op, "run"), tc.offered)
				if tc.want == "" {
					if err == nil || !strings.Contains(log, "offers the php module streams: "+strings.Join(tc.offered, " ")) || strings.Contains(log, "module enable") {
						t.Errorf("php_version %v on a host offering %v: want a refusal naming them, nothing enabled; got %v:\n%s", tc.args, tc.offered, err, log)
					}
					return
				}
				if err != nil || !strings.Contains(log, "dnf -y module enable php:"+tc.want+"\n") || strings.Count(log, "module enable") != 1 {
					t.Errorf("php_version %v on a host offering %v: want php:%s enabled; got %v:\n%s", tc.args, tc.offered, tc.want, err, log)
				}
				// Until then, the guard says there is something to do; once
				// the stream is enabled and its PHP installed, nothing is.
				if _, err := streamOutcome(t, specStr(op, "unless"), tc.offered); err == nil {
					t.Errorf("%s: the unless guard passes on a host with no stream enabled", op.ID)
				}
				if log, err := streamOutcomeOn(t, specStr(op, "unless"), tc.offered, tc.want, tc.want+".19"); err != nil {
					t.Errorf("%s: the unless guard fails with php:%s enabled and PHP %s.19 installed: %v\n%s", op.ID, tc.want, tc.want, err, log)
				}
				if _, err := streamOutcomeOn(t, specStr(op, "unless"), tc.offered, "8.1", "8.1.31"); err == nil && tc.want != "8.1" {
					t.Errorf("%s: the unless guard passes with php:8.1 enabled, want php:%s", op.ID, tc.want)
				}
				if _, err := streamOutcomeOn(t, specStr(op, "unless"), tc.offered, tc.want, "8.0.30"); err == nil && tc.want != "8.0" {
					t.Errorf("%s: the unless guard passes with php:%s enabled but PHP 8.0.30 installed", op.ID, tc.want)
				}
			})
		}
	}
}

// phpVersionIn finds PHP versions the plan names: Debian's package,
// directory, binary and service names (php8.4-fpm, /etc/php/8.4/,
// php-cgi8.4) and cPanel's handler names (ea-php84).
var phpVersionIn = regexp.MustCompile(`php(?:-cgi|-fpm)?([0-9]+\.[0-9]+)\b|/php/([0-9]+\.[0-9]+)/|ea-php([0-9]+)\b|php:([0-9]+\.[0-9]+)\b`)

// TestContractPHPVersionOneVariable: every PHP version a plan names is
// php_version's: render each platform with a version none of them
// defaults to and no op names another (package, path, service, pool,
// binary, handler, wptest-svc); the default is the platform's.
func TestContractPHPVersionOneVariable(t *testing.T) {
	defaults := map[string]string{"debian-12": "8.2", "debian-13": "8.4", alma: "8.x"}
	for _, name := range profiles.Names() {
		for _, platform := range platforms {
			t.Run(name+"/"+platform, func(t *testing.T) {
				if got := variable(offline(t, name, platform), "php_version"); got != defaults[platform] {
					t.Errorf("php_version defaults to %v on %s, want %s", got, platform, defaults[platform])
				}
				rep := offline(t, name, platform, "php_version=7.9")
				seen := 0
				for _, op := range rep.Ops {
					for k, v := range op.Spec {
						var texts []string
						switch x := v.(type) {
						case string:
							texts = []string{x}
						case []string:
							texts = x
						}
						for _, text := range texts {
							for _, m := range phpVersionIn.FindAllStringSubmatch(text, -1) {
								got := m[1] + m[2] + m[4]
								if m[3] != "" {
									got = m[3]
								}
								seen++
								if got != "7.9" && got != "79" {
									t.Errorf("%s %s names PHP %s (%s), not php_version 7.9", op.ID, k, got, m[0])
								}
							}
						}
					}
				}
				if platform != alma && seen == 0 {
					t.Errorf("no op names php_version: the test would not notice another version")
				}
			})
		}
	}
}

// TestContractPHPDeviationFromWhatRuns: whether a host runs the post's PHP
// is decided by the PHP it runs (a fact's deviation rule), on every
// platform, never by a deviation written for the platform.
func TestContractPHPDeviationFromWhatRuns(t *testing.T) {
	for _, name := range profiles.Names() {
		for _, platform := range platforms {
			t.Run(name+"/"+platform, func(t *testing.T) {
				rep := offline(t, name, platform)
				for _, d := range rep.Deviations {
					if strings.Contains(d, "PHP") {
						t.Errorf("a static deviation names PHP: %q", d)
					}
				}
				var rules []*provision.Fact
				for _, f := range rep.DeviationRules {
					if strings.Contains(f.Run, "PHP_VERSION") {
						rules = append(rules, f)
					}
				}
				if len(rules) != 1 {
					t.Fatalf("%d deviation rules read PHP_VERSION, want 1: %+v", len(rules), rep.DeviationRules)
				}
				re := regexp.MustCompile(rules[0].ExpectRegex)
				for out, dev := range map[string]bool{"8.4.27": false, "8.4.0": false, "8.2.29": true, "8.3.19": true, "8.40.1": true, "not installed": true} {
					if re.MatchString(out) == dev {
						t.Errorf("PHP %s: deviation %v, want %v (%s)", out, !dev, dev, rules[0].ExpectRegex)
					}
				}
				if !strings.Contains(rules[0].Deviation, "%s") || !strings.Contains(rules[0].Deviation, "the post's PHP 8.4") {
					t.Errorf("deviation %q does not name the host's PHP (%%s) and the post's", rules[0].Deviation)
				}
			})
		}
	}
}

// ---- AlmaLinux 9 as a fresh cloud image has it ----

// requiresFilter is the grep -v -E pattern wordpress_epel_files applies
// to the EPEL rpm's requirements.
var requiresFilter = regexp.MustCompile(`grep -v -E '([^']+)'`)

// TestContractFreshEL9Image: what a fresh AlmaLinux 9 cloud image lacks or
// conflicts with: tar is installed; curl only when there is none (the
// image's curl-minimal conflicts with the curl package); EPEL's WordPress
// brings no web server, PHP SAPI or php meta-package (only the PHP
// libraries it links to), so every package the plan installs is one the
// profile runs.
func TestContractFreshEL9Image(t *testing.T) {
	for _, name := range profiles.Names() {
		t.Run(name, func(t *testing.T) {
			rep := offline(t, name, alma)
			var installed []string
			for _, op := range rep.Ops {
				if op.Kind == "package" {
					installed = append(installed, specList(op, "names")...)
				}
				if op.Kind != "command" {
					continue
				}
				run := specStr(op, "run")
				for _, m := range regexp.MustCompile(`dnf (?:-y )?install(?: -y)?((?: [a-z][^\s;&|]*)+)`).FindAllStringSubmatch(run, -1) {
					for _, n := range strings.Fields(m[1]) {
						if n == "curl" || n == "curl-minimal" {
							if !strings.Contains(specStr(op, "unless"), "command -v curl") && !strings.Contains(run, "--allowerasing") {
								t.Errorf("%s installs %s without checking for a curl first (curl-minimal conflicts)", op.ID, n)
							}
						}
						if n == "wordpress" {
							t.Errorf("%s installs EPEL's wordpress package (it requires httpd and PHP-FPM)", op.ID)
						}
					}
				}
				if strings.Contains(run, "dnf -q download") {
					m := requiresFilter.FindStringSubmatch(run)
					if m == nil {
						t.Fatalf("%s downloads an rpm and installs its requirements unfiltered", op.ID)
					}
					re := regexp.MustCompile(m[1])
					for _, r := range []string{"httpd", "httpd-filesystem", "nginx", "webserver", "php", "php-fpm", "php(httpd)", "php-cli", "php-cgi", "mod_php", "rpmlib(PayloadIsZstd)", "/bin/sh"} {
						if !re.MatchString(r) {
							t.Errorf("%s would install %s, which EPEL's wordpress requires but the profile does not run", op.ID, r)
						}
					}
					for _, r := range []string{"php-mysqlnd", "php-gd", "php-PHPMailer6", "php-composer(simplepie/simplepie)", "php-getid3"} {
						if re.MatchString(r) {
							t.Errorf("%s leaves out %s, a library WordPress's files link to", op.ID, r)
						}
					}
					if !strings.Contains(run, "rpm -K") {
						t.Errorf("%s unpacks a downloaded rpm without checking its signature", op.ID)
					}
				}
			}
			if !slices.Contains(installed, "tar") {
				t.Errorf("no package op installs tar (core's unpacking and the seeder need it): %v", installed)
			}
			if slices.Contains(installed, "curl") {
				t.Errorf("a package op installs curl by name: it conflicts with the image's curl-minimal")
			}
			runs := map[string]bool{}
			for _, op := range rep.Ops {
				if op.Kind == "service" && specStr(op, "state") == "running" {
					runs[specStr(op, "name")] = true
				}
			}
			for pkg, server := range map[string]string{"httpd": "httpd", "nginx": "nginx", "caddy": "caddy", "php-fpm": "php-fpm"} {
				if slices.Contains(installed, pkg) && !runs[server] {
					t.Errorf("the plan installs %s but runs no %s", pkg, server)
				}
			}
		})
	}
}

// TestContractMariaDBLoopbackOnly: on every platform MariaDB is told to
// listen on 127.0.0.1 only (RHEL's listens on every interface unless
// told), restarted when that changes, and a check proves it.
func TestContractMariaDBLoopbackOnly(t *testing.T) {
	confDir := map[string]string{"debian-12": "/etc/mysql/mariadb.conf.d/", "debian-13": "/etc/mysql/mariadb.conf.d/", alma: "/etc/my.cnf.d/"}
	bind := regexp.MustCompile(`(?m)^\[(?:mysqld|mariadbd|server)\]\n(?:[^\[].*\n)*bind-address\s*=\s*127\.0\.0\.1\s*$`)
	for _, name := range profiles.Names() {
		for _, platform := range platforms {
			t.Run(name+"/"+platform, func(t *testing.T) {
				rep := offline(t, name, platform)
				conf := fileOps(rep, func(p string) bool { return strings.HasPrefix(p, confDir[platform]) && strings.HasSuffix(p, ".cnf") })
				ok := false
				for _, op := range conf {
					if bind.MatchString(specStr(op, "content")) {
						ok = true
						if !slices.Contains(op.Notify, "restart service.mariadb") {
							t.Errorf("%s sets bind-address but MariaDB is not restarted when it changes (notify %v)", op.ID, op.Notify)
						}
					}
				}
				if !ok {
					t.Errorf("no file in %s says bind-address = 127.0.0.1 under [mysqld]", confDir[platform])
				}
				found := false
				for _, c := range rep.Checks {
					found = found || c.Command != nil && strings.Contains(fmt.Sprint(c.Command["run"]), "@@bind_address") && strings.Contains(fmt.Sprint(c.Command["expect_regex"]), `127\.0\.0\.1`)
				}
				if !found {
					t.Errorf("no check proves MariaDB listens on loopback only")
				}
			})
		}
	}
}

// TestContractCGIHandlerSameEveryPlatform: cPanel's cgi handler
// (/cgi-sys/ea-phpNN) is a link to the platform's php-cgi on every
// platform, named after php_version: no wrapper (one more exec per
// request), no deviation, and OPcache kept out the same way.
func TestContractCGIHandlerSameEveryPlatform(t *testing.T) {
	action := regexp.MustCompile(`(?m)^\s*Action application/x-httpd-(ea-php[0-9a-z]+) /cgi-sys/(ea-php[0-9a-z]+)$`)
	for _, name := range profiles.Names() {
		for _, platform := range platforms {
			t.Run(name+"/"+platform, func(t *testing.T) {
				rep := offline(t, name, platform)
				var handler, conf string
				for _, op := range fileOps(rep, func(string) bool { return true }) {
					if m := action.FindStringSubmatch(specStr(op, "content")); m != nil {
						handler, conf = m[2], specStr(op, "content")
					}
				}
				if handler == "" {
					t.Log("no cgi handler: nothing to hold to this contract")
					return
				}
				v, _ := variable(rep, "php_version").(string)
				if want := "ea-php" + strings.ReplaceAll(v, ".", ""); handler != want {
					t.Errorf("handler %s, want %s (php_version %s)", handler, want, v)
				}
				var made []*provision.OpReport
				for _, op := range rep.Ops {
					if strings.HasSuffix(specStr(op, "path"), "/cgi-sys/"+handler) {
						made = append(made, op)
					}
				}
				if len(made) != 1 || made[0].Kind != "link" || !strings.HasPrefix(path.Base(specStr(made[0], "target")), "php-cgi") {
					for _, op := range made {
						t.Logf("%s: %v", op.ID, op.Spec)
					}
					t.Fatalf("/cgi-sys/%s: want one link to php-cgi, got %d op(s)", handler, len(made))
				}
				scan := regexp.MustCompile(`(?m)^\s*SetEnv PHP_INI_SCAN_DIR (\S+)$`).FindStringSubmatch(conf)
				if scan == nil {
					t.Fatalf("httpd.conf does not point php-cgi at its OPcache-free ini files (SetEnv PHP_INI_SCAN_DIR)")
				}
				ok := false
				for _, op := range rep.Ops {
					ok = ok || op.Kind == "command" && strings.Contains(specStr(op, "run"), "wptest-cgi-ini-dir ") && strings.HasSuffix(specStr(op, "run"), " "+scan[1])
				}
				if !ok {
					t.Errorf("no op makes %s, the ini files httpd.conf gives php-cgi", scan[1])
				}
				for _, d := range rep.Deviations {
					if strings.Contains(strings.ToLower(d), "opcache") || strings.Contains(d, "wrapper") {
						t.Errorf("deviation %q: the handler is the same on every platform", d)
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
		for _, platform := range platforms {
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
		for _, platform := range platforms {
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

// ---- cPanel's Apache as EasyApache 4 writes it ----

// TestContractCPanelApacheAsEA4Writes holds cpanel-apache's httpd.conf, on
// every platform, to what EA4's templates write (profiles/cpanel-apache/
// README.md names the lines): AllowOverride All on "/" (every request
// looks for .htaccess from / down), each vhost's access log and bytes log
// written by Apache itself in domlogs, no piped log (the post left out
// the splitlogs pipe), mod_logio for the bytes.
func TestContractCPanelApacheAsEA4Writes(t *testing.T) {
	root := regexp.MustCompile(`(?s)<Directory "?/"?>(.*?)</Directory>`)
	vhost := regexp.MustCompile(`(?s)<VirtualHost \*:(\d+)>(.*?)</VirtualHost>`)
	for _, platform := range platforms {
		t.Run(platform, func(t *testing.T) {
			rep := offline(t, "cpanel-apache", platform)
			conf := fileOps(rep, func(p string) bool {
				return strings.HasSuffix(p, "/httpd.conf") || strings.HasSuffix(p, "/apache2.conf")
			})
			if len(conf) != 1 {
				t.Fatalf("%d Apache configurations", len(conf))
			}
			c := specStr(conf[0], "content")
			if m := root.FindStringSubmatch(c); m == nil || !regexp.MustCompile(`(?m)^\s*AllowOverride All\s*$`).MatchString(m[1]) {
				t.Errorf(`<Directory "/"> without AllowOverride All (ea4_main.default:86-93): %q`, m)
			}
			if strings.Contains(c, `CustomLog "|`) || strings.Contains(c, "CustomLog |") {
				t.Errorf("a piped CustomLog: the post left out the splitlogs pipe")
			}
			if !strings.Contains(c, "logio_module") {
				t.Errorf("no mod_logio: the bytes log's %%I and %%O need it")
			}
			logDir := path.Dir(specStr(conf[0], "path"))
			for _, op := range rep.Ops {
				if op.Kind == "directory" && strings.HasSuffix(specStr(op, "path"), "/domlogs") {
					logDir = specStr(op, "path")
				}
			}
			vs := vhost.FindAllStringSubmatch(c, -1)
			if len(vs) != 2 {
				t.Fatalf("%d vhosts, want the http and https ones", len(vs))
			}
			server := fmt.Sprint(variable(rep, "server_name"))
			for _, v := range vs {
				access := logDir + "/" + server
				if v[1] == fmt.Sprint(variable(rep, "https_port")) {
					access += "-ssl_log"
				}
				for _, want := range []string{
					"CustomLog " + access + " combined env=!isproxyrequest",
					"CustomLog " + logDir + "/" + server + `-bytes_log "%{%s}t %I .\n%{%s}t %O ." env=!isproxyrequest`,
				} {
					if !strings.Contains(v[2], want) {
						t.Errorf("vhost *:%s lacks %q (vhost.default:53-70)", v[1], want)
					}
				}
			}
		})
	}
}

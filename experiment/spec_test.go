package experiment

import (
	"context"
	"fmt"
	"github.com/wptest/wptest/results"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/golden"
)

// Every shipped experiment loads, and says what the seeds ask of it.
func TestShippedExperiments(t *testing.T) {
	for _, tc := range []struct {
		file      string
		driver    string
		columns   []string
		scenarios []string
		fixture   string
	}{
		{"quick.hcl", "local", []string{"cpanel-apache", "tuned-apache", "caddy"}, []string{"page", "static", "compression", "crowd", "kit"}, "minimal"},
		{"corehttpd-vs-cpanel.hcl", "hetzner", []string{"cpanel-apache", "tuned-apache", "tuned-400", "corehttpd", "caddy", "nginx"}, []string{"page", "crowd", "static", "compression", "compression-js", "h2", "h3", "browse-h1", "browse-h2"}, "agency"},
		{"apache-kit.hcl", "local", []string{"cpanel-apache", "tuned-apache"}, []string{"kit"}, "minimal"},
		{"ab-1k.hcl", "local", []string{"cpanel-apache", "tuned-apache"}, []string{"static", "php"}, "minimal"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			sp := loadFile(t, filepath.Join("..", "experiments", tc.file), LoadOptions{})
			if sp.Machines.Driver != tc.driver {
				t.Errorf("driver %q, want %q", sp.Machines.Driver, tc.driver)
			}
			var ps, ss []string
			for _, p := range sp.Columns {
				ps = append(ps, p.ID)
			}
			for _, s := range sp.Scenarios {
				ss = append(ss, s.Name)
			}
			if strings.Join(ps, ",") != strings.Join(tc.columns, ",") || strings.Join(ss, ",") != strings.Join(tc.scenarios, ",") {
				t.Errorf("columns %v scenarios %v", ps, ss)
			}
			if sp.Fixture.Profile != tc.fixture || len(sp.Fixture.Root) != 64 {
				t.Errorf("fixture %+v", sp.Fixture)
			}
			// The pin is the fixture package's golden root for that profile and seed.
			if want := fixtureRoots(t)[fmt.Sprintf("%s %d", sp.Fixture.Profile, sp.Fixture.Seed)]; sp.Fixture.Root != want {
				t.Errorf("%s pins %s; fixture/testdata/golden.txt says %s", tc.file, sp.Fixture.Root, want)
			}
		})
	}
}

func TestQuickDetails(t *testing.T) {
	sp := loadFile(t, "../experiments/quick.hcl", LoadOptions{})
	if sp.HTTPPort != 8080 || sp.HTTPSPort != 8443 || sp.Repetitions != 2 || sp.Warmup != time.Second {
		t.Errorf("experiment block: %+v", sp)
	}
	for _, p := range sp.Columns {
		if p.Vars["http_port"] != "8080" || p.Vars["https_port"] != "8443" || !p.Enabled {
			t.Errorf("column %s vars %v enabled %v", p.ID, p.Vars, p.Enabled)
		}
	}
	c := sp.Scenarios[2]
	if c.Kind != "compression" || !c.Gzip || c.Visitors[0] != 10 || c.Duration != 1500*time.Millisecond || c.Warmup != 300*time.Millisecond {
		t.Errorf("compression scenario %+v", c)
	}
	// -var changes the seed, and the pinned root goes with it (conditional).
	sp2 := loadFile(t, "../experiments/quick.hcl", LoadOptions{Vars: []string{"seed=7", "ttl=2h"}})
	if sp2.Fixture.Seed != 7 || sp2.Fixture.Root != "" || sp2.Machines.TTL != "2h" || sp2.Vars["seed"] != "7" {
		t.Errorf("-var seed=7 ttl=2h: fixture %+v ttl %q vars %v", sp2.Fixture, sp2.Machines.TTL, sp2.Vars)
	}
	if sp2.SHA256 != sp.SHA256 {
		t.Error("file hash depends on -var")
	}
	// --target overrides the machines block.
	sp3 := loadFile(t, "../experiments/quick.hcl", LoadOptions{Target: "ssh://root@192.0.2.1:2222", KnownHosts: "/k"})
	if sp3.Machines.Driver != "static" || sp3.Machines.Targets[0] != "ssh://root@192.0.2.1:2222" {
		t.Errorf("target: %+v", sp3.Machines)
	}
}

func TestCorehttpdColumnFollowsItsPackage(t *testing.T) {
	sp := loadFile(t, "../experiments/corehttpd-vs-cpanel.hcl", LoadOptions{})
	if p := sp.Columns[3]; p.ID != "corehttpd" || p.Enabled || !strings.Contains(p.Reason, "corehttpd_package") {
		t.Errorf("corehttpd without package: %+v", p)
	}
	sp = loadFile(t, "../experiments/corehttpd-vs-cpanel.hcl", LoadOptions{Vars: []string{"corehttpd_package=/root/c.rpm"}})
	if p := sp.Columns[3]; p.ID != "corehttpd" || !p.Enabled || p.Vars["package_source"] != "/root/c.rpm" {
		t.Errorf("corehttpd with package: %+v", p)
	}
}

// testdata/errors/*.txtar: an experiment file (exp.hcl, optionally vars:
// -var values) and want: the whole error it must give, a config error.
func TestLoadErrors(t *testing.T) {
	golden.Archives(t, "testdata/errors/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		src, _ := golden.Section(a, "exp.hcl")
		vars, _ := golden.Section(a, "vars")
		_, err := Load("exp.hcl", src, LoadOptions{Vars: strings.Fields(string(vars))})
		if err == nil {
			t.Fatal("no error")
		}
		if exitcode.Of(err) != exitcode.Config {
			t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Config)
		}
		return map[string]string{"want": err.Error() + "\n"}
	})
}

// fixtureRoots is fixture/testdata/golden.txt: "profile seed" -> root hash.
func fixtureRoots(t *testing.T) map[string]string {
	b, err := os.ReadFile("../fixture/testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 3 {
			m[f[0]+" "+f[1]] = f[2]
		}
	}
	return m
}

func loadFile(t *testing.T, path string, opt LoadOptions) *Spec {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := Load(path, src, opt)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return sp
}

// The ab kind sends ab's HTTP/1.0 requests (the server then does what it
// did under ab); other kinds, and ab over h2, send HTTP/1.1.
func TestABKindSendsHTTP10(t *testing.T) {
	r := &runner{sp: &Spec{HTTPPort: 8080, HTTPSPort: 8443}, srv: &server{addr: "127.0.0.1"}}
	for _, tc := range []struct {
		sc   results.Scenario
		want bool
	}{
		{results.Scenario{Kind: "ab", Proto: "h1", Path: "/1k.txt"}, true},
		{results.Scenario{Kind: "ab", Proto: "h2", Path: "/1k.txt"}, false},
		{results.Scenario{Kind: "page", Proto: "h1", Path: "/"}, false},
		{results.Scenario{Kind: "static", Proto: "h1", Path: "/a.js"}, false},
	} {
		j, _, err := kindOf(tc.sc).job(context.Background(), r, point{sc: tc.sc, p: results.Point{Visitors: 5}, cfg: r.baseConfig(tc.sc, 5)})
		if err != nil {
			t.Fatal(err)
		}
		if got := j.Config.HTTP10; got != tc.want {
			t.Errorf("%s over %s: HTTP10 %v, want %v", tc.sc.Kind, tc.sc.Proto, got, tc.want)
		}
	}
}

// quick.hcl's repetitions come from a variable: 2 unless -var says
// otherwise, and the plan and its estimate follow it. A bad value is an
// error at file:line:col that names it.
func TestQuickRepetitionsVar(t *testing.T) {
	two := loadFile(t, "../experiments/quick.hcl", LoadOptions{})
	five := loadFile(t, "../experiments/quick.hcl", LoadOptions{Vars: []string{"repetitions=5"}})
	if two.Repetitions != 2 || five.Repetitions != 5 || five.Vars["repetitions"] != "5" {
		t.Fatalf("repetitions %d and %d (vars %v), want 2 and 5", two.Repetitions, five.Repetitions, five.Vars)
	}
	if n2, n5 := len(two.Plan()), len(five.Plan()); n2 != 36 || n5 != 90 {
		t.Errorf("plan points %d and %d, want 36 and 90", n2, n5)
	}
	e2, e5 := EstimateOf(two), EstimateOf(five)
	if p := partOf(t, e5, "scenario crowd"); p.N != 15 {
		t.Errorf("crowd points in the estimate: %d, want 3 columns × 5 repetitions", p.N)
	}
	if p := partOf(t, e5, "warm-up after each swap"); p.N != 15 {
		t.Errorf("swaps in the estimate: %d, want 15", p.N)
	}
	if e5.Total <= e2.Total {
		t.Errorf("estimate with 5 repetitions %s, with 2 %s", e5.Total, e2.Total)
	}
	src, err := os.ReadFile("../experiments/quick.hcl")
	if err != nil {
		t.Fatal(err)
	}
	// at is "quick.hcl:line:col: " of the value of the first attr after
	// the first line holding after.
	at := func(after, attr string) string {
		lines := strings.Split(string(src), "\n")
		for i, l := range lines {
			if !strings.Contains(l, after) {
				continue
			}
			for j := i; j < len(lines); j++ {
				if c := strings.Index(lines[j], attr); c >= 0 {
					return fmt.Sprintf("quick.hcl:%d:%d: ", j+1, c+len(attr)+1)
				}
			}
		}
		t.Fatalf("no %q after %q in quick.hcl", attr, after)
		return ""
	}
	use, decl := at(`experiment "quick"`, "repetitions = "), at(`variable "repetitions"`, "default     = ")
	for _, tc := range []struct{ val, pos, want string }{
		{"0", use, "repetitions = 0: want a whole number from 1 to 100."},
		{"-1", use, "repetitions = -1: want a whole number from 1 to 100."},
		{"10000", use, "repetitions = 10000: want a whole number from 1 to 100."},
		{"2.5", use, "repetitions = 2.5: want a whole number from 1 to 100."},
		{"1e400", use, "repetitions = 1e+400: want a whole number from 1 to 100."},
		{"x", decl, `-var repetitions: "x" is not a number; the variable's default makes it a number.`},
		{"", decl, `-var repetitions: "" is not a number; the variable's default makes it a number.`},
		{"5;reboot", decl, `-var repetitions: "5;reboot" is not a number; the variable's default makes it a number.`},
	} {
		_, err := Load("quick.hcl", src, LoadOptions{Vars: []string{"repetitions=" + tc.val}})
		if err == nil {
			t.Errorf("-var repetitions=%s: no error", tc.val)
			continue
		}
		if exitcode.Of(err) != exitcode.Config || !strings.HasPrefix(err.Error(), tc.pos) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-var repetitions=%s (exit %d):\n%v\nwant it at %q saying %q", tc.val, exitcode.Of(err), err, tc.pos, tc.want)
		}
	}
}

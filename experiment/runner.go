package experiment

import (
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/results"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// runner is a session: its inputs and its record, fixed before its
// steps run (the spec, the options, the run directory, the manifest and
// the results, the fixture, the plan), and what its steps made that later
// ones read (the machines, the server, the load generators, the ETA). It
// is the state multistep passes the session's steps (steps.go); a step
// that made something to undo holds it itself, for its cleanup.
type runner struct {
	sp   *Spec
	opt  Options
	dir  string
	man  *results.Manifest
	st   *results.Store
	fx   *fixture.Fixture
	si   int     // this session's index in man.Sessions
	plan runPlan // what the run measures, computed before its steps

	ms  []cloud.Machine // the run's machines (machineSteps)
	srv *server         // the server, connected (stepConnect)
	lg  loadGen         // where the load comes from (stepLoadGenerators)
	eta *eta
	// succeeded is set by the session's last step: the machines' cleanup
	// keeps them after success only with Keep.
	succeeded bool
}

// server is the run's server as stepConnect opened it, and what later
// steps learn of it.
type server struct {
	h     host.Host
	facts host.Facts
	m     cloud.Machine // the server among the run's machines
	addr  string        // its address as the load generator dials it
	// sources are who may reach its web ports (webSources), the profiles'
	// allow_from: found by the first step that loads a profile.
	sources []string
	ports   map[string]int // where the live profile's server listens (server { ports })
	// live is the column this session applied last ("": none yet).
	live string
}

func (r *runner) logf(format string, v ...any) { fmt.Fprintf(r.opt.Log, format+"\n", v...) }

// since is how long ago t was on the run's clock (Options.Now).
func (r *runner) since(t time.Time) time.Duration { return r.opt.now().Sub(t) }

// url is where the load generator finds path p over proto: on the port the
// live profile's server block declares for it, or else the experiment's.
func (r *runner) url(p string, proto string) string {
	scheme, port := "http", r.sp.HTTPPort
	if provision.PortFor(proto) == "https" {
		scheme, port = "https", r.sp.HTTPSPort
	}
	if n, ok := r.srv.ports[scheme]; ok {
		port = n
	}
	return scheme + "://" + hostPort(r.srv.addr, port) + p
}

func hostPort(h string, p int) string {
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(p)
}

func (r *runner) baseConfig(sc results.Scenario, visitors int) benchgen.Config {
	cfg := benchgen.Config{Name: fmt.Sprintf("c=%d", visitors), URL: r.url(sc.Path, sc.Proto), Proto: sc.Proto,
		Visitors: visitors, KeepAlive: sc.KeepAlive, Requests: sc.Requests, Duration: sc.Duration, Warmup: sc.Warmup,
		Rate: sc.Rate, Timeout: sc.Timeout, ServerName: "localhost",
		// The profiles' certificate is the host's own self-signed one; the
		// h2/h3 checks of the profile prove it; the load only needs the bytes.
		Insecure: true}
	if sc.Gzip {
		cfg.Header = append(cfg.Header, benchgen.AcceptGzip)
	}
	return cfg
}

// restartScript restarts the live web server for the kit's startup metric:
// the restart commands of the services its profile declares as its server
// (host manifest); "" when it declares none.
func (r *runner) restartScript(ps results.Column) string {
	hm := r.man.Hosts[ps.ID]
	if hm == nil || hm.Server == nil {
		return ""
	}
	var cmds []string
	for _, s := range hm.Server.Services {
		cmds = append(cmds, s.Restart)
	}
	return strings.Join(cmds, " && ")
}

// sameApply says whether host manifest a records the same profile with the
// same variables as b (b: what the run's apply wrote; a: read back, its
// numbers decoded from JSON).
func sameApply(a, b *hostmanifest.Manifest) bool {
	if a == nil || b == nil || a.Profile != b.Profile {
		return false
	}
	va, _ := json.Marshal(a.Variables)
	vb, _ := json.Marshal(b.Variables)
	return string(va) == string(vb)
}

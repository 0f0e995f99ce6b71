package experiment

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// AgentPath is where the wptest binary goes on the server (as `wptest up`
// puts it: the profiles' HTTP/3 checks run it).
const AgentPath = "/usr/local/lib/wptest/wptest"

// apply renders the shipped profile for the server's platform and applies
// it (the swap: first the services the host manifest names that this
// profile does not run are stopped), then writes
// the host manifest and keeps it in the run manifest. Same steps as
// `wptest up`/`swap` (internal/cli/cmd_up.go), which cannot be imported.
func (r *runner) apply(ctx context.Context, ps ProfileSpec) error {
	rd, err := r.render(ps)
	if err != nil {
		return err
	}
	p := rd.Profile
	if r.live == p.Name {
		r.logf("[%s] profile %s (already live: re-applied, checks run again)", r.h.Name(), p.Name)
	} else {
		r.logf("[%s] swap: %s -> %s", r.h.Name(), orNone(r.live), p.Name)
	}
	if r.opt.Exe != "" {
		msg, err := installAgent(ctx, r.h, r.opt.Exe)
		if err != nil {
			return exitcode.With(exitcode.Provision, err)
		}
		r.logf("[%s] wptest agent: %s", r.h.Name(), msg)
	}
	// Whatever server another profile left running is stopped first.
	prevHM, err := hostmanifest.Read(ctx, r.h)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	rd.Retire(prevHM.Services())
	t0 := time.Now()
	changed := 0
	rep, err := rd.Apply(ctx, r.h, func(e provision.Event) {
		changed++
		fmt.Fprintf(r.opt.Log, "[%s] %s: %s\n", e.Host, e.Op, e.Msg)
	})
	if err != nil {
		return exitcode.With(exitcode.Provision, fmt.Errorf("apply %s on %s: %w", p.Name, r.h.Name(), err))
	}
	prev := r.live
	if prev == p.Name {
		prev = ""
	}
	m := hostmanifest.FromReport(rep, r.opt.Tool, prev)
	if err := hostmanifest.Write(ctx, r.h, m); err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	r.live = p.Name
	r.man.Hosts[ps.Name] = m
	r.logf("[%s] %s live after %.1fs (%d change(s), %d deviation(s))", r.h.Name(), p.Name, time.Since(t0).Seconds(), m.Changes, len(m.Deviations))
	return r.man.write(r.dir)
}

// render loads the shipped profile with the spec's variables and renders
// it for the server's platform; a failed precondition is refused here,
// before anything changes.
func (r *runner) render(ps ProfileSpec) (*provision.Rendered, error) {
	dir, err := profiles.Lookup(ps.Name, func(d string) []string {
		lp, _ := provision.Load(profiles.FS, d, provision.Vars{})
		if lp == nil {
			return nil
		}
		return lp.Aliases
	})
	if err != nil {
		return nil, exitcode.With(exitcode.Config, err)
	}
	var args []string
	for _, k := range sortedKeys(ps.Vars) {
		args = append(args, k+"="+ps.Vars[k])
	}
	p, diags := provision.Load(profiles.FS, dir, provision.Vars{Args: args})
	if diags.HasErrors() {
		var b bytes.Buffer
		if p != nil {
			_ = provision.WriteDiagnostics(&b, p.Files(), diags, true)
		} else {
			_ = provision.WriteDiagnostics(&b, nil, diags, true)
		}
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("profile %s: %s", ps.Name, strings.TrimSpace(b.String())))
	}
	rd, diags := p.Render(r.facts.Platform)
	if diags.HasErrors() {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("render %s for %s: %s", p.Name, r.facts.Platform, diags.Error()))
	}
	if len(rd.Blocked) > 0 {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("profile %s cannot be applied on %s (nothing was changed):\n  %s", p.Name, r.h.Name(), strings.Join(rd.Blocked, "\n  ")))
	}
	return rd, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// installAgent puts exe on the host at AgentPath unless the same bytes are
// there already.
func installAgent(ctx context.Context, h host.Host, exe string) (string, error) {
	b, err := os.ReadFile(exe)
	if err != nil {
		return "", fmt.Errorf("wptest agent: %w", err)
	}
	sum := sha256.Sum256(b)
	want := hex.EncodeToString(sum[:])
	res, err := h.Run(ctx, host.Cmd{Script: "sha256sum " + AgentPath + " 2>/dev/null || true", Label: "agent"})
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(string(res.Stdout), want+" ") {
		return "up to date (sha256 " + want[:12] + ")", nil
	}
	if _, err := h.Run(ctx, host.Cmd{Script: "install -d -m 0755 " + filepath.Dir(AgentPath), Label: "agent"}); err != nil {
		return "", err
	}
	if err := h.Put(ctx, AgentPath, bytes.NewReader(b), host.PutOptions{Mode: 0o755}); err != nil {
		return "", fmt.Errorf("install wptest on %s: %w", h.Name(), err)
	}
	return "installed (sha256 " + want[:12] + ")", nil
}

// seed seeds the fixture once into the site the live profile declares and
// verifies it.
func (r *runner) seed(ctx context.Context, site fixture.Site, decl *provision.Site) error {
	t0 := time.Now()
	m, err := SeedSite(ctx, site, decl, r.fx, CoreOf(decl), r.opt.Log)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	r.man.Fixture.Deviations = m.Deviations
	r.man.Fixture.Docroot = site.Docroot
	r.logf("[%s] fixture %s seed %d seeded in %.1fs (root %s)", r.h.Name(), r.sp.Fixture.Profile, r.sp.Fixture.Seed, time.Since(t0).Seconds(), m.Short)
	return r.verify(ctx, site, true)
}

// WordPressHtaccess is what WordPress writes when pretty permalinks are switched
// on (wp-admin/includes/misc.php, save_mod_rewrite_rules), as every cPanel
// WordPress site has it: Apache needs it to route /slug/ to index.php.
const WordPressHtaccess = `# BEGIN WordPress
<IfModule mod_rewrite.c>
RewriteEngine On
RewriteRule .* - [E=HTTP_AUTHORIZATION:%{HTTP:Authorization}]
RewriteBase /
RewriteRule ^index\.php$ - [L]
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteRule . /index.php [L]
</IfModule>
# END WordPress
`

// writeHtaccess writes WordPress's rules for a server that reads them
// (the fixture leaves .htaccess out of its hashes; without it Apache
// answers every permalink with 404).
func writeHtaccess(ctx context.Context, site fixture.Site) error {
	p := site.Docroot + "/.htaccess"
	if err := site.Host.Put(ctx, p, strings.NewReader(WordPressHtaccess), host.PutOptions{Mode: 0o644, Owner: site.Owner, Group: site.Group}); err != nil {
		return fmt.Errorf("write %s on %s: %w", p, site.Host.Name(), err)
	}
	return nil
}

// verify recomputes the fixture's hashes on the live site (and, after a
// seed, fetches every page over HTTP); a difference stops the run (exit 5).
func (r *runner) verify(ctx context.Context, site fixture.Site, http bool) error {
	rep, err := fixture.Verify(ctx, site, r.fx)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	if http {
		base := "http://" + hostPort("127.0.0.1", r.sp.HTTPPort)
		if err := fixture.VerifyHTTP(ctx, r.h, base, r.fx.Manifest(), rep); err != nil {
			return exitcode.With(exitcode.Provision, err)
		}
		r.man.Fixture.HTTPPages = rep.HTTPPages
	}
	if !rep.OK() {
		var d []string
		for i, x := range rep.Diffs {
			if i == 10 {
				d = append(d, fmt.Sprintf("... and %d more", len(rep.Diffs)-10))
				break
			}
			d = append(d, x.String())
		}
		return exitcode.With(exitcode.Mismatch, fmt.Errorf("fixture on %s is not %s seed %d: root %s, want %s\n  %s",
			r.h.Name(), r.sp.Fixture.Profile, r.sp.Fixture.Seed, rep.Root, rep.Want, strings.Join(d, "\n  ")))
	}
	r.man.Fixture.Verified = rep.Root
	r.man.Fixture.Lazy = len(rep.Lazy)
	r.logf("[%s] fixture verified: root %s (%d page(s) over HTTP, %d lazy row(s) apart)", r.h.Name(), rep.Root[:16], r.man.Fixture.HTTPPages, len(rep.Lazy))
	return r.man.write(r.dir)
}

// sampler collects srvstat samples of the server: in this process when the
// server is this machine, else `wptest srvstat` on the server.
type sampler struct {
	mu     sync.Mutex
	ss     []srvstat.Sample
	err    error
	cancel context.CancelFunc
	done   chan struct{}

	workers WorkerSource
	warned  bool // the status page's failure was logged (once per sampler: one profile's points)
	logf    func(format string, v ...any)
	// theirs puts a time on our clock on the sampled machine's, where
	// samples' times are read (runner.theirTime).
	theirs func(time.Time) time.Time
}

// SampleEvery is how often srvstat samples the server during a run.
const SampleEvery = 500 * time.Millisecond

// WorkerSource says where a server's worker usage comes from: the status
// page and worker limit its profile declares (server block), or why there
// is none.
type WorkerSource struct {
	StatusURL  string // "" = no worker usage
	MaxWorkers int    // the declared worker limit; 0 = the scoreboard's length
	Why        string // why StatusURL is empty
}

// WorkersOf is the worker source of the profile a host manifest records
// (the report asks it why a column has no worker usage).
func WorkersOf(hm *hostmanifest.Manifest) WorkerSource {
	if hm == nil {
		return WorkerSource{Why: "no host manifest"}
	}
	if hm.Server == nil || hm.Server.Status == nil {
		return WorkerSource{Why: hm.Profile + " declares no status page with worker counts"}
	}
	return WorkerSource{StatusURL: hm.Server.Status.URL, MaxWorkers: hm.Server.WorkerLimit}
}

// SamplerGroups are the process groups the live profile declares (its host
// manifest), as srvstat takes them: what the report's columns count.
func SamplerGroups(hm *hostmanifest.Manifest) []srvstat.Group {
	if hm == nil {
		return nil
	}
	var gs []srvstat.Group
	for _, g := range hm.Groups {
		gs = append(gs, srvstat.Group{Name: g.Name, Exe: g.Exe, Users: g.Users})
	}
	return gs
}

func (r *runner) startSampler(ctx context.Context) (*sampler, error) {
	hm, err := hostmanifest.Read(ctx, r.h)
	if err != nil {
		return nil, err
	}
	ws := WorkersOf(hm)
	if ws.StatusURL == "" {
		r.logf("[%s] worker usage: n/a (%s)", r.h.Name(), ws.Why)
	}
	groups := SamplerGroups(hm)
	if len(groups) == 0 {
		return nil, fmt.Errorf("the live profile on %s declares no process groups (process_group blocks): the server's CPU could not be told apart", r.h.Name())
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &sampler{cancel: cancel, done: make(chan struct{}), workers: ws, logf: r.logf,
		theirs: func(t time.Time) time.Time { return r.theirTime(r.h.Name(), t) }}
	if _, ok := r.h.(*host.Local); ok {
		// In this process, on the user's own machine: no process
		// accounting (a machine-wide facility) there.
		sm := srvstat.New(srvstat.Config{StatusURL: ws.StatusURL, Groups: groups})
		go func() {
			defer close(s.done)
			defer sm.Close()
			tk := time.NewTicker(SampleEvery)
			defer tk.Stop()
			for {
				if smp, err := sm.Sample(ctx); err == nil {
					s.add(smp)
				}
				select {
				case <-ctx.Done():
					return
				case <-tk.C:
				}
			}
		}()
		return s, nil
	}
	if r.opt.Exe == "" {
		cancel()
		return nil, fmt.Errorf("srvstat on %s needs the wptest binary (Options.Exe)", r.h.Name())
	}
	args := append([]string{"--interval", SampleEvery.String()}, srvstat.GroupArgs(groups)...)
	if ws.StatusURL != "" {
		args = append(args, "--status-url", ws.StatusURL)
	}
	pr, pw := io.Pipe()
	go func() {
		// The agent apply installed (same bytes as Exe): no upload per group.
		err := srvstat.RunRemote(ctx, r.h, srvstat.Remote{Path: AgentPath, Args: args}, pw)
		pw.CloseWithError(err)
	}()
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var smp srvstat.Sample
			if json.Unmarshal(sc.Bytes(), &smp) == nil {
				s.add(smp)
			}
		}
		s.mu.Lock()
		s.err = sc.Err()
		s.mu.Unlock()
	}()
	return s, nil
}

func (s *sampler) add(smp srvstat.Sample) {
	s.mu.Lock()
	s.ss = append(s.ss, smp)
	s.mu.Unlock()
}

func (s *sampler) stop() {
	s.cancel()
	<-s.done
}

// summarize waits for a sample after the window's end, then gives the
// server's share of [from, to] (our clock; the samples' times are the
// server's: the window goes on its clock first).
func (s *sampler) summarize(ctx context.Context, from, to time.Time, ok int64) (*result.Server, error) {
	tf, tt := from, to
	if s.theirs != nil {
		tf, tt = s.theirs(from), s.theirs(to)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.ss)
		var last float64
		if n > 0 {
			last = s.ss[n-1].Unix
		}
		err := s.err
		s.mu.Unlock()
		if n > 0 && last >= float64(tt.UnixNano())/1e9 {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("srvstat: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("srvstat: no sample after the window's end within 10s")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.mu.Lock()
	ss := append([]srvstat.Sample(nil), s.ss...)
	s.mu.Unlock()
	srv, err := srvstat.Summarize(ss, tf, tt, ok, 0)
	if err != nil || s.workers.StatusURL == "" {
		return srv, err
	}
	// Without maxWorkers, Summarize's limit is the largest scoreboard read
	// in the window: 0 means the status page gave no reading there. Only
	// then is MaxRequestWorkers given, or a page that failed throughout
	// would read as 0% busy.
	if srv.WorkerLimit == 0 {
		s.warnWorkers(ss, from, to)
		return srv, nil
	}
	if s.workers.MaxWorkers > 0 {
		return srvstat.Summarize(ss, tf, tt, ok, s.workers.MaxWorkers)
	}
	return srv, nil
}

// warnWorkers logs, once per profile, why the status page gave no reading.
func (s *sampler) warnWorkers(ss []srvstat.Sample, from, to time.Time) {
	if s.warned {
		return
	}
	s.warned = true
	why := "no sample in the window read it"
	for _, x := range ss {
		if x.Apache != nil && x.Apache.Error != "" {
			why = x.Apache.Error
		}
	}
	s.logf("warning: worker usage n/a for %s..%s: %s gave no scoreboard: %s", from.Format(time.TimeOnly), to.Format(time.TimeOnly), s.workers.StatusURL, why)
}

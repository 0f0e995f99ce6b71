package stage

// The site stage: the WordPress site the live profile declares (HostSite),
// the fixture seeded into it (SeedSite) and verified (Verify). `seed`,
// `verify` and `run` compose it.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// ErrNoSite: the host's manifest declares no site (no wptest profile was
// applied there, or its profile serves none).
var ErrNoSite = errors.New("no wptest server profile with a site is live on the host (run `wptest up --profile P` first, or give the site by flags)")

// HostSite is the WordPress site the live profile of h serves, as its host
// manifest declares it: docroot, owner, PHP, core, and the database the
// profile made (credentials read from the root-only file it names, over
// the host; they never reach a log).
func HostSite(ctx context.Context, h host.Host) (fixture.Site, *provision.Site, error) {
	m, err := hostmanifest.Read(ctx, h)
	if err != nil {
		return fixture.Site{}, nil, err
	}
	if m == nil || m.Site == nil {
		return fixture.Site{}, nil, ErrNoSite
	}
	d := m.Site
	s := fixture.Site{Host: h, Docroot: d.Docroot, Owner: d.Owner, Group: d.Group, PHP: d.PHP}
	if d.Database != "" {
		if s.DB, err = readDBEnv(ctx, h, d.Database); err != nil {
			return s, d, err
		}
	}
	return s, d, nil
}

// readDBEnv reads the profile's credentials file (DB_NAME=..., one per line).
func readDBEnv(ctx context.Context, h host.Host, p string) (fixture.DB, error) {
	res, err := h.Run(ctx, host.Cmd{Script: "cat " + host.Quote(p), Label: "site database credentials", SecretStdout: true})
	if err != nil {
		return fixture.DB{}, fmt.Errorf("site database credentials on %s: %w", h.Name(), err)
	}
	v := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(res.Stdout)))
	for sc.Scan() {
		if k, val, ok := strings.Cut(sc.Text(), "="); ok {
			v[k] = val
		}
	}
	db := fixture.DB{Name: v["DB_NAME"], User: v["DB_USER"], Password: v["DB_PASSWORD"], Addr: v["DB_HOST"]}
	if db.Name == "" || db.User == "" || db.Password == "" || db.Addr == "" {
		return db, fmt.Errorf("site database credentials %s on %s: want DB_NAME, DB_USER, DB_PASSWORD and DB_HOST", p, h.Name())
	}
	return db, nil
}

// CoreOf is where seeding takes WordPress core from for a declared site:
// the pinned archive, falling back to the site's core directory (the
// platform's package) when it cannot be fetched, a deviation. Without a
// declared core directory the archive is required.
func CoreOf(d *provision.Site) fixture.CoreSource {
	if d != nil && d.Core != "" {
		return fixture.PinnedCore(d.Core)
	}
	return fixture.CoreSource{Download: true}
}

// SeedSite seeds fx into s with what the profile's server needs for
// permalinks (WordPress's .htaccess when it says "htaccess", written and
// recorded by the seed as its own), runs the profile's site_refresh
// commands, and records again what the live profile wrote and made in its
// site (a refresh makes again the copies the seed removed).
func SeedSite(ctx context.Context, s fixture.Site, d *provision.Site, fx *fixture.Fixture, src fixture.CoreSource, log io.Writer) (*fixture.Manifest, error) {
	if d == nil || d.Rewrite == "htaccess" {
		s.Extra = append(s.Extra, fixture.File{Path: ".htaccess", Data: []byte(WordPressHtaccess), Mode: 0o644})
	}
	m, err := fixture.Seed(ctx, s, fx, src, log)
	if err != nil {
		return nil, err
	}
	if d != nil {
		for _, c := range d.Refresh {
			if _, err := s.Host.Run(ctx, host.Cmd{Script: c, Label: "after seeding"}); err != nil {
				return m, fmt.Errorf("the server after seeding: %w", err)
			}
		}
		if err := rerecordSiteFiles(ctx, s); err != nil {
			return m, fmt.Errorf("the profile's files after seeding: %w", err)
		}
	}
	return m, nil
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

// HTTPCheck is which of the fixture's pages verify fetches through the
// site's host: every one from Base (e.g. http://127.0.0.1:8080), else a
// sample of Sample pages from the live profile's own port on the host's
// loopback (none where no profile serves the site), else none.
type HTTPCheck struct {
	Base   string
	Sample int
}

// Verify recomputes fx's hashes on the live site s, checks the files the
// live profile wrote and made there when s is its site, and fetches the
// pages hc says: status 200 and each builder page's widgets. Differences
// are in the report; an error is a verify that could not run.
func Verify(ctx context.Context, s fixture.Site, fx *fixture.Fixture, hc HTTPCheck) (*fixture.Report, error) {
	pf, problem, err := siteFilesOf(ctx, s)
	if err != nil {
		return nil, exitcode.With(exitcode.Provision, err)
	}
	s.Profile = pf
	rep, err := fixture.Verify(ctx, s, fx)
	if err != nil {
		return nil, exitcode.With(exitcode.Provision, err)
	}
	if problem != "" {
		rep.Diffs = append(rep.Diffs, fixture.Diff{Kind: "site-files", Path: hostmanifest.SiteFilesPath, Detail: problem})
	}
	switch {
	case hc.Base != "":
		err = fixture.VerifyHTTP(ctx, s.Host, hc.Base, fx.Manifest(), rep)
	case hc.Sample > 0:
		base, port, owner, why, rerr := liveBase(ctx, s)
		if rerr != nil {
			return rep, exitcode.With(exitcode.Provision, rerr)
		}
		if base == "" {
			rep.HTTPNote = "no pages fetched: " + why
			break
		}
		err = fetchSample(ctx, s.Host, base, port, owner, fx, hc.Sample, rep)
	}
	return rep, err
}

// fetchSample fetches the sample of fx's pages from the live profile's
// server at base, which only it may answer (loopbackServer), before and
// after the fetch.
func fetchSample(ctx context.Context, h host.Host, base string, port int, owner string, fx *fixture.Fixture, n int, rep *fixture.Report) error {
	before, problem, err := loopbackServer(ctx, h, port, owner)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	if problem != "" {
		rep.Diffs = append(rep.Diffs, fixture.Diff{Kind: "http", Path: base, Detail: problem})
		return nil
	}
	pages := fixture.SamplePages(fx.Manifest(), n)
	rep.HTTPNote = fmt.Sprintf("%d of the fixture's %d pages fetched from %s (the same ones for this fixture; --http BASE fetches all)", len(pages), len(fx.Manifest().Pages), base)
	if err := fixture.VerifyHTTPPages(ctx, h, base, fx.Manifest(), pages, rep); err != nil {
		return err
	}
	after, problem, err := loopbackServer(ctx, h, port, owner)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	if problem == "" && !slices.Equal(before, after) {
		problem = fmt.Sprintf("the sockets listening on port %d changed while its pages were fetched: what answered is not known", port)
	}
	if problem != "" {
		rep.Diffs = append(rep.Diffs, fixture.Diff{Kind: "http", Path: base, Detail: problem})
	}
	return nil
}

// liveBase is where the live profile serves s on its host's loopback
// (http://127.0.0.1:PORT, from its http_port), or why there is none.
// owner is the profile's site user.
func liveBase(ctx context.Context, s fixture.Site) (base string, port int, owner, why string, err error) {
	m, err := hostmanifest.Read(ctx, s.Host)
	switch {
	case err != nil:
		return "", 0, "", "", err
	case m == nil || m.Site == nil:
		return "", 0, "", "no wptest profile serves a site on this host", nil
	case path.Clean(m.Site.Docroot) != path.Clean(s.Docroot):
		return "", 0, "", fmt.Sprintf("profile %s serves %s, not this docroot", m.Profile, m.Site.Docroot), nil
	}
	for _, v := range m.Variables {
		if p, ok := v.Value.(float64); ok && v.Name == "http_port" && p > 0 && p < 65536 && p == float64(int(p)) {
			return fmt.Sprintf("http://127.0.0.1:%d", int(p)), int(p), m.Site.Owner, "", nil
		}
	}
	return "", 0, "", fmt.Sprintf("profile %s records no http_port", m.Profile), nil
}

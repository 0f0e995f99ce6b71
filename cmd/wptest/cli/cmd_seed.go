package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision"
)

// wptest seed: write a fixture into a live WordPress site over a host.
// siteFlags say where the site lives on the host. The database password
// comes from a file or stdin, never from a flag value.
type siteFlags struct {
	targetFlags
	docroot                string
	dbAddr, dbName, dbUser string
	dbPassFile             string
	dbPassStdin            bool
	owner                  string
	php                    string
}

func addSiteFlags(fs *flag.FlagSet, f *siteFlags) {
	f.targetFlags.add(fs)
	fs.StringVar(&f.docroot, "docroot", "", "site directory on the host (default: the live profile's, from the host manifest; another directory is another site, for which the profile's defaults do not hold; core and the fixture are replaced in it, other top-level files stay)")
	fs.StringVar(&f.dbAddr, "db-addr", "", "MariaDB/MySQL address as seen from the host (default: the profile's database, else 127.0.0.1:3306)")
	fs.StringVar(&f.dbName, "db-name", "", "database name (default: the profile's database, else wptest)")
	fs.StringVar(&f.dbUser, "db-user", "", "database user (default: the profile's database, else wptest)")
	fs.StringVar(&f.dbPassFile, "db-password-file", "", "file holding the database password (first line; default: the profile's database)")
	fs.BoolVar(&f.dbPassStdin, "db-password-stdin", false, "read the database password from stdin (first line)")
	fs.StringVar(&f.owner, "owner", "", "user:group owning every file the seed writes (default: the profile's site user, else the connecting user; no group: the user's login group)")
	fs.StringVar(&f.php, "php", "", "php-cli binary on the host (default: the profile's, else php); accepted, but seed and verify run no PHP (the schema comes from the fixture's own table definitions)")
}

func (f *siteFlags) password(a *App) (string, error) {
	switch {
	case f.dbPassFile != "" && f.dbPassStdin:
		return "", exitcode.With(exitcode.Config, errors.New("give --db-password-file or --db-password-stdin, not both"))
	case f.dbPassFile != "":
		b, err := os.ReadFile(absPath(a, f.dbPassFile))
		if err != nil {
			return "", exitcode.With(exitcode.Config, fmt.Errorf("--db-password-file: %w", err))
		}
		return strings.SplitN(string(b), "\n", 2)[0], nil
	case f.dbPassStdin:
		if a.Stdin == nil {
			return "", exitcode.With(exitcode.Config, errors.New("--db-password-stdin: no stdin"))
		}
		line, err := bufio.NewReader(a.Stdin).ReadString('\n')
		if err != nil && line == "" {
			return "", exitcode.With(exitcode.Config, fmt.Errorf("--db-password-stdin: %w", err))
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	return "", exitcode.With(exitcode.Config, errors.New("the database password is required: --db-password-file FILE or --db-password-stdin"))
}

// siteStages are the first stages of seed and verify: the target, then
// the site the live profile declares in its host manifest, with the flags
// given over it; without one, the flags and their defaults.
func (f *siteFlags) siteStages(a *App) ([]stage.Step, error) { return f.siteStagesLog(a, nil) }

// siteStagesLog is siteStages with the host's commands logged to con's
// log, the site's database password among the secrets it masks (nil: not
// logged).
func (f *siteFlags) siteStagesLog(a *App, con *console) ([]stage.Step, error) {
	// Bad flags fail before anything connects.
	var pw string
	if f.dbPassFile != "" || f.dbPassStdin {
		var err error
		if pw, err = f.password(a); err != nil {
			return nil, err
		}
	}
	var log io.Writer
	if con != nil {
		log = con.Detail()
	}
	steps := []stage.Step{f.stage(a, log)}
	if con != nil {
		steps = append(steps, con.startStage())
	}
	return append(steps, stage.Do(func(ctx context.Context, st *stage.State) error {
		s, decl, err := f.site(ctx, st.Host, pw)
		st.Site, st.SiteDecl = s, decl
		if con != nil {
			con.red.Add(s.DB.Password)
		}
		return err
	})), nil
}

func (f *siteFlags) site(ctx context.Context, h host.Host, pw string) (fixture.Site, *provision.Site, error) {
	s, decl, err := stage.HostSite(ctx, h)
	// Another docroot than the live profile's is another site: none of the
	// profile's owner, PHP, database or refresh applies to it (its database
	// least of all: seeding it would overwrite the live site's rows).
	if err == nil && f.docroot != "" && path.Clean(f.docroot) != path.Clean(s.Docroot) {
		err, decl = stage.ErrNoSite, nil
	}
	switch {
	case errors.Is(err, stage.ErrNoSite):
		s = fixture.Site{Host: h, Docroot: "/var/www/wptest", PHP: "php", DB: fixture.DB{Addr: "127.0.0.1:3306", Name: "wptest", User: "wptest"}}
	case err != nil:
		return s, nil, exitcode.With(exitcode.Provision, err)
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&s.Docroot, f.docroot)
	set(&s.PHP, f.php)
	set(&s.DB.Addr, f.dbAddr)
	set(&s.DB.Name, f.dbName)
	set(&s.DB.User, f.dbUser)
	set(&s.DB.Password, pw)
	if f.owner != "" {
		s.Owner, s.Group, _ = strings.Cut(f.owner, ":")
	}
	if s.DB.Password == "" {
		return s, nil, exitcode.With(exitcode.Config, errors.New("the database password is required: no profile's site database applies here (none is live on the host, or --docroot names another site), so give --db-password-file FILE or --db-password-stdin"))
	}
	return s, decl, nil
}

func seedCommand() *command {
	return &command{name: "seed", synopsis: "seed a deterministic WordPress fixture into a site on a host",
		usage: "seed --target HOST [--fixture NAME] [--seed N] [flags]",
		about: "On a host set up by wptest up, the site (docroot, owner, PHP, database) comes from its host manifest; elsewhere give it with the flags, the database password from a file or stdin.",
		examples: []string{"wptest seed --target local --fixture minimal",
			"wptest seed --target run:20261205-101500-a1b2c3 --fixture agency --seed 7 --manifest-out agency-7.json",
			"wptest seed --target local --docroot /var/www/other --db-password-file db.pass --create-db"},
		setup: define(seedFlagSet, runSeed)}
}

// seedFlags are seed's flags.
type seedFlags struct {
	ff                              fixtureFlags
	sf                              siteFlags
	af                              archiveFlags
	coreDir, coreArchive            string
	manifestOut                     string
	coreDownload, verbose, createDB bool
}

func seedFlagSet(fs *flag.FlagSet, f *seedFlags) {
	addFixtureFlags(fs, &f.ff)
	addSiteFlags(fs, &f.sf)
	fs.StringVar(&f.coreDir, "core-dir", "", "WordPress core directory on the host (e.g. /usr/share/wordpress, Debian's package)")
	fs.StringVar(&f.coreArchive, "core-archive", "", "WordPress .tar.gz on the host, checked against the profile's sha256")
	fs.BoolVar(&f.coreDownload, "core-download", false, "download the profile's pinned WordPress archive on the host and check it against the lock, with no fallback (default: try it, else the platform's package)")
	addArchiveFlags(fs, &f.af)
	fs.StringVar(&f.manifestOut, "manifest-out", "", "also write the manifest (with deviations) to this local file")
	fs.BoolVar(&f.verbose, "verbose", false, verboseUsage)
	fs.BoolVar(&f.createDB, "create-db", false, "create the database and user on the host first (runs mariadb as the host's root; password on stdin)")
}

func runSeed(ctx context.Context, a *App, f *seedFlags, _ []string) error {
	ff, sf, af := &f.ff, &f.sf, &f.af
	if f.manifestOut != "" {
		if err := newFileFlag("--manifest-out", absPath(a, f.manifestOut)); err != nil {
			return err
		}
	}
	src := fixture.CoreSource{Dir: f.coreDir, Archive: f.coreArchive, Download: f.coreDownload}
	if err := af.apply(a, &src); err != nil {
		return err
	}
	fx, err := ff.generate()
	if err != nil {
		return err
	}
	con := commandConsole(a, "seed", sf.target, f.verbose)
	defer con.close()
	steps, err := sf.siteStagesLog(a, con)
	if err != nil {
		return err
	}
	if f.createDB {
		steps = append(steps, stage.Do(func(ctx context.Context, st *stage.State) error {
			if err := fixture.EnsureDatabase(ctx, st.Host, st.Site.DB); err != nil {
				return exitcode.With(exitcode.Provision, err)
			}
			return nil
		}))
	}
	var m *fixture.Manifest
	err = stage.Run(ctx, &stage.State{Log: con.lines()}, append(steps, stage.Do(func(ctx context.Context, st *stage.State) error {
		if src.Dir == "" && src.Archive == "" && !src.Download {
			def := fixture.PinnedCore(fixture.DebianCore.Dir)
			if st.SiteDecl != nil {
				def = stage.CoreOf(st.SiteDecl)
			}
			src.Download, src.Fallback = def.Download, def.Fallback
		}
		var err error
		m, err = SeedFixture(ctx, a, con, st.Site, st.SiteDecl, fx, src)
		return err
	}))...)
	if err != nil {
		con.failed()
		return err
	}
	if f.manifestOut != "" {
		if err := writeNewFile(absPath(a, f.manifestOut), m.JSON()); err != nil {
			return fmt.Errorf("--manifest-out: %w", err)
		}
	}
	return nil
}

// SeedFixture seeds fx into s (and what the declared site's server needs
// for permalinks) and reports: its stages and deviations on stderr (the
// host's commands are in con's log), the root on stdout.
func SeedFixture(ctx context.Context, a *App, con *console, s fixture.Site, decl *provision.Site, fx *fixture.Fixture, src fixture.CoreSource) (*fixture.Manifest, error) {
	m, err := stage.SeedSite(ctx, s, decl, fx, src, con.lines())
	if fixture.IsMismatch(err) {
		// An archive that is not the one locked: a hash mismatch.
		return nil, exitcode.With(exitcode.Mismatch, err)
	}
	if err != nil {
		// A refused database, a failed copy or installer: provisioning failed.
		return nil, exitcode.With(exitcode.Provision, err)
	}
	for _, d := range m.Deviations {
		con.say("[%s] deviation: %s", s.Host.Name(), d)
	}
	fmt.Fprintf(a.Stdout, "seeded %s seed %d into %s:%s root %s\n", fx.Profile.Name, fx.Seed, s.Host.Name(), s.Docroot, m.Short)
	return m, nil
}

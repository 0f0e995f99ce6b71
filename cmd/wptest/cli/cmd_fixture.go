package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/internal/exitcode"
)

// wptest fixture build|hash|manifest|list: the deterministic WordPress
// fixture, offline (no host, no database).
func runFixture(ctx context.Context, a *App, args []string) error {
	if len(args) == 0 {
		return exitcode.With(exitcode.Config, errors.New("usage: wptest fixture build|hash|manifest|lock|list [flags]"))
	}
	switch args[0] {
	case "build":
		return fixtureBuild(a, args[1:])
	case "hash":
		return fixtureHash(a, args[1:])
	case "manifest":
		return fixtureManifest(a, args[1:])
	case "lock":
		return fixtureLock(ctx, a, args[1:])
	case "list":
		for _, n := range fixture.ProfileNames() {
			p, err := fixture.LoadProfile(n)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "%-8s %s\n", n, p.Description)
		}
		return nil
	case "-h", "--help", "help":
		fmt.Fprintln(a.Stderr, "usage: wptest fixture build --fixture NAME --seed N --out DIR\n       wptest fixture hash DIR\n       wptest fixture manifest --fixture NAME --seed N\n       wptest fixture lock --fixture NAME [-upgrade] [--lock FILE] [--mirror URL]\n       wptest fixture list")
		return flag.ErrHelp
	}
	return exitcode.With(exitcode.Config, fmt.Errorf("unknown fixture subcommand %q (want build, hash, manifest, lock or list)", args[0]))
}

// fixtureFlags are --fixture and --seed, shared by fixture, seed and up.
type fixtureFlags struct {
	name    string
	seed    uint64
	builder string
}

func addFixtureFlags(fs *flag.FlagSet, f *fixtureFlags) {
	fs.StringVar(&f.name, "fixture", "agency", "fixture profile: "+strings.Join(fixture.ProfileNames(), ", "))
	fs.Uint64Var(&f.seed, "seed", 1, "seed: the same fixture and seed give the same site")
	fs.StringVar(&f.builder, "builder", "", "override the profile's builder format: elementor or blocks (blocks needs no plugin)")
}

// generate loads and generates the fixture; a bad profile is a config error.
func (f *fixtureFlags) generate() (*fixture.Fixture, error) {
	p, err := fixture.LoadProfile(f.name)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, err)
	}
	if p, err = p.WithBuilder(f.builder); err != nil {
		return nil, exitcode.With(exitcode.Config, err)
	}
	fx, err := fixture.Generate(p, f.seed)
	if err != nil {
		return nil, fmt.Errorf("generate %s seed %d: %w", f.name, f.seed, err)
	}
	return fx, nil
}

func fixtureBuild(a *App, args []string) error {
	fs := newFlags(a, "fixture build")
	var ff fixtureFlags
	addFixtureFlags(fs, &ff)
	out := fs.String("out", "", "directory to write (must not exist or be empty)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return exitcode.With(exitcode.Config, errors.New("--out DIR is required"))
	}
	dir := absPath(a, *out)
	if err := fixture.CheckBuildDir(dir); err != nil {
		return exitcode.With(exitcode.Config, fmt.Errorf("--out: %w", err))
	}
	fx, err := ff.generate()
	if err != nil {
		return err
	}
	m, err := fixture.Build(fx, dir)
	if errors.Is(err, fixture.ErrExists) {
		return exitcode.With(exitcode.Config, fmt.Errorf("--out: %w", err))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Stderr, "fixture %s seed %d: %d tables, %d files, %d builder pages, %d widgets\n",
		ff.name, ff.seed, len(m.Tables), len(m.Files.List), m.Counts.BuilderPage, m.Counts.Widgets)
	fmt.Fprintf(a.Stdout, "root %s\npixels %s\n", m.Root, m.Pixels)
	return nil
}

func fixtureHash(a *App, args []string) error {
	fs := newFlags(a, "fixture hash")
	if err := fs.Parse(args); err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	if fs.NArg() != 1 {
		return exitcode.With(exitcode.Config, errors.New("usage: wptest fixture hash DIR"))
	}
	got, stored, err := fixture.HashBuild(absPath(a, fs.Arg(0)))
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	fmt.Fprintf(a.Stdout, "root %s\nshort %s\npixels %s\n", got.Root, got.Short, got.Pixels)
	if got.Root != stored.Root {
		var what []string
		for i, t := range got.Tables {
			if i < len(stored.Tables) && t.SHA256 != stored.Tables[i].SHA256 {
				what = append(what, "table "+fixture.TablePrefix+t.Name)
			}
		}
		if got.Files.SHA256 != stored.Files.SHA256 {
			what = append(what, "files")
		}
		if got.Pixels != stored.Pixels {
			what = append(what, "pixels")
		}
		return exitcode.With(exitcode.Mismatch, fmt.Errorf("%s: recomputed root %s differs from its manifest's %s (%s)", fs.Arg(0), got.Short, stored.Short, strings.Join(what, ", ")))
	}
	return nil
}

func fixtureManifest(a *App, args []string) error {
	fs := newFlags(a, "fixture manifest")
	var ff fixtureFlags
	addFixtureFlags(fs, &ff)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fx, err := ff.generate()
	if err != nil {
		return err
	}
	_, err = a.Stdout.Write(fx.Manifest().JSON())
	return err
}

// readManifest reads and checks a manifest file (ours, intact).
func readManifest(a *App, p string) (*fixture.Manifest, error) {
	f, err := os.Open(absPath(a, p))
	if err != nil {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--manifest: %w", err))
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	m, err := fixture.ParseManifest(b)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("%s: %w", p, err))
	}
	return m, nil
}

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

// wptest fixture build|hash|manifest|lock|list: the deterministic
// WordPress fixture, offline (no host, no database).
func fixtureCommand() *command {
	return &command{name: "fixture", synopsis: "build, hash or describe a deterministic WordPress fixture offline",
		usage: "fixture <build|hash|manifest|lock|list> [flags]",
		about: "The same fixture and seed give the same site, byte for byte: its root hash says so.",
		examples: []string{"wptest fixture list", "wptest fixture manifest --fixture minimal --seed 1",
			"wptest fixture build --fixture agency --seed 7 --out /tmp/agency-7"},
		subs: []*command{
			{name: "fixture build", synopsis: "write the fixture's rows and files into a new directory, with its manifest",
				usage:    "fixture build --fixture NAME --seed N --out DIR",
				examples: []string{"wptest fixture build --fixture minimal --seed 1 --out /tmp/minimal-1"},
				setup: define(func(fs *flag.FlagSet, f *buildFlags) {
					addFixtureFlags(fs, &f.fixtureFlags)
					fs.StringVar(&f.out, "out", "", "directory to write (must not exist or be empty)")
				}, fixtureBuild)},
			{name: "fixture hash", synopsis: "recompute a built fixture's hashes and check them against its manifest (exit 5 on mismatch)",
				usage: "fixture hash DIR", args: true,
				examples: []string{"wptest fixture hash /tmp/minimal-1"},
				setup:    define(nil, fixtureHash)},
			{name: "fixture manifest", synopsis: "print the fixture's manifest (its hashes) as JSON, without writing it",
				usage:    "fixture manifest --fixture NAME --seed N",
				examples: []string{"wptest fixture manifest --fixture agency --seed 1"},
				setup:    define(addFixtureFlags, fixtureManifest)},
			fixtureLockCommand(),
			{name: "fixture list", synopsis: "list the fixtures, each with what it is",
				usage: "fixture list", examples: []string{"wptest fixture list"},
				setup: define(nil, func(ctx context.Context, a *App, _ *noFlags, _ []string) error {
					for _, n := range fixture.ProfileNames() {
						p, err := fixture.LoadProfile(n)
						if err != nil {
							return err
						}
						fmt.Fprintf(a.Stdout, "%-8s %s\n", n, p.Description)
					}
					return nil
				})},
		}}
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

// buildFlags are fixture build's flags.
type buildFlags struct {
	fixtureFlags
	out string
}

func fixtureBuild(ctx context.Context, a *App, f *buildFlags, _ []string) error {
	ff := &f.fixtureFlags
	if f.out == "" {
		return usage("--out DIR is required")
	}
	dir := absPath(a, f.out)
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

func fixtureHash(ctx context.Context, a *App, _ *noFlags, args []string) error {
	if len(args) != 1 {
		return usage("want one directory, got %d", len(args))
	}
	got, stored, err := fixture.HashBuild(absPath(a, args[0]))
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
		return exitcode.With(exitcode.Mismatch, fmt.Errorf("%s: recomputed root %s differs from its manifest's %s (%s)", args[0], got.Short, stored.Short, strings.Join(what, ", ")))
	}
	return nil
}

func fixtureManifest(ctx context.Context, a *App, ff *fixtureFlags, _ []string) error {
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

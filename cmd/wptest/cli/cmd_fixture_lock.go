package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/internal/exitcode"
)

// wptest fixture lock: download the archives a fixture pins and record their
// hashes in the lock file beside it (after Terraform's .terraform.lock.hcl).
// It runs where the internet is; seed then checks every archive against it.
func fixtureLockCommand() *command {
	return &command{name: "fixture lock", synopsis: "download the archives a fixture pins and record their hashes in its lock file",
		usage:    "fixture lock --fixture NAME [--upgrade] [--lock FILE] [--mirror URL]",
		about:    "Run it where wordpress.org is reachable, in wptest's source tree; seed checks every archive against the lock.",
		examples: []string{"wptest fixture lock --fixture agency", "wptest fixture lock --fixture agency --upgrade"},
		setup: define(func(fs *flag.FlagSet, f *lockFlags) {
			fs.StringVar(&f.name, "fixture", "agency", "fixture profile: "+strings.Join(fixture.ProfileNames(), ", "))
			fs.BoolVar(&f.upgrade, "upgrade", false, "download every archive again and rewrite its entry (default: keep entries that lock the pinned version)")
			fs.StringVar(&f.lockPath, "lock", "", "lock file to write (default: "+fixture.LockFileName("NAME")+" in the current directory, wptest's source tree)")
			fs.StringVar(&f.mirror, "mirror", "", "fetch from this mirror instead of wordpress.org: BASE/HOST/PATH (the lock records wordpress.org's URLs)")
		}, fixtureLock)}
}

// lockFlags are fixture lock's flags.
type lockFlags struct {
	name, lockPath, mirror string
	upgrade                bool
}

func fixtureLock(ctx context.Context, a *App, f *lockFlags, _ []string) error {
	p, err := fixture.LoadProfile(f.name)
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	if err := fixture.CheckMirror(f.mirror); err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	out := f.lockPath
	if out == "" {
		out = fixture.LockFileName(f.name)
		if _, err := os.Stat(absPath(a, filepath.Dir(out))); err != nil {
			return exitcode.With(exitcode.Config, fmt.Errorf("%s: not in wptest's source tree (%v): run it there, or give --lock FILE", filepath.Dir(out), err))
		}
	}
	out = absPath(a, out)
	old := &fixture.Lock{File: out}
	switch b, err := os.ReadFile(out); {
	case err == nil:
		if old, err = fixture.ParseLock(out, b); err != nil {
			return exitcode.With(exitcode.Config, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return exitcode.With(exitcode.Config, fmt.Errorf("--lock: %w", err))
	}
	nl, changes, err := fixture.UpdateLock(ctx, p, old, fixture.LockOptions{Upgrade: f.upgrade, Mirror: f.mirror,
		Client: &http.Client{Timeout: 10 * time.Minute}})
	var mm *fixture.ArchiveMismatch
	switch {
	case errors.As(err, &mm):
		return exitcode.With(exitcode.Mismatch, err)
	case err != nil:
		return exitcode.With(exitcode.Provision, fmt.Errorf("fixture lock %s: %w (nothing written)", f.name, err))
	}
	if err := writeFileAtomic(out, nl.HCL(f.name)); err != nil {
		return err
	}
	for _, c := range changes {
		line := fmt.Sprintf("%-9s %s %s %s sha256 %s", c.Action, c.Name, c.Version, c.URL, c.SHA256)
		if c.Note != "" {
			line += " (" + c.Note + ")"
		}
		fmt.Fprintln(a.Stdout, line)
		if c.Action == "changed" {
			fmt.Fprintf(a.Stderr, "warning: %s %s's archive changed since it was locked (sha256 %s, now %s): the same version should not change; find out why before committing\n", c.Name, c.Version, c.Old, c.SHA256)
		}
	}
	fmt.Fprintf(a.Stderr, "wrote %s: commit it beside the fixture (seed reads the lock built into wptest, or --lock FILE)\n", out)
	return nil
}

// writeFileAtomic writes b to p through a temporary file in p's directory,
// so an interrupted write never leaves half a lock.
func writeFileAtomic(p string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}

// archiveFlags are seed's flags for where the pinned archives come from.
type archiveFlags struct {
	offline bool
	mirror  string
	lock    string
}

func addArchiveFlags(fs *flag.FlagSet, f *archiveFlags) {
	fs.BoolVar(&f.offline, "offline", false, "fetch no archive: core from the platform's package (or --core-dir), plugins not installed; each is a deviation")
	fs.StringVar(&f.mirror, "archive-mirror", "", "the host fetches the pinned archives from this mirror (BASE/HOST/PATH) instead of wordpress.org; the lock's hashes still decide")
	fs.StringVar(&f.lock, "lock", "", "lock file to check the archives against (default: the one built in beside the fixture, "+fixture.LockFileName("NAME")+")")
}

func (f *archiveFlags) apply(a *App, src *fixture.CoreSource) error {
	if err := fixture.CheckMirror(f.mirror); err != nil {
		return exitcode.With(exitcode.Config, fmt.Errorf("--archive-mirror: %w", err))
	}
	if f.offline && (src.Download || src.Archive != "") {
		return exitcode.With(exitcode.Config, errors.New("--offline fetches nothing: not with --core-download or --core-archive"))
	}
	src.Offline, src.Mirror = f.offline, f.mirror
	if f.lock != "" {
		b, err := os.ReadFile(absPath(a, f.lock))
		if err != nil {
			return exitcode.With(exitcode.Config, fmt.Errorf("--lock: %w", err))
		}
		if src.Lock, err = fixture.ParseLock(f.lock, b); err != nil {
			return exitcode.With(exitcode.Config, err)
		}
	}
	return nil
}

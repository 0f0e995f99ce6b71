package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/results"
)

// profileFlags are the flags of the commands that load a profile for a
// host: plan, apply, up and swap.
type profileFlags struct {
	profile    string
	profileDir string
	targetFlags
	output   string
	compact  bool
	vars     multiFlag
	varFiles multiFlag
	uploads  []stage.LocalFile // the local files -var names (set by loadProfile)

	platform string // plan's
	agent    string // up's and swap's
	verbose  bool   // up's and swap's
}

func addProfileFlags(fs *flag.FlagSet, f *profileFlags) {
	fs.StringVar(&f.profile, "profile", "", "shipped profile name or alias (wptest profiles lists them)")
	fs.StringVar(&f.profileDir, "profile-dir", "", "load the profile from this directory instead of the shipped ones")
	f.targetFlags.add(fs)
	outputVar(fs, &f.output)
	fs.BoolVar(&f.compact, "compact-errors", false, "print profile errors as file:line:col lines (no snippets)")
	fs.Var(&f.vars, "var", "set a profile variable: name=value (repeatable; later wins)")
	fs.Var(&f.varFiles, "var-file", "read profile variables from an HCL file (repeatable; -var wins)")
}

// wptest plan: what a profile would do. Offline (--platform) it renders
// every op with its full content; against a host (--target) it reads the
// host's facts and says what would change. It never changes anything.
func planCommand() *command {
	return &command{name: "plan", synopsis: "show what a profile would do (offline with --platform, or against --target)",
		usage: "plan --profile NAME (--platform PLATFORM | --target HOST) [flags]",
		about: "Offline (--platform) it renders every op with its full content; against a host (--target) it reads the host's facts and says what would change. It never changes anything.",
		examples: []string{"wptest plan --profile cpanel --platform debian-13",
			"wptest plan --profile tuned --target ssh://root@203.0.113.7:22 --known-hosts hosts.known",
			"wptest plan --profile caddy --target run:20261205-101500-a1b2c3 -o json"},
		setup: define(func(fs *flag.FlagSet, f *profileFlags) {
			addProfileFlags(fs, f)
			fs.StringVar(&f.platform, "platform", "", "render offline for this platform (debian-12, debian-13, almalinux-9) without a host")
		}, runPlan)}
}

// loadProfile loads --profile (shipped, by name or alias) or --profile-dir
// with the variable values, printing every HCL error (with snippets, or
// compact) to stderr. Errors are config errors (exit 2).
func loadProfile(a *App, f *profileFlags) (*provision.Profile, error) {
	args, uploads, err := stage.ResolveArgs(f.vars)
	if err != nil {
		return nil, err
	}
	f.uploads = uploads
	vars := provision.Vars{Args: args}
	for _, vf := range f.varFiles {
		b, err := os.ReadFile(absPath(a, vf))
		if err != nil {
			return nil, exitcode.With(exitcode.Config, fmt.Errorf("-var-file: %w", err))
		}
		vars.Files = append(vars.Files, provision.VarFile{Name: vf, Src: b})
	}
	var (
		p     *provision.Profile
		diags hcl.Diagnostics
	)
	switch {
	case f.profileDir != "" && f.profile != "":
		return nil, usage("give --profile or --profile-dir, not both")
	case f.profileDir != "":
		dir := absPath(a, f.profileDir)
		p, diags = provision.Load(os.DirFS(filepath.Dir(dir)), filepath.Base(dir), vars)
	case f.profile != "":
		dir, err := profiles.Lookup(f.profile, func(d string) []string {
			h, _ := provision.ReadHeader(profiles.FS, d)
			return h.Aliases
		})
		if err != nil {
			return nil, exitcode.With(exitcode.Config, err)
		}
		p, diags = provision.Load(profiles.FS, dir, vars)
	default:
		return nil, usage("--profile or --profile-dir is required")
	}
	if diags.HasErrors() {
		_ = provision.WriteDiagnostics(a.Stderr, p.Files(), diags, f.compact)
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("profile %s has %s; nothing was changed", p.Name, results.Plural(len(diags.Errs()), "error")))
	}
	return p, nil
}

func writeReport(a *App, output string, rep *provision.Report) error {
	if output == "json" {
		return writeJSON(a.Stdout, rep, true)
	}
	return rep.WriteText(a.Stdout)
}

func runPlan(ctx context.Context, a *App, f *profileFlags, _ []string) error {
	if (f.platform == "") == (f.target == "") {
		return usage("give --platform (offline) or --target (against a host)")
	}
	p, err := loadProfile(a, f)
	if err != nil {
		return err
	}
	if f.platform != "" {
		r, diags := p.Render(f.platform)
		if diags.HasErrors() {
			_ = provision.WriteDiagnostics(a.Stderr, p.Files(), diags, f.compact)
			return exitcode.With(exitcode.Config, fmt.Errorf("cannot render %s for %s", p.Name, f.platform))
		}
		writeUploads(a, f)
		return writeReport(a, f.output, r.Offline())
	}
	var rep *provision.Report
	err = stage.Run(ctx, &stage.State{Log: a.Stderr}, f.stage(a, nil),
		stage.Render{Profile: p, Diagnostics: a.Stderr},
		stage.Do(func(ctx context.Context, st *stage.State) error {
			var err error
			rep, err = st.Rendered.Plan(ctx, st.Host, newProgress(a))
			return err
		}))
	if rep != nil {
		writeUploads(a, f)
		if err := writeReport(a, f.output, rep); err != nil {
			return err
		}
	}
	return err
}

// writeUploads shows the local files the plan would upload: on stdout with
// the text report, on stderr beside JSON.
func writeUploads(a *App, f *profileFlags) {
	w := a.Stdout
	if f.output == "json" {
		w = a.Stderr
	}
	stage.WriteLocalFiles(w, f.uploads)
}

package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
)

// wptest plan: what a profile would do. Offline (--platform) it renders
// every op with its full content; against a host (--target) it reads the
// host's facts and says what would change. It never changes anything.
// profileFlags are the flags plan and apply share.
type profileFlags struct {
	profile    string
	profileDir string
	platform   string
	target     string
	knownHosts string
	identity   string
	output     string
	compact    bool
	vars       multiFlag
	varFiles   multiFlag
	uploads    []stage.LocalFile // the local files -var names (set by loadProfile)
}

func addProfileFlags(a *App, name string, f *profileFlags) *flag.FlagSet {
	fs := newFlags(a, name)
	fs.StringVar(&f.profile, "profile", "", "shipped profile name or alias (see `wptest profiles`)")
	fs.StringVar(&f.profileDir, "profile-dir", "", "load the profile from this directory instead")
	addTargetFlags(fs, &f.target, &f.knownHosts, &f.identity)
	outputVar(fs, &f.output)
	fs.BoolVar(&f.compact, "compact-errors", false, "print profile errors as file:line:col lines (no snippets)")
	fs.Var(&f.vars, "var", "set a profile variable: name=value (repeatable; later wins)")
	fs.Var(&f.varFiles, "var-file", "read profile variables from an HCL file (repeatable; -var wins)")
	return fs
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
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("give --profile or --profile-dir, not both"))
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
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--profile or --profile-dir is required"))
	}
	if diags.HasErrors() {
		_ = provision.WriteDiagnostics(a.Stderr, p.Files(), diags, f.compact)
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("profile %s has %d error(s); nothing was changed", p.Name, len(diags.Errs())))
	}
	return p, nil
}

func writeReport(a *App, output string, rep *provision.Report) error {
	if output == "json" {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteText(a.Stdout)
}

func runPlan(ctx context.Context, a *App, args []string) error {
	var f profileFlags
	fs := addProfileFlags(a, "plan", &f)
	fs.StringVar(&f.platform, "platform", "", "render offline for this platform (debian-12, debian-13, almalinux-9) without a host")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if (f.platform == "") == (f.target == "") {
		return exitcode.With(exitcode.Config, fmt.Errorf("give --platform (offline) or --target (against a host)"))
	}
	p, err := loadProfile(a, &f)
	if err != nil {
		return err
	}
	if f.platform != "" {
		r, diags := p.Render(f.platform)
		if diags.HasErrors() {
			_ = provision.WriteDiagnostics(a.Stderr, p.Files(), diags, f.compact)
			return exitcode.With(exitcode.Config, fmt.Errorf("cannot render %s for %s", p.Name, f.platform))
		}
		writeUploads(a, &f)
		return writeReport(a, f.output, r.Offline())
	}
	var rep *provision.Report
	err = stage.Run(ctx, &stage.State{Log: a.Stderr}, targetStage(a, f.target, f.knownHosts, f.identity),
		stage.Render{Profile: p, Diagnostics: a.Stderr},
		stage.Do(func(ctx context.Context, st *stage.State) error {
			var err error
			rep, err = st.Rendered.Plan(ctx, st.Host, newProgress(a))
			return err
		}))
	if rep != nil {
		writeUploads(a, &f)
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

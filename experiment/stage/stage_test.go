package stage

import (
	"bytes"
	"context"
	"github.com/wptest/wptest/internal/testenv"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/hostrecord"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// The agent stage puts the binary on the host once: the same bytes again
// are left alone, other bytes replace them, and without --agent this
// executable goes (the host here is this machine: same OS and arch).
func TestAgentInstallsOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "lib", "wptest")
	v1, v2 := filepath.Join(dir, "v1"), filepath.Join(dir, "v2")
	os.WriteFile(v1, []byte("#!/bin/sh\necho one\n"), 0o644)
	os.WriteFile(v2, []byte("#!/bin/sh\necho two\n"), 0o644)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	st := &State{Host: host.NewLocal(nil), Log: &log}
	for _, tc := range []struct {
		exe, want, bytesOf string
	}{
		{v1, "installed (sha256 ", v1},
		{v1, "up to date (sha256 ", v1},
		{v2, "installed (sha256 ", v2},
		{"", "installed (sha256 ", self},
		{"", "up to date (sha256 ", self},
	} {
		if err := Run(ctx, st, Agent{Exe: tc.exe, Self: self, Path: path}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(st.Agent, tc.want) {
			t.Errorf("agent %q: %q, want %q...", tc.exe, st.Agent, tc.want)
		}
		got, _ := os.ReadFile(path)
		want, _ := os.ReadFile(tc.bytesOf)
		if !bytes.Equal(got, want) {
			t.Errorf("agent %q: %s does not hold %s", tc.exe, path, tc.bytesOf)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("agent %q: %s: %v %v, want mode 0755", tc.exe, path, fi, err)
		}
	}
	if n := strings.Count(log.String(), "wptest agent: "); n != 5 {
		t.Errorf("%d progress lines, want one per run:\n%s", n, log.String())
	}
	if err := Run(ctx, st, Agent{Exe: filepath.Join(dir, "missing"), Path: path}); err == nil || !strings.Contains(err.Error(), "wptest agent: ") {
		t.Errorf("a missing binary: %v, want an error naming the agent", err)
	}
}

// The server stage, as up, swap and run compose it: render (refusing
// blocked ops), the preflight if asked, the apply's mark, the agent if
// asked, apply, host manifest; in that order (the preflight before
// anything changes, the mark before the first change).
func TestServerStage(t *testing.T) {
	p := &provision.Profile{Name: "x"}
	names := func(steps []Step) []string {
		var out []string
		for _, s := range steps {
			out = append(out, reflect.TypeOf(s).Name())
			if r, ok := s.(Render); ok && !r.Refuse {
				t.Errorf("the server stage's render does not refuse blocked ops")
			}
		}
		return out
	}
	all := names(Server(ServerOptions{Profile: p, Preflight: os.Stderr, Agent: &Agent{}, Tool: "wptest test"}))
	if want := []string{"Render", "Preflight", "BeginApply", "Agent", "Apply", "HostManifest"}; !reflect.DeepEqual(all, want) {
		t.Errorf("server stage %v, want %v", all, want)
	}
	bare := names(Server(ServerOptions{Profile: p}))
	if want := []string{"Render", "BeginApply", "Apply", "HostManifest"}; !reflect.DeepEqual(bare, want) {
		t.Errorf("server stage without preflight and agent %v, want %v", bare, want)
	}
}

// Render refuses a failed precondition before anything changes; once it
// holds, the same steps apply the profile (a second apply: no change).
func TestRenderRefusesThenApplies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	made := filepath.Join(dir, "made")
	src := `profile {
  description = "stage test"
  platforms   = ["debian-12", "almalinux-9"]
}
variable "go" {
  type    = string
  default = ""
}
precondition {
  condition     = var.go != ""
  error_message = "say go"
}
platform "debian-12" { package_manager = "apt" }
platform "almalinux-9" { package_manager = "dnf" }
command "make" {
  run     = "touch ` + made + `"
  creates = "` + made + `"
}
`
	os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644)
	load := func(vars ...string) *provision.Profile {
		p, diags := provision.Load(os.DirFS(dir), ".", provision.Vars{Args: vars})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return p
	}
	h := host.NewLocal(nil)
	f, err := h.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Need(t, f.Platform == "debian-12" || f.Platform == "almalinux-9", "a debian-12 or almalinux-9 machine (this one is "+f.Platform+")")
	st := &State{Host: h}
	err = Run(ctx, st, Render{Profile: load(), Refuse: true}, Apply{})
	if err == nil || !strings.Contains(err.Error(), "(nothing was changed):\n  say go") || st.Report != nil {
		t.Fatalf("a failed precondition: %v (report %v), want it refused before the apply", err, st.Report)
	}
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Fatalf("the refused profile changed the host: %v", err)
	}
	for i, want := range []int{1, 0} {
		st := &State{Host: h}
		if err := Run(ctx, st, Render{Profile: load("go=1"), Refuse: true}, Apply{}); err != nil {
			t.Fatal(err)
		}
		if st.Report.Changes != want {
			t.Errorf("apply %d: %d change(s), want %d", i+1, st.Report.Changes, want)
		}
	}
	if _, err := os.Stat(made); err != nil {
		t.Fatalf("the applied profile did not run its command: %v", err)
	}
}

// A part-applied server may run the services of the apply that did not
// finish: the next render retires them (stops them first) as it retires
// the live profile's, each once, and not one the profile runs itself.
func TestRenderRetiresAnUnfinishedApplysServices(t *testing.T) {
	p, diags := provision.Load(os.DirFS("testdata"), "localfile", provision.Vars{Args: []string{
		"src=file:///nonexistent", "src_sha256=" + strings.Repeat("0", 64)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	svc := func(n string) hostrecord.Service {
		return hostrecord.Service{Label: n, Name: "wptest-" + n, Stop: "wptest-svc " + n + " stop", Status: "wptest-svc " + n + " status"}
	}
	half := &hostmanifest.Unfinished{Profile: "caddy", Services: []hostrecord.Service{svc("caddy")}}
	live := func(names ...string) *hostmanifest.Manifest {
		m := &hostmanifest.Manifest{Profile: "nginx", Server: &hostrecord.Server{}}
		for _, n := range names {
			m.Server.Services = append(m.Server.Services, svc(n))
		}
		return m
	}
	for _, c := range []struct {
		name string
		live *hostmanifest.Manifest
		un   *hostmanifest.Unfinished
		want []string
	}{
		{"finished", live("nginx"), nil, []string{"service.retire_nginx"}},
		{"unfinished", live("nginx"), half, []string{"service.retire_nginx", "service.retire_caddy"}},
		{"unfinished, also live", live("nginx", "caddy"), half, []string{"service.retire_nginx", "service.retire_caddy"}},
		{"unfinished on a new host", nil, half, []string{"service.retire_caddy"}},
	} {
		st := &State{Host: host.NewLocal(nil), Live: c.live, Unfinished: c.un}
		if err := (Render{Profile: p, Refuse: true}).Run(context.Background(), st); err != nil {
			testenv.Need(t, !strings.Contains(err.Error(), "supports"), "a Debian 12 or 13 host: "+err.Error())
			t.Fatal(err)
		}
		var retired []string
		for _, op := range st.Rendered.Ops {
			if strings.HasPrefix(op.ID(), "service.retire_") {
				retired = append(retired, op.ID())
			}
		}
		if !reflect.DeepEqual(retired, c.want) {
			t.Errorf("%s: retires %v, want %v", c.name, retired, c.want)
		}
	}
}

// What an apply says of an apply that had not finished: nothing where
// this one did not finish either (no host manifest), "finished" for the
// same profile, "replaced" for another.
func TestFinishedLine(t *testing.T) {
	un := &hostmanifest.Unfinished{Profile: "caddy", Tool: "wptest test"}
	for _, c := range []struct {
		un   *hostmanifest.Unfinished
		m    *hostmanifest.Manifest
		want string
	}{
		{nil, &hostmanifest.Manifest{Profile: "caddy"}, ""},
		{un, nil, ""},
		{un, &hostmanifest.Manifest{Profile: "caddy"}, "finished by this apply (profile caddy): the last apply (profile caddy, by wptest test) did not finish"},
		{un, &hostmanifest.Manifest{Profile: "nginx"}, "replaced by this apply (profile nginx): the last apply (profile caddy, by wptest test) did not finish"},
	} {
		st := &State{Unfinished: c.un, Manifest: c.m}
		if got := st.FinishedLine(); (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("unfinished %v, manifest %v: %q, want %q…", c.un != nil, c.m != nil, got, c.want)
		}
	}
}

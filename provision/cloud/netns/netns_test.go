package netns_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/netns"
	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// up resolves src's machines block as the commands do (the registry picks
// the driver by the block's label) and plans it for run id.
func plan(t *testing.T, src, id string) (cloud.Cloud, *cloud.Plan, error) {
	t.Helper()
	m, _, err := cloud.Resolve(cloud.Choice{File: "machines.hcl", Src: []byte(src)})
	if err != nil {
		return nil, nil, err
	}
	d, err := cloud.Lookup(m.Driver)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	c, err := d.Open(cloud.OpenOptions{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	ttl, _ := m.TTLDuration()
	run := cloud.Run{ID: id, Dir: t.TempDir(), Owner: "test", Created: time.Now(), TTL: ttl}
	p, err := c.Plan(context.Background(), cloud.Spec{Machines: m, Run: run})
	return c, p, err
}

// What a machines block may say is checked before anything is made.
func TestPlanRefuses(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"an unknown release", `machines "netns" { image = "debian-11" }`, "debian-12 (bookworm) or debian-13 (trixie)"},
		{"a hostile image", `machines "netns" { image = "trixie; rm -rf /" }`, "want debian-12"},
		{"another user", `machines "netns" { user = "admin" }`, "root only"},
		// The machines' sizes: at the value, with what is wanted.
		{"a CPU range without its end", "machines \"netns\" {\n  server_cpus = \"1-\"\n}", `machines.hcl:2:17: Invalid server_cpus|2:   server_cpus = "1-"|server_cpus = "1-": want CPU numbers such as "1", "2-3" or "0,4-7".`},
		{"CPUs as words", "machines \"netns\" {\n  load_generator_cpus = \"all\"\n}", `machines.hcl:2:25: Invalid load_generator_cpus|load_generator_cpus = "all": want CPU numbers`},
		{"a size without a unit wptest knows", "machines \"netns\" {\n  server_memory = \"4X\"\n}", `machines.hcl:2:19: Invalid server_memory|server_memory = "4X": want a size such as "512M" or "4G" (K, M, G, T: powers of 1024).`},
		{"too little memory", "machines \"netns\" {\n  load_generator_memory = \"1M\"\n}", `machines.hcl:2:27: Invalid load_generator_memory|load_generator_memory = "1M": want at least 64M (the machine's sshd must start).`},
		{"a CPU this host does not have", "machines \"netns\" {\n  server_cpus = \"1000\"\n}", `server_cpus = "1000": CPU 1000 is not one of this host's (wptest may use `},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := plan(t, c.src, "refused")
			if exitcode.Of(err) != exitcode.Config || err == nil {
				t.Fatalf("got %v (exit %d), want exit 2 saying %q", err, exitcode.Of(err), c.want)
			}
			for _, w := range strings.Split(c.want, "|") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %v, want it to say %q", err, w)
				}
			}
		})
	}
}

// -var values for the sizes are checked as the block's are.
func TestVarsRefused(t *testing.T) {
	for v, want := range map[string]string{
		"server_cpus":           `server_cpus = "x": want CPU numbers`,
		"load_generator_memory": `load_generator_memory = "x": want a size`,
	} {
		m, _, err := cloud.Resolve(cloud.Choice{File: "machines.hcl", Src: []byte(`machines "netns" {}`), Vars: map[string]string{v: "x"}})
		if err == nil {
			err = m.Validate()
		}
		if exitcode.Of(err) != exitcode.Config || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-var %s=x: %v (exit %d), want exit 2 saying %q", v, err, exitcode.Of(err), want)
		}
	}
}

// TestMachinesUpDown makes a server and a load generator with the netns
// driver through the registry, as `wptest machines up` does (cloud.Up),
// runs a command over SSH on each with the run's own key and pins, has
// the server apt-get update through this host's apt-cacher-ng and checks
// that proxy listens at its one private address alone (not 0.0.0.0, not
// the machines' gateways) and fetches from the mirror alone (nothing of
// this host's own, its loopback included), lists them by label, and removes them: afterwards nothing of them exists
// (process, network namespace, veths, mount, cgroup, directory, subnet
// claim) and the label lists nothing.
func TestMachinesUpDown(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.Need(t, machine.Check() == nil, "netns machines: "+errString(machine.Check()))
	c, p, err := plan(t, `machines "netns" {
  image           = "`+platformOf(t)+`"
  load_generators = 1
}`, "nstest-"+strings.ToLower(strings.ReplaceAll(time.Now().UTC().Format("150405.000"), ".", "")))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Owned || len(p.Machines) != 2 {
		t.Fatalf("plan: owned %v, %d machines", p.Owned, len(p.Machines))
	}
	run := p.Spec.Run
	hostCPUs, err := machine.HostCPUs()
	if err != nil {
		t.Fatal(err)
	}
	srvCPUs, loadCPUs, shared := machine.Split(hostCPUs)
	var live []machine.Record
	var liveLeft [][]string
	ctx := context.Background()
	ms, err := cloud.Up(ctx, c, p, cloud.NopJournal, cloud.UpOptions{Log: testWriter{t}, Then: func(ctx context.Context, ms []cloud.Machine) error {
		rs, err := c.List(ctx, cloud.Selector{Run: run.ID})
		if err != nil || len(rs) != 2 {
			t.Errorf("the run's label lists %v (%v), want its 2 machines", rs, err)
		}
		all, err := machine.Records()
		if err != nil {
			return err
		}
		for _, r := range all {
			if r.Labels[cloud.LabelRun] == run.ID {
				live = append(live, r)
				liveLeft = append(liveLeft, r.Leftovers())
			}
		}
		for _, m := range ms {
			h, err := cloud.Connect(ctx, run.Dir, m, nil)
			if err != nil {
				return err
			}
			res, err := h.Run(ctx, host.Cmd{Script: "hostname; getent hosts server loadgen-1 wptest-host | wc -l; test -e /run/systemd/system || echo no-systemd; ps -o comm= -p 1",
				Timeout: time.Minute})
			if err != nil {
				h.Close()
				return err
			}
			want := strings.TrimPrefix(m.Name, "wptest-"+run.ID+"-") + "\n3\nno-systemd\nsshd\n"
			if string(res.Stdout) != want {
				t.Errorf("%s says %q, want %q", m.Name, res.Stdout, want)
			}
			cpus := loadCPUs
			if m.Role == cloud.RoleServer {
				cpus = srvCPUs
			}
			checkPinned(ctx, t, h, m.Name, cpus)
			// apt works through the proxy, which is open to no stranger.
			sh := func(script string) string {
				res, err := h.Run(ctx, host.Cmd{Script: script, Timeout: 5 * time.Minute})
				if err != nil {
					t.Errorf("%s: %s: %v", m.Name, script, err)
				}
				return strings.TrimSpace(string(res.Stdout))
			}
			testenv.CheckAptCacherPrivate(t, gatewayOf(t, m.Address), sh)
			if m.Role == cloud.RoleServer {
				sh("apt-get -q update >/dev/null")
				// ... from the mirror alone: nothing of this host's.
				suite, _ := machine.SuiteOf(platformOf(t))
				testenv.CheckAptProxyMirrorOnly(t, suite, sh)
			}
			h.Close()
		}
		// wptest's own work (this process) is off the server's CPUs.
		if self, err := machine.HostCPUs(); err != nil || (!shared && machine.FormatCPUs(self) != machine.FormatCPUs(loadCPUs)) {
			t.Errorf("this process runs on CPUs %v (%v) while the machines live; want the load generators' %v", self, err, loadCPUs)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if self, _ := machine.HostCPUs(); machine.FormatCPUs(self) != machine.FormatCPUs(hostCPUs) {
		t.Errorf("after down this process runs on CPUs %v; want its own %v back", self, hostCPUs)
	}
	if len(ms) != 2 || ms[0].Role != cloud.RoleServer || ms[1].Role != cloud.RoleLoadGen {
		t.Errorf("machines %+v", ms)
	}
	if len(live) != 2 {
		t.Fatalf("%d machines of the run while it ran, want 2", len(live))
	}
	for i, r := range live {
		if len(liveLeft[i]) < 7 { // process, namespace, link, mount, cgroup, directory, subnet claim
			t.Errorf("%s while it ran: %v; the leftover check misses something", r.Name, liveLeft[i])
		}
		if left := r.Leftovers(); len(left) > 0 {
			t.Errorf("%s after down: left %v", r.Name, left)
		}
		assertGone(t, r)
	}
	if rs, err := c.List(ctx, cloud.Selector{Run: run.ID}); err != nil || len(rs) != 0 {
		t.Errorf("after down the label lists %v (%v)", rs, err)
	}
	// down again: what is gone counts as removed.
	if err := c.Destroy(ctx, cloud.Selector{Run: run.ID}); err != nil {
		t.Errorf("second down: %v", err)
	}
	if err := c.Destroy(ctx, cloud.Selector{}); !errors.Is(err, cloud.ErrEmptySelector) {
		t.Errorf("empty selector: %v", err)
	}
}

// checkPinned: the machine's PID 1 and a shell of it run on cpus alone
// (taskset -p), its cgroup's cpuset.cpus (as the machine sees it, read-only)
// says so, and it has a memory limit.
func checkPinned(ctx context.Context, t *testing.T, h host.Host, name string, cpus []int) {
	t.Helper()
	res, err := h.Run(ctx, host.Cmd{Timeout: time.Minute, Script: `taskset -pc 1; taskset -pc $$
cat /sys/fs/cgroup/cpuset/cpuset.cpus 2>/dev/null || cat /sys/fs/cgroup/cpuset.cpus
cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max`})
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	out := string(res.Stdout)
	t.Logf("%s:\n%s", name, out)
	l := strings.Split(strings.TrimSpace(out), "\n")
	want := machine.FormatCPUs(cpus)
	if len(l) != 4 || !strings.HasSuffix(l[0], "affinity list: "+want) || !strings.HasSuffix(l[1], "affinity list: "+want) || l[2] != want {
		t.Errorf("%s: taskset -p of PID 1 and of a shell, and cpuset.cpus, say %q; want CPUs %s", name, out, want)
		return
	}
	if n, err := strconv.ParseInt(l[3], 10, 64); err != nil || n < machine.MinMemory || n >= 1<<60 {
		t.Errorf("%s: memory limit %q: want one", name, l[3])
	}
}

// assertGone asks the system itself (ip, ps, findmnt), not the record.
func assertGone(t *testing.T, r machine.Record) {
	t.Helper()
	for _, c := range []struct{ what, cmd string }{
		{"ip netns list", "ip netns list"},
		{"findmnt", "findmnt -rn -o TARGET"},
		{"ps", "ps -e -o args="},
	} {
		out, _ := exec.Command("sh", "-c", c.cmd).CombinedOutput()
		if strings.Contains(string(out), r.ID) || strings.Contains(string(out), r.Dir) {
			t.Errorf("%s still shows %s (%s):\n%s", c.what, r.Name, r.ID, out)
		}
	}
	if _, err := os.Stat(r.Dir); err == nil {
		t.Errorf("%s still exists", r.Dir)
	}
}

// gatewayOf is this host's side of the /30 whose machine side is addr
// (10.213.X.2: 10.213.X.1).
func gatewayOf(t *testing.T, addr string) string {
	ip := net.ParseIP(addr).To4()
	if ip == nil || ip[3]&3 != 2 {
		t.Fatalf("machine address %q is no 10.213.X.2", addr)
	}
	return net.IPv4(ip[0], ip[1], ip[2], ip[3]-1).String()
}

func platformOf(t *testing.T) string {
	if s := os.Getenv(testenv.BareSuiteEnv); s != "" {
		return machine.Platform(s)
	}
	return netns.DefaultImage
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

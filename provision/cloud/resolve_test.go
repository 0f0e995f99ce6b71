package cloud_test

import (
	"github.com/hashicorp/hcl/v2/hclparse"
	"slices"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
	_ "github.com/wptest/wptest/provision/cloud/drivers"
	"github.com/wptest/wptest/provision/cloud/hetzner"
	"github.com/wptest/wptest/provision/cloud/netns"
)

// A file's machines block, the command line over it, and what Resolve
// makes of them: the block's driver-specific attributes stay with its
// driver; --target/--driver naming another driver gets that driver's
// defaults, the block's portable attributes (load generators, ttl), -var
// and the flags' own values, and NotCarried names what was left.
func TestResolveSwitchedDriver(t *testing.T) {
	post := "machines \"hetzner\" {\n  server_type = \"ccx33\"\n  image = \"alma-9\"\n  location = \"hel1\"\n" +
		"  load_generators = 2\n  ttl = \"3h\"\n  user = \"admin\"\n}\n"
	static := "machines \"static\" {\n  targets = [\"ssh://root@192.0.2.7\"]\n  load_generators = 0\n}\n"
	type want struct {
		driver, serverType, image, location, ttl, user, knownHosts, identity string
		loadGens                                                             int
		targets                                                              []string
		notCarried                                                           []string // substrings; nil: none
	}
	for _, tc := range []struct {
		name string
		src  string
		c    cloud.Choice
		want want
	}{
		{"hetzner block, --target netns", post, cloud.Choice{Run: true, Target: netns.Name},
			want{driver: "netns", image: netns.DefaultImage, ttl: "3h", user: "root", loadGens: 2,
				notCarried: []string{"--target netns chose the netns driver", `server_type "ccx33"`, `image "alma-9"`, `location "hel1"`, `user "admin"`}}},
		{"hetzner block, --target hetzner keeps it", post, cloud.Choice{Run: true, Target: hetzner.Name},
			want{driver: "hetzner", serverType: "ccx33", image: "alma-9", location: "hel1", ttl: "3h", user: "admin", loadGens: 2}},
		{"hetzner block, no flag keeps it", post, cloud.Choice{Run: true},
			want{driver: "hetzner", serverType: "ccx33", image: "alma-9", location: "hel1", ttl: "3h", user: "admin", loadGens: 2}},
		{"hetzner block, --target netns, -var over it", post,
			cloud.Choice{Run: true, Target: netns.Name, Vars: map[string]string{"image": "debian-12", "load_generators": "3", "user": "root"}},
			want{driver: "netns", image: "debian-12", ttl: "3h", user: "root", loadGens: 3, notCarried: []string{`image "alma-9"`}}},
		{"hetzner block, --target ssh://", post, cloud.Choice{Run: true, Target: "ssh://root@192.0.2.1:2222", KnownHosts: "/kh"},
			want{driver: "static", ttl: "3h", user: "root", knownHosts: "/kh", loadGens: 2, targets: []string{"ssh://root@192.0.2.1:2222"},
				notCarried: []string{"--target ssh://root@192.0.2.1:2222 chose the static driver", `server_type "ccx33"`}}},
		{"hetzner block, machines --target ssh://", post, cloud.Choice{Targets: []string{"ssh://root@192.0.2.1", "ssh://root@192.0.2.2"}},
			want{driver: "static", ttl: "3h", user: "root", loadGens: 2, targets: []string{"ssh://root@192.0.2.1", "ssh://root@192.0.2.2"},
				notCarried: []string{`location "hel1"`}}},
		{"static block, --target ssh:// with --known-hosts and --identity", static, cloud.Choice{Run: true, Target: "ssh://root@192.0.2.9", KnownHosts: "/etc/h.known", Identity: "/k"},
			want{driver: "static", ttl: cloud.DefaultTTL, user: "root", knownHosts: "/etc/h.known", identity: "/k", targets: []string{"ssh://root@192.0.2.9"}}},
		{"static block, --driver hetzner", static, cloud.Choice{Driver: hetzner.Name},
			want{driver: "hetzner", serverType: hetzner.DefaultServerType, image: hetzner.DefaultImage, location: hetzner.DefaultLocation,
				ttl: cloud.DefaultTTL, user: "root", notCarried: []string{"--driver hetzner", `targets "ssh://root@192.0.2.7"`}}},
		{"netns block, --target hetzner: its image is not Hetzner's", "machines \"netns\" {\n  image = \"debian-12\"\n}\n", cloud.Choice{Run: true, Target: hetzner.Name},
			want{driver: "hetzner", serverType: hetzner.DefaultServerType, image: hetzner.DefaultImage, location: hetzner.DefaultLocation,
				ttl: cloud.DefaultTTL, user: "root", loadGens: 1, notCarried: []string{`image "debian-12"`}}},
		{"local block, --target netns: nothing to leave", "machines \"local\" {\n  load_generators = 0\n}\n", cloud.Choice{Run: true, Target: netns.Name},
			want{driver: "netns", image: netns.DefaultImage, ttl: cloud.DefaultTTL, user: "root"}},
		{"no block, --target netns", "", cloud.Choice{Run: true, Target: netns.Name},
			want{driver: "netns", image: netns.DefaultImage, ttl: cloud.DefaultTTL, user: "root", loadGens: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.File, c.Src = "e.hcl", []byte(tc.src)
			m, _, err := cloud.Resolve(c)
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			got := want{m.Driver, m.Attr("server_type"), m.Attr("image"), m.Attr("location"), m.TTL, m.User, m.KnownHosts, m.IdentityFile, m.LoadGens(), m.Targets, nil}
			w.notCarried = nil
			if !slices.Equal(got.targets, w.targets) || got.driver != w.driver || got.serverType != w.serverType || got.image != w.image ||
				got.location != w.location || got.ttl != w.ttl || got.user != w.user || got.knownHosts != w.knownHosts ||
				got.identity != w.identity || got.loadGens != w.loadGens {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			if tc.want.notCarried == nil && m.NotCarried != "" {
				t.Errorf("NotCarried %q, want none", m.NotCarried)
			}
			for _, s := range tc.want.notCarried {
				if !strings.Contains(m.NotCarried, s) {
					t.Errorf("NotCarried %q lacks %q", m.NotCarried, s)
				}
			}
			if d := m.Describe(); !strings.HasPrefix(d, m.Driver+": ") || (m.Attr("image") != "" && !strings.Contains(d, `image "`+m.Attr("image")+`"`)) {
				t.Errorf("Describe %q", d)
			}
		})
	}
}

// Every attribute a driver reads that is not portable is left when the
// command line picks another driver: no driver's attribute is missed
// (a new one Resolve cannot unset would leak into the other driver).
func TestResolveLeavesEveryDriverAttribute(t *testing.T) {
	for _, from := range cloud.Drivers() {
		var lines, names []string
		for _, a := range append(append([]cloud.Attribute(nil), from.Attributes...), cloud.Common...) {
			if a.Portable || a.Operator != "" {
				continue // carried; or no file's to set
			}
			v := `"zq-` + a.Name + `"`
			if a.Check != nil && a.Check("zq-"+a.Name) != nil {
				v = `"` + a.Example + `"` // checked where the block says it, before any switch
			}
			if a.Name == "targets" {
				v = `["ssh://root@192.0.2.3"]`
			}
			lines, names = append(lines, "  "+a.Name+" = "+v), append(names, a.Name+" ")
		}
		src := "machines \"" + from.Name + "\" {\n" + strings.Join(lines, "\n") + "\n}\n"
		for _, to := range cloud.Drivers() {
			if to.Name == from.Name {
				continue
			}
			m, _, err := cloud.Resolve(cloud.Choice{File: "e.hcl", Src: []byte(src), Driver: to.Name})
			if err != nil {
				t.Fatalf("%s block, --driver %s: %v", from.Name, to.Name, err)
			}
			for _, n := range names {
				if !strings.Contains(m.NotCarried, n) {
					t.Errorf("%s block, --driver %s: %s not left: %q", from.Name, to.Name, n, m.NotCarried)
				}
			}
			for _, s := range []string{m.Attr("server_type"), m.Attr("image"), m.Attr("location"), m.KnownHosts, m.IdentityFile, m.User, strings.Join(m.Targets, ",")} {
				if strings.Contains(s, "zq-") || strings.Contains(s, "192.0.2.3") {
					t.Errorf("%s block, --driver %s: %q carried", from.Name, to.Name, s)
				}
			}
			// Sizes a driver does not read stay unset (a given one is left above).
			sizes := map[string]string{"server_cpus": m.Attr("server_cpus"), "server_memory": m.Attr("server_memory"), "load_generator_cpus": m.Attr("load_generator_cpus"), "load_generator_memory": m.Attr("load_generator_memory")}
			for _, a := range to.Attributes {
				delete(sizes, a.Name)
			}
			for n, v := range sizes {
				if v != "" {
					t.Errorf("%s block, --driver %s: %s %q carried", from.Name, to.Name, n, v)
				}
			}
		}
	}
}

// Hostile input stays an error when the command line switches drivers: an
// attribute the block's driver does not know is named at file:line:col
// before any switch, and a -var the chosen driver does not read is refused
// rather than ignored.
func TestResolveSwitchedDriverErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		c         cloud.Choice
		want      []string
	}{
		{"unknown attribute, --target netns", "machines \"hetzner\" {\n  image = \"alma-9\"\n  datacenter = \"fsn1-dc14\"\n}\n",
			cloud.Choice{Run: true, Target: netns.Name}, []string{"e.hcl:3:3: Unsupported argument", `datacenter = "fsn1-dc14"`}},
		{"netns block with hetzner's attribute, --target netns", "machines \"netns\" {\n  server_type = \"ccx23\"\n}\n",
			cloud.Choice{Run: true, Target: netns.Name}, []string{"e.hcl:2:3: Attribute not read by this driver", "The netns driver does not read server_type"}},
		{"bad ttl, --target netns", "machines \"hetzner\" {\n  ttl = \"soon\"\n}\n",
			cloud.Choice{Run: true, Target: netns.Name}, []string{"e.hcl:2:9: Invalid ttl"}},
		{"-var the chosen driver does not read", "machines \"hetzner\" {}\n",
			cloud.Choice{Run: true, Target: netns.Name, Vars: map[string]string{"server_type": "ccx33", "location": "nbg1"}},
			[]string{"-var location, server_type: the netns driver does not read it; it reads image,"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.File, c.Src = "e.hcl", []byte(tc.src)
			_, _, err := cloud.Resolve(c)
			if err == nil || exitcode.Of(err) != exitcode.Config {
				t.Fatalf("err %v (code %d), want a config error", err, exitcode.Of(err))
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error lacks %q:\n%s", s, err)
				}
			}
		})
	}
}

// A file its reader parsed is not parsed again: Resolve reads the machines
// block from the parsed file (Choice.Parsed), not from its bytes.
func TestResolveReadsTheParsedFile(t *testing.T) {
	src := []byte("machines \"netns\" {\n  load_generators = 2\n}\n")
	f, diags := hclparse.NewParser().ParseHCL(src, "exp.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	m, _, err := cloud.Resolve(cloud.Choice{File: "exp.hcl", Src: []byte("not HCL {"), Parsed: f, Run: true})
	if err != nil || m.Driver != "netns" || m.LoadGens() != 2 {
		t.Fatalf("machines %+v, %v: want netns with 2 load generators, from the parsed file", m, err)
	}
	if _, _, err := cloud.Resolve(cloud.Choice{File: "exp.hcl", Src: []byte("not HCL {"), Run: true}); err == nil {
		t.Error("bytes that are not HCL read without an error where nothing was parsed")
	}
}

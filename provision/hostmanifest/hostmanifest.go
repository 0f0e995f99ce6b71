// Package hostmanifest is the record a server host keeps of what wptest
// made of it: after every apply, /var/lib/wptest/host-manifest.json on the
// host says which profile is live (name and content hash), with which
// variables (sensitive ones redacted), on which platform, the versions of
// every server and PHP on the host, what the profile declares about itself
// (its site, process groups and server: services, status page, worker
// limit, protocols, what the report shows), the checks that passed, every deviation from the profile as written, in
// words, and, where the platform has them, SELinux's mode, its local
// changes and firewalld's state (facts selinux, selinux_changes,
// firewalld). It binds, by its SHA-256, the record of the files the profile
// wrote and made in its site (SiteFilesPath), which verify checks.
// `wptest status` reads it back; `wptest swap` reads it to know what
// it replaces.
package hostmanifest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/provision"
)

// Path is where the manifest lives on the host.
const Path = "/var/lib/wptest/host-manifest.json"

// SiteFilesPath is where the host keeps the record of the files the live
// profile wrote and made in its site (a fixture.SiteFiles): beside the
// manifest, root's, outside every docroot. It is apart from the manifest
// because it lists every precompressed copy (over a thousand), which `up
// -o json` and a run's manifest need not repeat.
const SiteFilesPath = "/var/lib/wptest/site-files.json"

// Schema is the manifest format version.
const Schema = 1

// Manifest is the host's record of the live profile.
type Manifest struct {
	Schema      int        `json:"schema"`
	Tool        string     `json:"tool"` // "wptest 0.1.0"
	Host        string     `json:"host"`
	Profile     string     `json:"profile"`
	ProfileHash string     `json:"profile_hash"`
	Platform    string     `json:"platform"`
	Variables   []Variable `json:"variables"`
	// Deviations say in words where the host does not do what the profile
	// describes (e.g. "uid switching: mpm-itk instead of mod_ruid2 ...").
	Deviations []string `json:"deviations"`
	// Versions are the "*_version" facts: "apache", "php_cli", "caddy", ...
	Versions map[string]string `json:"versions"`
	// Site, Groups and Server are what the profile says of itself: the
	// site it serves (for seed and run), its process groups (for the
	// sampler) and its web server (services, status page, worker limit,
	// protocols, what the report shows).
	Site   *provision.Site          `json:"site,omitempty"`
	Groups []provision.ProcessGroup `json:"process_groups,omitempty"`
	Server *provision.Server        `json:"server,omitempty"`
	// Teardown are the commands the profile gives for when the run's
	// machines go down and this host stays (a static or local machine):
	// what must not outlive the run, such as its firewalld rules.
	Teardown []string `json:"teardown,omitempty"`
	// Retired are services earlier profiles ran on the host, stopped by
	// this apply or an earlier one: the next apply stops them too if
	// anything started them again.
	Retired []provision.Service `json:"retired_services,omitempty"`
	// Facts are the other facts the profile reads, by name.
	Facts  map[string]string `json:"facts,omitempty"`
	Checks []Check           `json:"checks"`
	// Changes is how many ops the apply that wrote this changed.
	Changes int `json:"changes"`
	// Previous is the profile this apply replaced ("" on the first apply or
	// when it re-applied the same profile).
	Previous string `json:"previous_profile,omitempty"`
	// SiteFiles binds the record of the files the profile wrote and made in
	// its site (Site.Files, Site.Made), as listed after the last apply or
	// seed; nil: the profile declares no site.
	SiteFiles *SiteFiles `json:"site_files,omitempty"`
	// Written and Watch are what the drift record keeps: the files the
	// profile's file ops write and the paths its watch blocks name.
	Written []provision.Written `json:"written,omitempty"`
	Watch   []provision.Watch   `json:"watch,omitempty"`
	// Drift binds the drift record (DriftPath) of the last apply; nil:
	// none kept.
	Drift *DriftRef `json:"drift,omitempty"`
}

// SiteFiles names the record at Path, its SHA-256 and how many entries it
// lists.
type SiteFiles struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Entries int    `json:"entries"`
}

// Variable is one profile variable's final value; a sensitive one holds
// "(sensitive)", never the value.
type Variable struct {
	Name      string `json:"name"`
	Value     any    `json:"value"`
	Sensitive bool   `json:"sensitive,omitempty"`
}

// Check is one of the profile's checks and whether it passed.
type Check struct {
	ID     string `json:"id"`
	Passed bool   `json:"passed"`
}

// FromReport builds the manifest of a finished apply. tool names wptest
// and its version. Variables marked sensitive are redacted here too, not
// only trusted to the report.
func FromReport(rep *provision.Report, tool, previous string) *Manifest {
	m := &Manifest{
		Schema: Schema, Tool: tool, Host: rep.Host,
		Profile: rep.Profile, ProfileHash: rep.Hash, Platform: rep.Platform,
		Deviations: append([]string{}, rep.Deviations...),
		Versions:   map[string]string{},
		Changes:    rep.Changes,
		Site:       rep.Site,
		Groups:     rep.Groups,
		Teardown:   rep.Teardown,
		Server:     rep.Server,
		Retired:    rep.Retired,
		Written:    rep.Written,
		Watch:      rep.Watch,
	}
	if previous != rep.Profile {
		m.Previous = previous
	}
	for _, v := range rep.Variables {
		mv := Variable{Name: v.Name, Value: v.Value, Sensitive: v.Sensitive}
		if v.Sensitive {
			mv.Value = "(sensitive)"
		}
		m.Variables = append(m.Variables, mv)
	}
	sort.Slice(m.Variables, func(i, j int) bool { return m.Variables[i].Name < m.Variables[j].Name })
	for _, f := range rep.Facts {
		name := strings.TrimPrefix(f.ID, "fact.")
		out := f.Output
		if f.Error != "" && out == "" {
			out = "error: " + f.Error
		}
		switch {
		case strings.HasSuffix(name, "_version"):
			m.Versions[strings.TrimSuffix(name, "_version")] = out
		default:
			if m.Facts == nil {
				m.Facts = map[string]string{}
			}
			m.Facts[name] = out
		}
	}
	for _, c := range rep.Checks {
		m.Checks = append(m.Checks, Check{ID: c.ID, Passed: c.Passed})
	}
	return m
}

// Services are every service wptest's profiles ran on the host as far as
// m knows: the live server's and the retired ones. A profile applied next
// stops those it does not run itself (provision.Rendered.Retire). nil-safe.
func (m *Manifest) Services() []provision.Service {
	if m == nil {
		return nil
	}
	if m.Server == nil && len(m.Retired) == 0 {
		return m.legacyServices()
	}
	var out []provision.Service
	if m.Server != nil {
		out = append(out, m.Server.Services...)
	}
	return append(out, m.Retired...)
}

// Made are the sets of files the live profile makes in its site (its
// site_files blocks): a profile applied next removes those it does not make
// itself (provision.Rendered.RetireMade). nil-safe.
func (m *Manifest) Made() []provision.SiteFiles {
	if m == nil || m.Site == nil {
		return nil
	}
	return m.Site.Made
}

// LegacySvc is the service script the profiles of wptest before server
// blocks installed on every host.
const LegacySvc = "/usr/local/lib/wptest/wptest-svc"

// legacyServices reads a manifest written before profiles declared their
// server: those profiles named the server's executables in process group
// "web" and drove it with LegacySvc under the same names.
func (m *Manifest) legacyServices() []provision.Service {
	var out []provision.Service
	for _, g := range m.Groups {
		if g.Name != "web" {
			continue
		}
		for _, exe := range g.Exe {
			svc := LegacySvc + " " + exe
			out = append(out, provision.Service{Label: exe, Name: exe, Restart: svc + " restart", Stop: svc + " stop", Status: svc + " status"})
		}
	}
	return out
}

// Fact is a fact's recorded output by its name in the profile ("apache_mpm",
// "php_fpm_version"), whether a version or not; "" when there is none.
func (m *Manifest) Fact(name string) string {
	if v, ok := strings.CutSuffix(name, "_version"); ok {
		return m.Versions[v]
	}
	return m.Facts[name]
}

// Marshal is the manifest's file form: indented JSON with a final newline
// (map keys sorted by encoding/json, so the bytes depend only on the content).
func (m *Manifest) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Write stores m at Path on h (atomically: host.Put).
func Write(ctx context.Context, h host.Host, m *Manifest) error {
	b, err := m.Marshal()
	if err != nil {
		return fmt.Errorf("host manifest: %w", err)
	}
	if _, err := h.Run(ctx, host.Cmd{Script: "install -d -m 0755 /var/lib/wptest", Label: "host manifest"}); err != nil {
		return fmt.Errorf("host manifest on %s: %w", h.Name(), err)
	}
	if err := h.Put(ctx, Path, bytes.NewReader(b), host.PutOptions{Mode: 0o644}); err != nil {
		return fmt.Errorf("write host manifest %s on %s: %w", Path, h.Name(), err)
	}
	return nil
}

// Read returns the manifest on h, or nil without error when the host has
// none (no profile was ever applied by wptest).
func Read(ctx context.Context, h host.Host) (*Manifest, error) {
	res, err := h.Run(ctx, host.Cmd{Script: "if [ -e " + Path + " ]; then cat " + Path + "; else echo none; fi", Label: "host manifest"})
	if err != nil {
		return nil, fmt.Errorf("read host manifest on %s: %w", h.Name(), err)
	}
	out := bytes.TrimSpace(res.Stdout)
	if string(out) == "none" {
		return nil, nil
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("host manifest %s on %s is not valid JSON: %w", Path, h.Name(), err)
	}
	if m.Schema != Schema {
		return nil, fmt.Errorf("host manifest %s on %s has schema %d; this wptest reads schema %d", Path, h.Name(), m.Schema, Schema)
	}
	return &m, nil
}

// WriteText prints m for people (wptest status).
func (m *Manifest) WriteText(w io.Writer) {
	fmt.Fprintf(w, "host:     %s (%s)\n", m.Host, m.Platform)
	fmt.Fprintf(w, "profile:  %s %s\n", m.Profile, m.ProfileHash)
	if m.Previous != "" {
		fmt.Fprintf(w, "replaced: %s\n", m.Previous)
	}
	fmt.Fprintln(w, "variables:")
	for _, v := range m.Variables {
		fmt.Fprintf(w, "  %s = %v\n", v.Name, jsonish(v.Value))
	}
	fmt.Fprintln(w, "versions:")
	for _, k := range slices.Sorted(maps.Keys(m.Versions)) {
		fmt.Fprintf(w, "  %-9s %s\n", k, m.Versions[k])
	}
	if sv := m.Server; sv != nil {
		var names []string
		for _, s := range sv.Services {
			names = append(names, s.Name)
		}
		fmt.Fprintf(w, "server:   %s", strings.Join(names, " "))
		if len(sv.Protocols) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(sv.Protocols, " "))
		}
		if sv.Status != nil {
			fmt.Fprintf(w, "; status page %s", sv.Status.URL)
		}
		if sv.WorkerLimit > 0 {
			fmt.Fprintf(w, "; worker limit %d", sv.WorkerLimit)
		}
		fmt.Fprintln(w)
		for _, f := range sv.Shows {
			if !strings.HasSuffix(f, "_version") {
				fmt.Fprintf(w, "  %-9s %s\n", f, m.Fact(f))
			}
		}
	}
	if sf := m.SiteFiles; sf != nil {
		fmt.Fprintf(w, "site files: %d recorded in %s (sha256 %.16s)\n", sf.Entries, sf.Path, sf.SHA256)
	}
	if len(m.Deviations) == 0 {
		fmt.Fprintln(w, "deviations: none")
	} else {
		fmt.Fprintln(w, "deviations:")
		for _, d := range m.Deviations {
			fmt.Fprintf(w, "  - %s\n", d)
		}
	}
	// What the host's security setup is and what changed in it
	// (profiles record these where the platform has SELinux/firewalld).
	for _, k := range []string{"selinux", "selinux_changes", "firewalld"} {
		if v, ok := m.Facts[k]; ok {
			fmt.Fprintf(w, "%-9s %s\n", k+":", v)
		}
	}
	passed := 0
	for _, c := range m.Checks {
		if c.Passed {
			passed++
		}
	}
	fmt.Fprintf(w, "checks:   %d of %d passed at the last apply\n", passed, len(m.Checks))
}

func jsonish(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Package hostrecord is what a host records of the profile applied to it:
// the host manifest's content (Manifest) and what a profile says of itself
// there (its site, process groups, server, watched and written paths).
// Data only: it imports nothing of wptest, so what reads a run (results,
// compare, report) reads host manifests without provision, HCL or SSH.
// provision and provision/hostmanifest name these types by aliases.
package hostrecord

import (
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/internal/jsonstyle"
	"io"
	"maps"
	"slices"
	"strings"
)

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
	Site   *Site          `json:"site,omitempty"`
	Groups []ProcessGroup `json:"process_groups,omitempty"`
	Server *Server        `json:"server,omitempty"`
	// Teardown are the commands the profile gives for when the run's
	// machines go down and this host stays (a static or local machine):
	// what must not outlive the run, such as its firewalld rules.
	Teardown []string `json:"teardown,omitempty"`
	// Retired are services earlier profiles ran on the host, stopped by
	// this apply or an earlier one: the next apply stops them too if
	// anything started them again.
	Retired []Service `json:"retired_services,omitempty"`
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
	Written []Written `json:"written,omitempty"`
	Watch   []Watch   `json:"watch,omitempty"`
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

// Services are every service wptest's profiles ran on the host as far as
// m knows: the live server's and the retired ones. A profile applied next
// stops those it does not run itself (Rendered.Retire). nil-safe.
func (m *Manifest) Services() []Service {
	if m == nil {
		return nil
	}
	if m.Server == nil && len(m.Retired) == 0 {
		return m.legacyServices()
	}
	var out []Service
	if m.Server != nil {
		out = append(out, m.Server.Services...)
	}
	return append(out, m.Retired...)
}

// Made are the sets of files the live profile makes in its site (its
// site_files blocks): a profile applied next removes those it does not make
// itself (Rendered.RetireMade). nil-safe.
func (m *Manifest) Made() []MadeFiles {
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
func (m *Manifest) legacyServices() []Service {
	var out []Service
	for _, g := range m.Groups {
		if g.Name != "web" {
			continue
		}
		for _, exe := range g.Exe {
			svc := LegacySvc + " " + exe
			out = append(out, Service{Label: exe, Name: exe, Restart: svc + " restart", Stop: svc + " stop", Status: svc + " status"})
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
	jsonstyle.Lists(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
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

// DriftRef binds the drift record to the host manifest.
type DriftRef struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Entries int    `json:"entries"`
}

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
	"github.com/wptest/wptest/hostrecord"
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

// The host manifest's content: the types live in hostrecord, which a
// run's readers import without provision or host.
type (
	Manifest  = hostrecord.Manifest
	SiteFiles = hostrecord.SiteFiles
	Variable  = hostrecord.Variable
	Check     = hostrecord.Check
)

// LegacySvc is the service script the profiles of wptest before server
// blocks installed on every host.
const LegacySvc = hostrecord.LegacySvc

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
		mv := v
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

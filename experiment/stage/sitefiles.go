package stage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// The files a profile wrote and made in its site (its probes, the copies
// it precompressed) are the profile's: recorded after every apply and
// every seed (the seed removes copies inside core's directories and the
// profile's site_refresh makes them again), bound by the host manifest,
// checked by verify, removed when a profile without them takes the host
// (Render: RetireMade).

// RecordSiteFiles lists what the profile m describes wrote and made in its
// site, its own files (Site.Files) and each site_files set (its list
// command, run by root as every profile command is; the profile's does its
// listing as the site's owner), with each entry's type, mode, owner and
// content hash, which wptest lists and hashes in the docroot as the site's
// owner (fixture's Site.owned); writes the record at
// hostmanifest.SiteFilesPath (root's, outside the docroot) and binds it in
// m.SiteFiles (the caller writes m). A profile without a site has none.
func RecordSiteFiles(ctx context.Context, h host.Host, m *hostmanifest.Manifest) error {
	m.SiteFiles = nil
	p := hostmanifest.SiteFilesPath
	if m.Site == nil {
		if _, err := h.Run(ctx, host.Cmd{Script: "rm -f " + host.Quote(p), Label: "site files"}); err != nil {
			return fmt.Errorf("site files on %s: %w", h.Name(), err)
		}
		return nil
	}
	sets := map[string][]string{"file": m.Site.Files}
	for _, set := range m.Site.Made {
		res, err := h.Run(ctx, host.Cmd{Script: set.List, Label: "list the site's " + set.Name + " files", Timeout: 5 * time.Minute})
		if err != nil {
			return fmt.Errorf("list the site's %s files on %s: %w", set.Name, h.Name(), err)
		}
		for _, f := range strings.Split(string(res.Stdout), "\x00") {
			if f = strings.TrimPrefix(f, "./"); f != "" {
				sets[set.Name] = append(sets[set.Name], f)
			}
		}
	}
	rec, err := fixture.ListSiteFiles(ctx, fixture.Site{Host: h, Docroot: m.Site.Docroot, Owner: m.Site.Owner, Group: m.Site.Group}, m.Profile, sets)
	if err != nil {
		return fmt.Errorf("the site's files: %w", err)
	}
	b := rec.JSON()
	if _, err := h.Run(ctx, host.Cmd{Script: "install -d -m 0755 " + host.Quote(path.Dir(p)), Label: "site files"}); err != nil {
		return fmt.Errorf("site files on %s: %w", h.Name(), err)
	}
	if err := h.Put(ctx, p, bytes.NewReader(b), host.PutOptions{Mode: 0o644}); err != nil {
		return fmt.Errorf("write %s on %s: %w", p, h.Name(), err)
	}
	sum := sha256.Sum256(b)
	m.SiteFiles = &hostmanifest.SiteFiles{Path: p, SHA256: hex.EncodeToString(sum[:]), Entries: len(rec.Entries)}
	return nil
}

// rerecordSiteFiles records the live profile's site files again after a
// seed into its site; a seed into another docroot changes nothing of it.
func rerecordSiteFiles(ctx context.Context, s fixture.Site) error {
	m, err := hostmanifest.Read(ctx, s.Host)
	if err != nil || m == nil || m.Site == nil || path.Clean(m.Site.Docroot) != path.Clean(s.Docroot) {
		return err
	}
	if err := RecordSiteFiles(ctx, s.Host, m); err != nil {
		return err
	}
	return hostmanifest.Write(ctx, s.Host, m)
}

// siteFilesOf is the live profile's record of its site's files when s is
// that site: nil when there is none, and in words what is wrong when the
// record is not the one the host manifest binds.
func siteFilesOf(ctx context.Context, s fixture.Site) (*fixture.SiteFiles, string, error) {
	m, err := hostmanifest.Read(ctx, s.Host)
	if err != nil || m == nil || m.Site == nil || m.SiteFiles == nil || path.Clean(m.Site.Docroot) != path.Clean(s.Docroot) {
		return nil, "", err
	}
	rc, err := s.Host.Get(ctx, m.SiteFiles.Path)
	if err != nil {
		return nil, fmt.Sprintf("unreadable (%v): the host manifest binds %d entries of profile %s's", err, m.SiteFiles.Entries, m.Profile), nil
	}
	// Root's file outside the docroot; bounded all the same.
	const maxRecord = 64 << 20
	b, err := io.ReadAll(io.LimitReader(rc, maxRecord+1))
	rc.Close()
	if err != nil {
		return nil, "", fmt.Errorf("read %s on %s: %w", m.SiteFiles.Path, s.Host.Name(), err)
	}
	if len(b) > maxRecord {
		return nil, fmt.Sprintf("larger than %d bytes: the host manifest binds %d entries of profile %s's", maxRecord, m.SiteFiles.Entries, m.Profile), nil
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != m.SiteFiles.SHA256 {
		return nil, fmt.Sprintf("sha256 %.16s, the host manifest binds %.16s: changed since profile %s's apply or the last seed", hex.EncodeToString(sum[:]), m.SiteFiles.SHA256, m.Profile), nil
	}
	rec, err := fixture.ParseSiteFiles(b)
	if err != nil {
		return nil, err.Error(), nil
	}
	if path.Clean(rec.Docroot) != path.Clean(s.Docroot) || rec.Profile != m.Profile {
		return nil, fmt.Sprintf("the record is of profile %s in %s, the host manifest's of %s in %s", rec.Profile, rec.Docroot, m.Profile, m.Site.Docroot), nil
	}
	return rec, "", nil
}

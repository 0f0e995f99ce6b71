package profiles

import (
	"bytes"
	"io/fs"
	"path"
	"testing"
)

// The parts every server profile shares (site user, docroot, probe files,
// certificate, service control, facts; the PHP-FPM pool for the FPM
// profiles) are copied into each profile directory, because a profile reads
// files only inside its own directory. These copies must stay identical:
// the first seed's promise is that only the web server changes.
func TestSharedPartsAreIdentical(t *testing.T) {
	groups := []struct {
		profiles []string
		files    []string
	}{
		{
			profiles: []string{"cpanel-apache", "tuned-apache", "caddy", "corehttpd"},
			files:    []string{"20-shared.hcl", "28-tls.hcl", "90-facts.hcl"},
		},
		{
			profiles: []string{"tuned-apache", "caddy", "corehttpd"},
			files:    []string{"25-fpm.hcl", "templates/fpm/pool.conf", "templates/fpm/opcache.ini"},
		},
	}
	// Everything under templates/shared/ of the first profile, too.
	shared, err := fs.Glob(FS, "cpanel-apache/templates/shared/*")
	if err != nil || len(shared) == 0 {
		t.Fatalf("no shared templates: %v", err)
	}
	for _, s := range shared {
		groups[0].files = append(groups[0].files, "templates/shared/"+path.Base(s))
	}
	for _, g := range groups {
		for _, f := range g.files {
			want, err := fs.ReadFile(FS, path.Join(g.profiles[0], f))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range g.profiles[1:] {
				got, err := fs.ReadFile(FS, path.Join(p, f))
				if err != nil {
					t.Errorf("%s: %v (every one of %v needs it)", p, err, g.profiles)
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s/%s differs from %s/%s: copy the shared file to every profile", p, f, g.profiles[0], f)
				}
			}
		}
	}
	// And no profile has a shared file the others lack.
	for _, p := range groups[0].profiles {
		extra, _ := fs.Glob(FS, p+"/templates/shared/*")
		if len(extra) != len(shared) {
			t.Errorf("%s has %d files in templates/shared, cpanel-apache has %d", p, len(extra), len(shared))
		}
	}
}

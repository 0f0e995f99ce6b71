package provision

import (
	"fmt"
	"path"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Site is what a profile declares about the site it serves (the site
// block): where seeding puts WordPress, as whom, with which PHP, and where
// the profile left the database's credentials. It is recorded in the host
// manifest so that `wptest seed` and `run` agree with the live profile.
type Site struct {
	Docroot string `json:"docroot"`
	Owner   string `json:"owner"`
	Group   string `json:"group"`
	// PHP is the php-cli binary seeding runs as the site user.
	PHP string `json:"php"`
	// Core is WordPress core on the host (the distribution's package),
	// where seeding copies it from.
	Core string `json:"core,omitempty"`
	// Database is the root-only file on the host holding the site's
	// database credentials as shell assignments (DB_NAME, DB_USER,
	// DB_PASSWORD, DB_HOST); the password never leaves it but for the
	// seeder's connection.
	Database string `json:"database,omitempty"`
	// Rewrite says how permalinks reach index.php: "htaccess" (the server
	// reads WordPress's .htaccess, which seeding writes) or "server" (the
	// server's own configuration routes them).
	Rewrite string `json:"rewrite"`
	// Refresh are the commands (site_refresh blocks, run as root in
	// order) after which the server serves files that seeding just wrote:
	// e.g. a PHP-FPM reload, so OPcache drops the old wp-config.php.
	Refresh []string `json:"refresh,omitempty"`
}

// ProcessGroup is a named set of the server's processes the sampler
// reports apart (process_group blocks): those whose executable (or
// command name) is one of Exe and, when Users is set, whose user is one of
// Users. Every other process on the host is "other".
type ProcessGroup struct {
	Name  string   `json:"name"`
	Exe   []string `json:"exe"`
	Users []string `json:"users,omitempty"`
}

type siteBlock struct {
	Docroot      string    `hcl:"docroot"`
	Owner        string    `hcl:"owner"`
	Group        string    `hcl:"group"`
	PHP          string    `hcl:"php"`
	Core         string    `hcl:"core,optional"`
	Database     string    `hcl:"database,optional"`
	Rewrite      string    `hcl:"rewrite"`
	DocrootRange hcl.Range `hcl:"docroot,attr_value_range"`
	RewriteRange hcl.Range `hcl:"rewrite,attr_value_range"`
}

type refreshBlock struct {
	Run string `hcl:"run"`
}

type groupBlock struct {
	Exe      []string  `hcl:"exe"`
	Users    []string  `hcl:"users,optional"`
	ExeRange hcl.Range `hcl:"exe,attr_value_range"`
}

// decodeDescriptions reads the site block (at most one) and the
// process_group blocks of one rendered platform.
func decodeDescriptions(r *Rendered, blocks hcl.Blocks, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var siteAt, refreshAt *hcl.Range
	var refresh []string
	seen := map[string]hcl.Range{}
	for _, b := range blocks {
		switch b.Type {
		case "site":
			if siteAt != nil {
				diags = append(diags, errDiag("Duplicate site block", "A profile describes one site; the first is at "+siteAt.String()+".", b.DefRange.Ptr()))
				continue
			}
			siteAt = b.DefRange.Ptr()
			var sb siteBlock
			d := gohcl.DecodeBody(b.Body, ctx, &sb)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			diags = append(diags, absPath(sb.Docroot, sb.DocrootRange)...)
			if sb.Rewrite != "htaccess" && sb.Rewrite != "server" {
				diags = append(diags, errDiag("Invalid rewrite", fmt.Sprintf("%q: want \"htaccess\" or \"server\".", sb.Rewrite), sb.RewriteRange.Ptr()))
			}
			r.Site = &Site{Docroot: path.Clean(sb.Docroot), Owner: sb.Owner, Group: sb.Group, PHP: sb.PHP, Core: sb.Core, Database: sb.Database, Rewrite: sb.Rewrite}
		case "site_refresh":
			when, rest, d := decodeWhen(b, ctx)
			diags = append(diags, d...)
			if d.HasErrors() || !when {
				continue
			}
			var rb refreshBlock
			if d := gohcl.DecodeBody(rest, ctx, &rb); d.HasErrors() {
				diags = append(diags, d...)
				continue
			}
			refresh = append(refresh, rb.Run)
			refreshAt = b.DefRange.Ptr()
		case "process_group":
			name := b.Labels[0]
			if !hclsyntax.ValidIdentifier(name) || name == "other" {
				diags = append(diags, errDiag("Invalid process group name", fmt.Sprintf("%q: an identifier other than \"other\" (everything outside the groups).", name), b.LabelRanges[0].Ptr()))
				continue
			}
			if prev, dup := seen[name]; dup {
				diags = append(diags, errDiag("Duplicate process group", fmt.Sprintf("process_group %q was already declared at %s.", name, prev), b.DefRange.Ptr()))
				continue
			}
			seen[name] = b.DefRange
			when, rest, d := decodeWhen(b, ctx)
			diags = append(diags, d...)
			if d.HasErrors() || !when {
				continue
			}
			var gb groupBlock
			d = gohcl.DecodeBody(rest, ctx, &gb)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			if len(gb.Exe) == 0 {
				diags = append(diags, errDiag("Empty process group", "exe must name at least one executable.", gb.ExeRange.Ptr()))
				continue
			}
			r.Groups = append(r.Groups, ProcessGroup{Name: name, Exe: gb.Exe, Users: gb.Users})
		}
	}
	if len(refresh) > 0 {
		if r.Site == nil {
			return append(diags, errDiag("site_refresh without a site", "site_refresh says what to run after the site's files change; declare the site block too.", refreshAt))
		}
		r.Site.Refresh = refresh
	}
	return diags
}

package provision

import (
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/wptest/wptest/hostrecord"
)

// What a profile says of itself, recorded in the host manifest: the types
// live in hostrecord, which a run's readers import without provision.
type (
	Site         = hostrecord.Site
	SiteFiles    = hostrecord.MadeFiles
	ProcessGroup = hostrecord.ProcessGroup
	Server       = hostrecord.Server
	Status       = hostrecord.Status
	Service      = hostrecord.Service
)

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

type siteFilesBlock struct {
	List   string `hcl:"list"`
	Remove string `hcl:"remove"`
}

type groupBlock struct {
	Exe      []string  `hcl:"exe"`
	Users    []string  `hcl:"users,optional"`
	ExeRange hcl.Range `hcl:"exe,attr_value_range"`
}

// decodeDescriptions reads the site block (at most one) and the
// process_group and watch blocks of one rendered platform.
func decodeDescriptions(r *Rendered, blocks hcl.Blocks, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var siteAt, refreshAt, madeAt *hcl.Range
	var refresh []string
	var made []SiteFiles
	seen := map[string]hcl.Range{}
	seenMade := map[string]hcl.Range{}
	seenWatch := map[string]hcl.Range{}
	for _, b := range blocks {
		switch b.Type {
		case "site":
			if siteAt != nil {
				diags = append(diags, errDiag("Duplicate site block", "A profile describes one site; the first is at "+siteAt.String()+".", b.DefRange.Ptr()))
				continue
			}
			siteAt = b.DefRange.Ptr()
			site, d := decodeSite(b, ctx)
			diags = append(diags, d...)
			if site != nil {
				r.Site = site
			}
		case "site_refresh":
			if keep(&refresh, &diags)(decodeRun(b, ctx)) {
				refreshAt = b.DefRange.Ptr()
			}
		case "teardown":
			keep(&r.Teardown, &diags)(decodeRun(b, ctx))
		case "site_files":
			if keep(&made, &diags)(decodeSiteFiles(b, ctx, seenMade)) && madeAt == nil {
				madeAt = b.DefRange.Ptr()
			}
		case "watch":
			keep(&r.Watch, &diags)(decodeWatch(b, ctx, seenWatch))
		case "process_group":
			keep(&r.Groups, &diags)(decodeProcessGroup(b, ctx, seen))
		}
	}
	if len(refresh) > 0 {
		if r.Site == nil {
			return append(diags, errDiag("site_refresh without a site", "site_refresh says what to run after the site's files change; declare the site block too.", refreshAt))
		}
		r.Site.Refresh = refresh
	}
	if len(made) > 0 {
		if r.Site == nil {
			return append(diags, errDiag("site_files without a site", "site_files says what the profile makes in its site; declare the site block too.", madeAt))
		}
		r.Site.Made = made
	}
	return diags
}

// keep takes what a block's decoder returns: its diagnostics go to diags
// and, where ok, its value to list; it returns ok.
func keep[T any](list *[]T, diags *hcl.Diagnostics) func(v T, ok bool, d hcl.Diagnostics) bool {
	return func(v T, ok bool, d hcl.Diagnostics) bool {
		*diags = append(*diags, d...)
		if ok {
			*list = append(*list, v)
		}
		return ok
	}
}

// decodeSite reads the site block; the site is nil when its body does not
// decode (a bad docroot or rewrite is named, and the site still read).
func decodeSite(b *hcl.Block, ctx *hcl.EvalContext) (*Site, hcl.Diagnostics) {
	var sb siteBlock
	diags := decodeBody(b.Body, ctx, &sb)
	diags = append(diags, refuseRecorded(b)...)
	if diags.HasErrors() {
		return nil, diags
	}
	diags = append(diags, absPath(sb.Docroot, sb.DocrootRange)...)
	if sb.Rewrite != "htaccess" && sb.Rewrite != "server" {
		diags = append(diags, errDiag("Invalid rewrite", fmt.Sprintf("%q: want \"htaccess\" or \"server\".", sb.Rewrite), sb.RewriteRange.Ptr()))
	}
	return &Site{Docroot: path.Clean(sb.Docroot), Owner: sb.Owner, Group: sb.Group, PHP: sb.PHP, Core: sb.Core, Database: sb.Database, Rewrite: sb.Rewrite}, diags
}

// decodeRun reads a site_refresh or teardown block's run; ok is false when
// it has errors or its when is false.
func decodeRun(b *hcl.Block, ctx *hcl.EvalContext) (run string, ok bool, diags hcl.Diagnostics) {
	var rb refreshBlock
	if ok, diags = decodeWhenBody(b, ctx, &rb); !ok {
		return "", false, diags
	}
	return rb.Run, true, diags
}

// decodeProcessGroup reads one process_group block; ok is false when it
// has errors or its when is false. seen holds the names declared so far.
func decodeProcessGroup(b *hcl.Block, ctx *hcl.EvalContext, seen map[string]hcl.Range) (ProcessGroup, bool, hcl.Diagnostics) {
	var gb groupBlock
	ok, diags := processGroups.decode(b, ctx, seen, &gb)
	if !ok {
		return ProcessGroup{}, false, diags
	}
	if len(gb.Exe) == 0 {
		return ProcessGroup{}, false, append(diags, errDiag("Empty process group", "exe must name at least one executable.", gb.ExeRange.Ptr()))
	}
	return ProcessGroup{Name: b.Labels[0], Exe: gb.Exe, Users: gb.Users}, true, diags
}

// decodeSiteFiles reads one site_files block; ok is false when it has
// errors or its when is false. seen holds the names declared so far.
func decodeSiteFiles(b *hcl.Block, ctx *hcl.EvalContext, seen map[string]hcl.Range) (SiteFiles, bool, hcl.Diagnostics) {
	var fb siteFilesBlock
	ok, diags := madeSiteFiles.decode(b, ctx, seen, &fb)
	if !ok {
		return SiteFiles{}, false, diags
	}
	return SiteFiles{Name: b.Labels[0], List: fb.List, Remove: fb.Remove}, true, diags
}

// recorded is a labelled block whose values the host manifest records:
// what its errors call it, which labels it takes and what those are (said
// to one that gives another).
type recorded struct {
	what  string
	valid func(label string) bool
	want  string
}

var (
	processGroups = recorded{"process group", func(n string) bool { return hclsyntax.ValidIdentifier(n) && n != "other" },
		`an identifier other than "other" (everything outside the groups)`}
	madeSiteFiles = recorded{"site_files", func(n string) bool { return hclsyntax.ValidIdentifier(n) && n != "file" },
		`an identifier other than "file" (the profile's own file ops)`}
	watches = recorded{"watch", func(n string) bool { return n != "" && len(n) <= 64 },
		`a short name users know ("php-cgi", "MariaDB"), 1 to 64 characters`}
)

// decode decodes b, a block of kind r, into out: its label must be valid
// and new (seen holds those declared so far). ok is false when it has
// errors or its when is false.
func (r recorded) decode(b *hcl.Block, ctx *hcl.EvalContext, seen map[string]hcl.Range, out any) (ok bool, diags hcl.Diagnostics) {
	name := b.Labels[0]
	if !r.valid(name) {
		return false, hcl.Diagnostics{errDiag("Invalid "+r.what+" name", fmt.Sprintf("%q: %s.", name, r.want), b.LabelRanges[0].Ptr())}
	}
	if prev, found := seen[name]; found {
		return false, hcl.Diagnostics{errDiag("Duplicate "+r.what, fmt.Sprintf("%s %q was already declared at %s.", b.Type, name, prev), b.DefRange.Ptr())}
	}
	seen[name] = b.DefRange
	return decodeWhenBody(b, ctx, out)
}

// decodeWhenBody decodes b into out where its when holds, refusing a
// sensitive value in what the host manifest records of it; ok is false
// when it has errors or its when is false.
func decodeWhenBody(b *hcl.Block, ctx *hcl.EvalContext, out any) (ok bool, diags hcl.Diagnostics) {
	when, rest, diags := decodeWhen(b, ctx)
	if diags.HasErrors() || !when {
		return false, diags
	}
	diags = append(diags, decodeBody(rest, ctx, out)...)
	diags = append(diags, refuseRecorded(b)...)
	return !diags.HasErrors(), diags
}

// siteFiles records in r.Site the paths the profile's own file, directory
// and link ops write inside the docroot (not the docroot itself). Such a
// path may not come from a sensitive value: the host manifest lists it.
func (r *Rendered) siteFiles() hcl.Diagnostics {
	if r.Site == nil {
		return nil
	}
	var files []string
	var diags hcl.Diagnostics
	for _, op := range r.Ops {
		var p string
		switch o := op.(type) {
		case *FileOp:
			p = o.Path
		case *DirOp:
			p = o.Path
		case *LinkOp:
			p = o.Path
		default:
			continue
		}
		if rel, ok := strings.CutPrefix(path.Clean(p), r.Site.Docroot+"/"); ok {
			diags = append(diags, op.(specer).base().marks.refuse(op.ID(), []string{"path"}, whyRecorded("the paths of the files the profile writes in the site's docroot"))...)
			files = append(files, rel)
		}
	}
	slices.Sort(files)
	r.Site.Files = slices.Compact(files)
	return diags
}

// refuseRecorded refuses a sensitive value in any attribute of a block
// whose values the host manifest records (but its when, refused as
// structural already).
func refuseRecorded(b *hcl.Block) hcl.Diagnostics {
	fm := marksOf(b)
	var names []string
	for _, n := range fm.names() {
		if n != "when" {
			names = append(names, n)
		}
	}
	if names == nil {
		return nil
	}
	return fm.refuse(blockName(b), names, whyRecorded("it"))
}

// StatusFormats are the status page formats wptest's sampler reads:
// "apache" is mod_status's "?auto" text.
var StatusFormats = []string{"apache"}

// Protocols a server block may list.
var Protocols = []string{"h1", "h2", "h2c", "h3"}

type serverBlock struct {
	Services       []string       `hcl:"services"`
	WorkerLimit    *int           `hcl:"worker_limit,optional"`
	Protocols      []string       `hcl:"protocols,optional"`
	Ports          map[string]int `hcl:"ports,optional"`
	Shows          []string       `hcl:"shows,optional"`
	Status         *statusBlock   `hcl:"status,block"`
	ServicesRange  hcl.Range      `hcl:"services,attr_value_range"`
	LimitRange     hcl.Range      `hcl:"worker_limit,attr_value_range"`
	ProtocolsRange hcl.Range      `hcl:"protocols,attr_value_range"`
	PortsRange     hcl.Range      `hcl:"ports,attr_value_range"`
	ShowsRange     hcl.Range      `hcl:"shows,attr_value_range"`
}

type statusBlock struct {
	URL         string    `hcl:"url"`
	Format      string    `hcl:"format"`
	URLRange    hcl.Range `hcl:"url,attr_value_range"`
	FormatRange hcl.Range `hcl:"format,attr_value_range"`
}

// decodeServer reads the server block (at most one); its services and
// facts are resolved by resolveServer once the ops are known.
func decodeServer(blocks hcl.Blocks, ctx *hcl.EvalContext) (*serverBlock, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var at *hcl.Range
	var out *serverBlock
	for _, b := range blocks {
		if b.Type != "server" {
			continue
		}
		if at != nil {
			diags = append(diags, errDiag("Duplicate server block", "A profile describes one server; the first is at "+at.String()+".", b.DefRange.Ptr()))
			continue
		}
		at = b.DefRange.Ptr()
		var sb serverBlock
		if d := append(decodeBody(b.Body, ctx, &sb), refuseRecorded(b)...); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		if len(sb.Services) == 0 {
			diags = append(diags, errDiag("Server without services", "services must name at least one of the profile's service blocks (its web server).", sb.ServicesRange.Ptr()))
		}
		if sb.WorkerLimit != nil && *sb.WorkerLimit < 1 {
			diags = append(diags, errDiag("Invalid worker_limit", fmt.Sprintf("%d: want at least 1 (leave it out when the server has no such limit).", *sb.WorkerLimit), sb.LimitRange.Ptr()))
		}
		for _, p := range sb.Protocols {
			if !slices.Contains(Protocols, p) {
				diags = append(diags, errDiag("Unknown protocol", fmt.Sprintf("%q: want one of %s.", p, strings.Join(Protocols, ", ")), sb.ProtocolsRange.Ptr()))
			}
		}
		diags = append(diags, checkPorts(sb)...)
		if st := sb.Status; st != nil {
			if u, err := url.Parse(st.URL); err != nil || u.Scheme != "http" && u.Scheme != "https" || !slices.Contains([]string{"127.0.0.1", "::1", "localhost"}, u.Hostname()) {
				diags = append(diags, errDiag("Invalid status url", fmt.Sprintf("%q: an http(s) URL on the server's loopback (127.0.0.1, ::1 or localhost), e.g. \"http://127.0.0.1:${var.http_port}/server-status?auto\".", st.URL), st.URLRange.Ptr()))
			}
			if !slices.Contains(StatusFormats, st.Format) {
				diags = append(diags, errDiag("Unknown status format", fmt.Sprintf("%q: the sampler reads %s.", st.Format, strings.Join(StatusFormats, ", ")), st.FormatRange.Ptr()))
			}
		}
		out = &sb
	}
	return out, diags
}

// PortNames are the keys of a server block's ports: "http" serves h1 and
// h2c in the clear, "https" h1, h2 and h3 over TLS.
var PortNames = []string{"http", "https"}

// checkPorts: known names, real port numbers, and a port for every
// protocol the server says it serves.
func checkPorts(sb serverBlock) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, k := range slices.Sorted(maps.Keys(sb.Ports)) {
		if !slices.Contains(PortNames, k) {
			diags = append(diags, errDiag("Unknown port", fmt.Sprintf("ports has %q: want http and/or https.", k), sb.PortsRange.Ptr()))
		} else if p := sb.Ports[k]; p < 1 || p > 65535 {
			diags = append(diags, errDiag("Invalid port", fmt.Sprintf("ports.%s = %d: want 1 to 65535.", k, p), sb.PortsRange.Ptr()))
		}
	}
	if len(sb.Ports) == 0 {
		return diags
	}
	for _, p := range sb.Protocols {
		if _, ok := sb.Ports[PortFor(p)]; !ok {
			diags = append(diags, errDiag("Protocol without a port", fmt.Sprintf("protocols has %q, served on the %s port, but ports has no %s.", p, PortFor(p), PortFor(p)), sb.PortsRange.Ptr()))
		}
	}
	return diags
}

// PortFor is the port (by name) a scenario of protocol proto connects to.
func PortFor(proto string) string {
	if proto == "h2" || proto == "h3" {
		return "https"
	}
	return "http"
}

// resolveServer checks the server block's service labels and fact names
// against the rendered ops and facts and records the server in r.
func resolveServer(r *Rendered, sb *serverBlock, services map[string]*ServiceOp, declared map[string]hcl.Range) hcl.Diagnostics {
	if sb == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, l := range sb.Services {
		id := "service." + strings.TrimPrefix(l, "service.")
		s, ok := services[id]
		if !ok {
			if _, decl := declared[id]; decl {
				continue // when = false on this platform
			}
			diags = append(diags, errDiag("Unknown server service", fmt.Sprintf("services names %q, but there is no such service block%s.", l, suggestID(id, declared)), sb.ServicesRange.Ptr()))
			continue
		}
		if s.State != "running" {
			diags = append(diags, errDiag("Server service not running", fmt.Sprintf("%s is state = %q; the server's services are the ones the profile runs.", id, s.State), sb.ServicesRange.Ptr()))
			continue
		}
		if d := s.marks.refuse(id, []string{"name", "start", "stop", "status", "restart"}, whyRecorded("the commands of the server's services")); d != nil {
			diags = append(diags, d...)
			continue
		}
		r.serverOps = append(r.serverOps, s)
	}
	facts := map[string]bool{}
	for _, f := range r.Facts {
		facts[strings.TrimPrefix(f.ID, "fact.")] = true
	}
	for _, f := range sb.Shows {
		if !facts[f] {
			diags = append(diags, errDiag("Unknown fact", fmt.Sprintf("shows names %q, but the profile has no such fact on this platform.", f), sb.ShowsRange.Ptr()))
		}
	}
	srv := &Server{Protocols: sb.Protocols, Ports: sb.Ports, Shows: sb.Shows}
	if sb.WorkerLimit != nil {
		srv.WorkerLimit = *sb.WorkerLimit
	}
	if sb.Status != nil {
		srv.Status = &Status{URL: sb.Status.URL, Format: sb.Status.Format}
	}
	r.Server = srv
	r.fillServer()
	return diags
}

// fillServer records the server's services with the commands the host
// runs them with (once an apply has read the host's init system).
func (r *Rendered) fillServer() {
	if r.Server == nil {
		return
	}
	r.Server.Services = nil
	for _, s := range r.serverOps {
		r.Server.Services = append(r.Server.Services, s.record())
	}
}

// ServicesOn are the server's services with the commands a host whose
// init is init runs them with, as the host manifest records them after an
// apply: for a record made before the apply reads the host's init (the
// apply's mark).
func (r *Rendered) ServicesOn(init string) []Service {
	var out []Service
	for _, s := range r.serverOps {
		out = append(out, s.recordOn(init))
	}
	return out
}

// record is s as the host manifest keeps it.
func (s *ServiceOp) record() Service { return s.recordOn(s.initSeen) }

func (s *ServiceOp) recordOn(init string) Service {
	restart := s.command(init, "restart")
	if restart == "" { // a service with its own start: stop, then start
		restart = s.command(init, "stop") + " && " + s.command(init, "start")
	}
	return Service{Label: strings.TrimPrefix(s.id, "service."), Name: s.Name, Restart: restart,
		Stop: s.command(init, "stop"), Status: s.command(init, "status")}
}

// Retire makes the apply begin by stopping (and disabling, under systemd)
// the services another profile left on the host (prev, from its host
// manifest) that this profile does not run itself: they may hold the
// ports, and nothing else would stop them. A second apply finds them
// stopped and changes nothing. Report.Retired lists them.
func (r *Rendered) Retire(prev []Service) {
	mine := map[string]bool{}
	for _, s := range r.serverOps {
		mine[s.Name] = true
	}
	seen := map[string]bool{}
	var ops []Op
	for _, s := range prev {
		if mine[s.Name] || seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		off := false
		ops = append(ops, &ServiceOp{opBase: opBase{id: "service.retire_" + s.Label, kind: "service"},
			Name: s.Name, State: "stopped", Enabled: &off, Cmds: map[string]string{"stop": s.Stop, "status": s.Status}})
		r.retired = append(r.retired, s)
	}
	r.Ops = append(ops, r.Ops...)
}

// RetireMade makes the apply begin by removing what another profile made
// in the site (prev, from its host manifest) in sets this profile does not
// make itself (by name: a profile that also precompresses keeps the
// copies and rewrites only the stale ones). A second apply finds nothing
// to remove.
func (r *Rendered) RetireMade(prev []SiteFiles) {
	mine := map[string]bool{}
	if r.Site != nil {
		for _, m := range r.Site.Made {
			mine[m.Name] = true
		}
	}
	var ops []Op
	for _, m := range prev {
		if mine[m.Name] || m.Remove == "" {
			continue
		}
		mine[m.Name] = true
		c := &CommandOp{opBase: opBase{id: "command.retire_site_files_" + m.Name, kind: "command"},
			Run: m.Remove, Unless: "[ \"$( (" + m.List + ") | wc -c)\" -eq 0 ]"}
		ops = append(ops, c)
	}
	r.Ops = append(ops, r.Ops...)
}

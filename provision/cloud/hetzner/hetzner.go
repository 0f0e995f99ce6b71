// Package hetzner is the Cloud driver for Hetzner Cloud (hcloud-go v2.52.0).
//
// Create makes, in order: a per-run SSH key, a spread placement group (so the
// load generator never shares a physical host with the server), a firewall
// (SSH from allow_ssh_from; the web ports only from the run's load
// generators and allow_from; nothing else), then the servers, each with a
// fresh ed25519 host key injected through cloud-init user data and pinned in
// the run's own known_hosts. Every resource carries the run's labels, every
// mutation is journaled before and after, and whatever Create made is removed
// again if it fails or is interrupted. Destroy removes a run by label in the
// order servers, firewall, placement group, SSH key; "not found" is success,
// and only a label that still lists something afterwards is a failure.
package hetzner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/exp/actionutil"

	"github.com/wptest/wptest/provision/cloud"
)

// Options configure a Driver.
type Options struct {
	Credentials Credentials
	// Redactor receives every secret the driver handles (token, host
	// private keys) before anything could print it.
	Redactor *cloud.Redactor
	// Log receives progress lines; Debug, if set, hcloud-go's HTTP dumps.
	// Both are wrapped in the Redactor.
	Log   io.Writer
	Debug io.Writer
	// Rand is the key source (crypto/rand if nil).
	Rand io.Reader
	// Backoff paces API retries, action polling and firewall-delete retries
	// (nil: 1 s doubling to 10 s). Tests use a 1 ms constant.
	Backoff    hcloud.BackoffFunc
	HTTPClient *http.Client
	Version    string
	// CleanupTimeout bounds cleanup after a failed or interrupted Create
	// (default 10 min); it runs on a context that is not cancelled.
	CleanupTimeout time.Duration
}

// defaultBackoff paces API retries, action polls and teardown retries: 1 s
// doubling to 10 s.
var defaultBackoff = hcloud.ExponentialBackoffWithOpts(hcloud.ExponentialBackoffOpts{Base: time.Second, Multiplier: 2, Cap: 10 * time.Second})

// Driver implements cloud.Cloud on Hetzner Cloud.
type Driver struct {
	c   *hcloud.Client
	opt Options
	log io.Writer
}

var _ cloud.Cloud = (*Driver)(nil)

// New returns a driver. The token must be set.
func New(opt Options) (*Driver, error) {
	if opt.Credentials.Token == "" {
		return nil, cloud.ConfigErr(errors.New("hetzner: no API token"))
	}
	if opt.Redactor == nil {
		opt.Redactor = &cloud.Redactor{}
	}
	opt.Redactor.Add(opt.Credentials.Token)
	if opt.Backoff == nil {
		opt.Backoff = defaultBackoff
	}
	if opt.CleanupTimeout == 0 {
		opt.CleanupTimeout = 10 * time.Minute
	}
	if opt.Version == "" {
		opt.Version = "dev"
	}
	copts := []hcloud.ClientOption{
		hcloud.WithToken(opt.Credentials.Token),
		hcloud.WithApplication("wptest", opt.Version),
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: opt.Backoff}),
		hcloud.WithRetryOpts(hcloud.RetryOpts{BackoffFunc: opt.Backoff, MaxRetries: 5}),
	}
	if opt.Credentials.Endpoint != "" {
		copts = append(copts, hcloud.WithEndpoint(opt.Credentials.Endpoint))
	}
	if opt.HTTPClient != nil {
		copts = append(copts, hcloud.WithHTTPClient(opt.HTTPClient))
	}
	if opt.Debug != nil {
		// hcloud-go blanks the Authorization header but dumps bodies whole,
		// user_data (the host private key) included.
		copts = append(copts, hcloud.WithDebugWriter(opt.Redactor.Writer(opt.Debug)))
	}
	log := io.Discard
	if opt.Log != nil {
		log = opt.Redactor.Writer(opt.Log)
	}
	return &Driver{c: hcloud.NewClient(copts...), opt: opt, log: log}, nil
}

func (d *Driver) logf(format string, args ...any) {
	fmt.Fprintf(d.log, "hetzner: "+format+"\n", args...)
}

// Plan validates the spec against the API before anything is billed: the
// token (any call), the location, the server type and its availability in
// that location, and the image for the type's architecture (resolved to an
// ID, which is recorded). It never picks another location.
func (d *Driver) Plan(ctx context.Context, spec cloud.Spec) (*cloud.Plan, error) {
	m := spec.Machines
	if err := cloud.ValidRunID(spec.Run.ID); err != nil {
		return nil, cloud.ConfigErr(err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	loc, st, notes, err := d.serverType(ctx, m)
	if err != nil {
		return nil, err
	}
	img, _, err := d.c.Image.GetForArchitecture(ctx, m.Attr("image"), st.Architecture)
	if err != nil {
		return nil, classify("look up image "+m.Attr("image"), err)
	}
	if img == nil {
		return nil, cloud.ConfigErr(fmt.Errorf("image %q does not exist for %s (%s)", m.Attr("image"), st.Name, st.Architecture))
	}
	if img.IsDeprecated() {
		notes = append(notes, fmt.Sprintf("image %s (id %d) is deprecated", img.Name, img.ID))
	}
	p := &cloud.Plan{Driver: Name, Owned: true, Spec: spec, PriceSource: "Hetzner API /server_types, at plan time", Notes: notes}
	if err := d.price(ctx, p, st, loc); err != nil {
		return nil, err
	}
	names := machineNames(spec.Run.ID, m.LoadGens())
	for _, n := range names {
		p.Machines = append(p.Machines, cloud.Machine{
			Name: n.name, Role: n.role, Driver: Name, Location: loc.Name, ServerType: st.Name,
			Image: img.Name, ImageID: img.ID, User: m.User, Port: 22,
		})
	}
	if p.HourlyEach != "" {
		if each, err := strconv.ParseFloat(p.HourlyEach, 64); err == nil {
			p.HourlyGross = strconv.FormatFloat(each*float64(len(names)), 'f', 4, 64)
		}
	}
	base := "wptest-" + spec.Run.ID
	p.Resources = []string{
		"ssh key " + base + " (per-run client key, deleted at teardown)",
		"placement group " + base + " (spread: no two machines on one host)",
		"firewall " + base + " (in: " + firewallText(m) + ")",
	}
	if m.SSHFromWhy != "" {
		p.Notes = append(p.Notes, m.SSHFromWhy)
	}
	if m.LoadGens() == 0 && len(m.AllowFrom) == 0 {
		if web := webPorts(m); len(web) > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%s open to nobody: no load generators and no allow_from; to load the server from elsewhere, list that address in allow_from", strings.Join(web, ", ")))
		}
	}
	return p, nil
}

// serverType looks up the location and the server type and checks that
// the type is available there now, noting if it is deprecated there.
func (d *Driver) serverType(ctx context.Context, m cloud.Machines) (*hcloud.Location, *hcloud.ServerType, []string, error) {
	loc, _, err := d.c.Location.GetByName(ctx, m.Attr("location"))
	if err != nil {
		return nil, nil, nil, classify("look up location "+m.Attr("location"), err)
	}
	if loc == nil {
		return nil, nil, nil, cloud.ConfigErr(fmt.Errorf("location %q does not exist (e.g. fsn1, nbg1, hel1, ash, hil, sin)", m.Attr("location")))
	}
	st, _, err := d.c.ServerType.GetByName(ctx, m.Attr("server_type"))
	if err != nil {
		return nil, nil, nil, classify("look up server type "+m.Attr("server_type"), err)
	}
	if st == nil {
		return nil, nil, nil, cloud.ConfigErr(fmt.Errorf("server type %q does not exist", m.Attr("server_type")))
	}
	var notes []string
	avail, where := false, []string{}
	for _, l := range st.Locations {
		if l.Location == nil {
			continue
		}
		if l.Available {
			where = append(where, l.Location.Name)
		}
		if l.Location.Name == loc.Name {
			avail = l.Available
			if l.IsDeprecated() {
				notes = append(notes, fmt.Sprintf("server type %s is deprecated in %s", st.Name, loc.Name))
			}
		}
	}
	if !avail {
		return nil, nil, nil, cloud.Capacity(fmt.Errorf("server type %s is not available in %s right now (available in: %s); wptest does not fall back to another location, since that changes the result: choose one with -var location=NAME",
			st.Name, loc.Name, strings.Join(where, ", ")))
	}
	return loc, st, notes, nil
}

// price sets the plan's price per machine in loc and its currency.
func (d *Driver) price(ctx context.Context, p *cloud.Plan, st *hcloud.ServerType, loc *hcloud.Location) error {
	for _, pr := range st.Pricings {
		if pr.Location != nil && pr.Location.Name == loc.Name {
			p.HourlyEach, p.Currency = pr.Hourly.Gross, pr.Hourly.Currency
		}
	}
	if p.HourlyEach != "" && p.Currency == "" {
		// /server_types states amounts only; the currency is the
		// project's, which /pricing names.
		pr, _, err := d.c.Pricing.Get(ctx)
		if err != nil {
			return classify("look up the price currency", err)
		}
		p.Currency = pr.Currency
		p.PriceSource = "Hetzner API /server_types and /pricing, at plan time"
	}
	return nil
}

func webPorts(m cloud.Machines) []string {
	var web []string
	for _, p := range m.OpenPorts {
		if p != cloud.SSHPort {
			web = append(web, p)
		}
	}
	return web
}

// firewallText says who may reach which port, for the plan.
func firewallText(m cloud.Machines) string {
	var parts []string
	if slices.Contains(m.OpenPorts, cloud.SSHPort) {
		from := strings.Join(m.AllowSSHFrom, ", ")
		if slices.Equal(m.AllowSSHFrom, cloud.Anywhere) {
			from = "anywhere, key-only"
		}
		if len(m.AllowSSHFrom) == 0 {
			from = "nobody"
		}
		parts = append(parts, cloud.SSHPort+" from "+from)
	}
	if web := webPorts(m); len(web) > 0 {
		from := []string{}
		if m.LoadGens() > 0 {
			from = append(from, "the load generators")
		}
		from = append(from, m.AllowFrom...)
		if len(from) == 0 {
			from = []string{"nobody"}
		}
		parts = append(parts, strings.Join(web, ", ")+" from "+strings.Join(from, ", "))
	}
	return strings.Join(parts, "; ")
}

type named struct {
	name string
	role cloud.Role
}

func machineNames(run string, loadgens int) []named {
	out := []named{{"wptest-" + run + "-server", cloud.RoleServer}}
	for i := 1; i <= loadgens; i++ {
		out = append(out, named{fmt.Sprintf("wptest-%s-loadgen-%d", run, i), cloud.RoleLoadGen})
	}
	return out
}

// classify maps an API error onto wptest's exit codes.
func classify(what string, err error) error {
	var ae hcloud.ActionError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", what, err)
	case hcloud.IsError(err, hcloud.ErrorCodeResourceUnavailable, hcloud.ErrorCodePlacementError):
		return cloud.Capacity(fmt.Errorf("%s: Hetzner has no capacity for this right now (%w); wptest does not fall back to another location or type: retry later or choose with -var location=NAME / -var server_type=NAME", what, err))
	case hcloud.IsError(err, hcloud.ErrorCodeResourceLimitExceeded):
		return cloud.Capacity(fmt.Errorf("%s: project limit reached (%w); delete resources or ask Hetzner to raise the limit", what, err))
	case hcloud.IsError(err, hcloud.ErrorCodeUnauthorized, hcloud.ErrorCodeForbidden):
		return cloud.ConfigErr(fmt.Errorf("%s: the API token was rejected (%w); it needs read & write access", what, err))
	case hcloud.IsError(err, hcloud.ErrorCodeInvalidInput):
		return cloud.ConfigErr(fmt.Errorf("%s: %w", what, err))
	case errors.As(err, &ae):
		return cloud.ProvisionErr(fmt.Errorf("%s: action failed: %w", what, err))
	}
	return cloud.ProvisionErr(fmt.Errorf("%s: %w", what, err))
}

// Create makes the planned resources. See the package comment.
func (d *Driver) Create(ctx context.Context, plan *cloud.Plan, j cloud.Journal) (ms []cloud.Machine, err error) {
	if plan == nil || plan.Driver != Name {
		return nil, errors.New("hetzner: Create needs a hetzner plan")
	}
	if j == nil {
		j = cloud.NopJournal
	}
	c := &creation{d: d, j: j, run: plan.Spec.Run, base: "wptest-" + plan.Spec.Run.ID}
	defer func() {
		if err != nil {
			err = c.removeMade(ctx, err)
			ms = nil
		}
	}()
	client, err := cloud.ClientKey(c.run.Dir, d.opt.Rand)
	if err != nil {
		return nil, err
	}
	d.opt.Redactor.Add(client.PrivatePEM)
	key, err := c.sshKey(ctx, client.Public)
	if err != nil {
		return nil, err
	}
	pg, err := c.placementGroup(ctx)
	if err != nil {
		return nil, err
	}
	mb := plan.Spec.Machines
	initial, err := cloud.FirewallRules(mb, nil)
	if err != nil {
		return nil, cloud.ConfigErr(err)
	}
	fw, err := c.firewall(ctx, initial)
	if err != nil {
		return nil, err
	}
	if ms, err = c.servers(ctx, plan.Machines, key, pg, fw); err != nil {
		return nil, err
	}
	rules, err := c.openToLoad(ctx, fw, mb, ms, initial)
	if err != nil {
		return nil, err
	}
	if err := cloud.WriteFirewall(c.run.Dir, rules); err != nil {
		return nil, fmt.Errorf("record firewall rules: %w", err)
	}
	if err := cloud.WriteKnownHosts(filepath.Join(c.run.Dir, cloud.KnownHostsFile), ms); err != nil {
		return nil, fmt.Errorf("pin host keys: %w", err)
	}
	return ms, nil
}

// creation is one Create: each step journals its mutation and adds what it
// got an ID for to known.
type creation struct {
	d    *Driver
	j    cloud.Journal
	run  cloud.Run
	base string // the name of the run's key, placement group and firewall
	// known holds what Create got an ID for. A create whose answer was lost
	// (Ctrl-C, a network error mid-request) may have made something it
	// holds no ID for; removeMade finds that by label, and deletes it in
	// the same pass as the known ones, kind by kind, so nothing waits on a
	// resource an unknown one still holds.
	known made
}

// removeMade tears down what a failed Create made, on a context of its own
// (ctx may be what was cancelled), and returns the error to report.
func (c *creation) removeMade(ctx context.Context, err error) error {
	c.d.logf("create failed, removing what was made: %v", err)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.d.opt.CleanupTimeout)
	defer cancel()
	if terr := c.d.teardown(cctx, cloud.Selector{Run: c.run.ID, Journal: c.j}, &c.known); terr != nil {
		// The teardown error (exit 7) comes first: it may be billing.
		return errors.Join(terr, err)
	}
	return err
}

// sshKey uploads the run's client key, which every server accepts.
func (c *creation) sshKey(ctx context.Context, public string) (*hcloud.SSHKey, error) {
	var key *hcloud.SSHKey
	err := mutate(c.j, "create", "ssh_key", c.base, cloud.Labels(c.run, ""), func() (string, error) {
		k, _, err := c.d.c.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: c.base, PublicKey: public, Labels: cloud.Labels(c.run, "")})
		if err != nil {
			return "", classify("create ssh key "+c.base, err)
		}
		key = k
		return id(k.ID), nil
	})
	if err != nil {
		return nil, err
	}
	c.known.keys = append(c.known.keys, key)
	c.d.logf("ssh key %s (id %d)", c.base, key.ID)
	return key, nil
}

// placementGroup makes the spread group that puts each server on its own
// physical host.
func (c *creation) placementGroup(ctx context.Context) (*hcloud.PlacementGroup, error) {
	var pg *hcloud.PlacementGroup
	err := mutate(c.j, "create", "placement_group", c.base, cloud.Labels(c.run, ""), func() (string, error) {
		res, _, err := c.d.c.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: c.base, Labels: cloud.Labels(c.run, ""), Type: hcloud.PlacementGroupTypeSpread})
		if err != nil {
			return "", classify("create placement group "+c.base, err)
		}
		pg = res.PlacementGroup
		return id(pg.ID), nil
	})
	if err != nil {
		return nil, err
	}
	c.known.pgs = append(c.known.pgs, pg)
	c.d.logf("placement group %s (id %d)", c.base, pg.ID)
	return pg, nil
}

// firewall makes the run's firewall with the initial rules. The web ports
// are open only to the run's load generators (and allow_from), whose
// addresses exist only once they are created; the servers must carry the
// firewall from their creation, or they would be reachable unfiltered for a
// while. So the firewall is created with what is known now (SSH from
// allow_ssh_from, the web ports from allow_from only) and attached to every
// server at create; once the load generators have addresses, openToLoad
// adds them. Until then the web ports are closed to the load generators
// too: the servers are still booting, and wptest sends no load before the
// rules are set. (Reserving primary IPs first would know the addresses up
// front, but adds billed resources to create and clean up.)
func (c *creation) firewall(ctx context.Context, initial []cloud.FirewallRule) (*hcloud.Firewall, error) {
	var fw *hcloud.Firewall
	err := mutate(c.j, "create", "firewall", c.base, cloud.Labels(c.run, ""), func() (string, error) {
		res, _, err := c.d.c.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: c.base, Labels: cloud.Labels(c.run, ""), Rules: hcloudRules(initial)})
		if err != nil {
			return "", classify("create firewall "+c.base, err)
		}
		fw = res.Firewall
		return id(fw.ID), nil
	})
	if err != nil {
		return nil, err
	}
	c.known.firewalls = append(c.known.firewalls, fw)
	c.d.logf("firewall %s (id %d)", c.base, fw.ID)
	return fw, nil
}

// servers creates the planned servers, each with its own fresh host key,
// waits for them to start and returns them with their addresses.
func (c *creation) servers(ctx context.Context, planned []cloud.Machine, key *hcloud.SSHKey, pg *hcloud.PlacementGroup, fw *hcloud.Firewall) ([]cloud.Machine, error) {
	var actions []*hcloud.Action
	var ms []cloud.Machine
	created := make([]*hcloud.Server, 0, len(planned))
	for _, pm := range planned {
		m, srv, acts, err := c.server(ctx, pm, key, pg, fw)
		if err != nil {
			return nil, err
		}
		actions = append(actions, acts...)
		created = append(created, srv)
		ms = append(ms, m)
	}
	if err := c.d.c.Action.WaitFor(ctx, actions...); err != nil {
		return nil, classify("start servers", err)
	}
	for i := range ms {
		if ms[i].Address != "" {
			continue
		}
		s, _, err := c.d.c.Server.GetByID(ctx, created[i].ID)
		if err != nil || s == nil || s.PublicNet.IPv4.IP == nil {
			return nil, cloud.ProvisionErr(fmt.Errorf("server %s has no public IPv4 address (%v)", ms[i].Name, err))
		}
		ms[i].Address = s.PublicNet.IPv4.IP.String()
	}
	return ms, nil
}

// server creates one planned server with the run's key, placement group
// and firewall, and a host key of its own passed in its cloud-init. It
// returns the machine (its address, if the answer had one yet) and the
// actions that start it.
func (c *creation) server(ctx context.Context, pm cloud.Machine, key *hcloud.SSHKey, pg *hcloud.PlacementGroup, fw *hcloud.Firewall) (cloud.Machine, *hcloud.Server, []*hcloud.Action, error) {
	hk, err := cloud.NewKeyPair(c.d.opt.Rand, pm.Name)
	if err != nil {
		return pm, nil, nil, err
	}
	c.d.opt.Redactor.Add(hk.PrivatePEM)
	labels := cloud.Labels(c.run, pm.Role)
	var srv *hcloud.Server
	var actions []*hcloud.Action
	err = mutate(c.j, "create", "server", pm.Name, labels, func() (string, error) {
		res, _, err := c.d.c.Server.Create(ctx, hcloud.ServerCreateOpts{
			Name:           pm.Name,
			ServerType:     &hcloud.ServerType{Name: pm.ServerType},
			Image:          &hcloud.Image{ID: pm.ImageID},
			Location:       &hcloud.Location{Name: pm.Location},
			SSHKeys:        []*hcloud.SSHKey{key},
			UserData:       cloud.CloudInitHostKey(hk),
			Labels:         labels,
			PlacementGroup: pg,
			Firewalls:      []*hcloud.ServerCreateFirewall{{Firewall: hcloud.Firewall{ID: fw.ID}}},
			PublicNet:      &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: true},
		})
		if err != nil {
			return "", classify("create server "+pm.Name, err)
		}
		srv = res.Server
		actions = actionutil.AppendNext(res.Action, res.NextActions)
		return id(srv.ID), nil
	})
	if err != nil {
		return pm, nil, nil, err
	}
	c.known.servers = append(c.known.servers, srv)
	m := pm
	m.ID = id(srv.ID)
	m.HostKey = hk.Public
	if ip := srv.PublicNet.IPv4.IP; ip != nil && !ip.IsUnspecified() {
		m.Address = ip.String()
	}
	c.d.logf("server %s (id %d) %s", pm.Name, srv.ID, m.Address)
	return m, srv, actions, nil
}

// openToLoad sets the firewall's final rules, now that the load generators
// have addresses (if they change anything), and returns them.
func (c *creation) openToLoad(ctx context.Context, fw *hcloud.Firewall, mb cloud.Machines, ms []cloud.Machine, initial []cloud.FirewallRule) ([]cloud.FirewallRule, error) {
	rules, err := cloud.FirewallRules(mb, ms)
	if err != nil {
		return nil, cloud.ConfigErr(err)
	}
	if !reflect.DeepEqual(rules, initial) {
		err = mutate(c.j, "set_rules", "firewall", c.base, nil, func() (string, error) {
			acts, _, err := c.d.c.Firewall.SetRules(ctx, fw, hcloud.FirewallSetRulesOpts{Rules: hcloudRules(rules)})
			if err != nil {
				return "", classify("set the rules of firewall "+c.base, err)
			}
			if err := c.d.c.Action.WaitFor(ctx, acts...); err != nil {
				return "", classify("set the rules of firewall "+c.base, err)
			}
			return id(fw.ID), nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, r := range rules {
		c.d.logf("firewall %s: %s (%s)", c.base, r, r.For)
	}
	return rules, nil
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// mutate journals a mutation before and after it runs.
func mutate(j cloud.Journal, op, kind, name string, labels map[string]string, f func() (string, error)) error {
	if err := j.Append(cloud.Event{Phase: cloud.PhaseBefore, Op: op, Kind: kind, Name: name, Labels: labels}); err != nil {
		return err
	}
	rid, err := f()
	if err != nil {
		if jerr := j.Append(cloud.Event{Phase: cloud.PhaseFailed, Op: op, Kind: kind, Name: name, Error: err.Error()}); jerr != nil {
			return errors.Join(err, jerr)
		}
		return err
	}
	return j.Append(cloud.Event{Phase: cloud.PhaseAfter, Op: op, Kind: kind, Name: name, ID: rid})
}

// hcloudRules are the API's form of rules (inbound; Hetzner drops the rest).
func hcloudRules(rules []cloud.FirewallRule) []hcloud.FirewallRule {
	out := []hcloud.FirewallRule{}
	for _, r := range rules {
		var src []net.IPNet
		for _, s := range r.Sources {
			_, n, err := net.ParseCIDR(s)
			if err != nil {
				panic("hetzner: unchecked firewall source " + s) // cloud.FirewallRules parsed it
			}
			src = append(src, *n)
		}
		out = append(out, hcloud.FirewallRule{
			Direction: hcloud.FirewallRuleDirectionIn, SourceIPs: src,
			Protocol: hcloud.FirewallRuleProtocol(r.Protocol), Port: hcloud.Ptr(r.Port),
			Description: hcloud.Ptr("wptest " + r.For),
		})
	}
	return out
}

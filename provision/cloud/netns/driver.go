// Package netns is the netns machines driver: the server and load
// generators made on this host, each a fresh Debian in its own network, PID
// and mount namespaces with sshd as PID 1, wired by veths
// (provision/cloud/netns/machine makes them), labelled with their run.
package netns

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// Name is the driver's name: the label of machines "netns" {}.
const Name = "netns"

// DefaultImage is the release a machine is made from without image.
const DefaultImage = "debian-13"

func init() {
	cloud.Register(cloud.Driver{
		Name: Name,
		Summary: "machines on this host: a fresh Debian per machine in its own network, PID and mount namespaces, " +
			"sshd as PID 1, wired by veths; needs root",
		Attributes: append([]cloud.Attribute{
			{Name: "image", Default: DefaultImage, Doc: "debian-13 (trixie) or debian-12 (bookworm), debootstrapped once per host"},
		}, sizeAttributes...),
		Capabilities: cloud.Capabilities{Creates: true, Labels: true},
		Open: func(o cloud.OpenOptions) (cloud.Cloud, error) {
			log := o.Log
			if log == nil {
				log = io.Discard
			}
			return &Driver{Log: log}, nil
		},
	})
}

// Driver is the netns cloud: Create makes the machines (machine.Make), each
// labelled with its run, and Destroy and List find them by their labels in
// their state files.
type Driver struct {
	Log io.Writer
	// host is this host's size (nil: read it); tests give another.
	host *hostSize
	// offServer is this process's CPUs before Create moved it off the
	// server's: Destroy gives them back.
	offServer *machine.Affinity
}

// layout reads m's sizes against this host.
func (d *Driver) layout(m cloud.Machines) (layout, error) {
	h := d.host
	if h == nil {
		hs, err := thisHost()
		if err != nil {
			return layout{}, fmt.Errorf("this host's CPUs and memory: %w", err)
		}
		h = &hs
	}
	return layoutOf(m, *h)
}

var _ cloud.Cloud = (*Driver)(nil)

// hostname is the machine's name on its set: its role's.
func hostname(i int) string {
	if i == 0 {
		return "server"
	}
	return "loadgen-" + strconv.Itoa(i)
}

// Plan checks what it can without making anything: the image, the user,
// root and the programs.
func (d *Driver) Plan(ctx context.Context, spec cloud.Spec) (*cloud.Plan, error) {
	m := spec.Machines
	suite, err := machine.SuiteOf(m.Attr("image"))
	if err != nil {
		return nil, cloud.ConfigErr(fmt.Errorf("netns machines: %w", err))
	}
	if m.User != "root" {
		return nil, cloud.ConfigErr(fmt.Errorf("netns machines: user %q: its machines have root only", m.User))
	}
	l, err := d.layout(m)
	if err != nil {
		return nil, cloud.ConfigErr(fmt.Errorf("netns machines: %w", err))
	}
	if err := machine.Check(); err != nil {
		return nil, cloud.ConfigErr(fmt.Errorf("netns machines: %w", err))
	}
	p := &cloud.Plan{Driver: Name, Owned: true, Spec: spec}
	for i := 0; i <= m.LoadGens(); i++ {
		role := cloud.RoleLoadGen
		if i == 0 {
			role = cloud.RoleServer
		}
		p.Machines = append(p.Machines, cloud.Machine{
			Name: "wptest-" + spec.Run.ID + "-" + hostname(i), Role: role, Driver: Name,
			Location: "this host", Image: machine.Platform(suite),
		})
	}
	res, notes := l.describe(m.LoadGens())
	p.Resources = append(append(p.Resources, fmt.Sprintf("a network namespace, veths, cgroups and an overlay of the %s rootfs per machine", suite)), res...)
	p.Notes = append(append(p.Notes, "machines on this host: nothing is billed; they share its kernel, its memory bus and caches"), notes...)
	p.Notes = append(p.Notes,
		"reachable only from this host and from each other (no NAT, no default route); apt goes through this host's apt-cacher-ng",
		"the firewall attributes (open_ports, allow_from, allow_ssh_from) have nothing to open: no one else reaches them")
	return p, nil
}

// Create makes the planned machines, journaling each, pins their host keys
// in the run's known_hosts and authorizes the run's key.
func (d *Driver) Create(ctx context.Context, p *cloud.Plan, j cloud.Journal) ([]cloud.Machine, error) {
	run := p.Spec.Run
	if j == nil {
		j = cloud.NopJournal
	}
	suite, err := machine.SuiteOf(p.Spec.Machines.Attr("image"))
	if err != nil {
		return nil, cloud.ConfigErr(err)
	}
	client, err := cloud.ClientKey(run.Dir, nil)
	if err != nil {
		return nil, err
	}
	l, err := d.layout(p.Spec.Machines)
	if err != nil {
		return nil, cloud.ConfigErr(err)
	}
	o := machine.Options{Suite: suite, Authorized: client.Public, Log: d.Log}
	for i, m := range p.Machines {
		labels := cloud.Labels(run, m.Role)
		lim := l.load
		if i == 0 {
			lim = l.server
		}
		o.Hosts = append(o.Hosts, machine.Want{Name: hostname(i), Labels: labels, Limits: lim})
		if err := j.Append(cloud.Event{Phase: cloud.PhaseBefore, Op: "create", Kind: "machine", Name: m.Name, Labels: labels}); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	hosts, err := machine.Make(ctx, o)
	if err != nil {
		for _, m := range p.Machines {
			_ = j.Append(cloud.Event{Phase: cloud.PhaseFailed, Op: "create", Kind: "machine", Name: m.Name, Error: err.Error()})
		}
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, cloud.ProvisionErr(fmt.Errorf("netns machines: %w", err))
	}
	ms := make([]cloud.Machine, len(hosts))
	for i, h := range hosts {
		m := p.Machines[i]
		m.ID, m.Address, m.Port, m.User, m.HostKey = h.ID, h.IP, 22, "root", h.HostKey
		ms[i] = m
		if err := j.Append(cloud.Event{Phase: cloud.PhaseAfter, Op: "create", Kind: "machine", Name: m.Name, ID: h.ID}); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(d.Log, "netns: %d machines (%s) up in %s\n", len(ms), machine.Platform(suite), time.Since(start).Round(10*time.Millisecond))
	// wptest's own work (this process: SSH sessions, bookkeeping) off the
	// server's CPUs while its machines live; Destroy gives them back.
	if d.offServer == nil {
		if d.offServer, err = machine.KeepOff(l.server.CPUs); err != nil {
			err = fmt.Errorf("netns machines: keep wptest off the server's CPUs: %w", err)
			return nil, errors.Join(err, d.Destroy(context.WithoutCancel(ctx), cloud.Selector{Run: run.ID, Journal: j}))
		}
	}
	if err := cloud.WriteKnownHosts(filepath.Join(run.Dir, cloud.KnownHostsFile), ms); err != nil {
		return nil, errors.Join(err, d.Destroy(context.WithoutCancel(ctx), cloud.Selector{Run: run.ID, Journal: j}))
	}
	return ms, nil
}

// resources are the machines sel selects, as resources.
func (d *Driver) resources(sel cloud.Selector) ([]cloud.Resource, []machine.Record, error) {
	if _, err := sel.LabelSelector(); err != nil {
		return nil, nil, cloud.ConfigErr(err)
	}
	rs, err := machine.Records()
	if err != nil {
		return nil, nil, err
	}
	var out []cloud.Resource
	var recs []machine.Record
	for _, r := range rs {
		run := r.Labels[cloud.LabelRun]
		if r.Labels[cloud.LabelManaged] != "1" || run == "" || (!sel.AllRuns && run != sel.Run) {
			continue
		}
		res := cloud.Resource{Kind: "machine", ID: r.ID, Name: "wptest-" + run + "-" + r.Name, Run: run, Labels: r.Labels}
		if s, err := strconv.ParseInt(r.Labels[cloud.LabelExpires], 10, 64); err == nil {
			res.Expires = time.Unix(s, 0).UTC()
		}
		out = append(out, res)
		recs = append(recs, r)
	}
	return out, recs, nil
}

// List returns the machines sel selects.
func (d *Driver) List(ctx context.Context, sel cloud.Selector) ([]cloud.Resource, error) {
	rs, _, err := d.resources(sel)
	return rs, err
}

// Destroy removes every machine of sel's run, then lists the label again:
// only that list decides whether anything is left (exit 7 naming it).
func (d *Driver) Destroy(ctx context.Context, sel cloud.Selector) error {
	if sel.Run == "" || sel.AllRuns {
		return cloud.ConfigErr(cloud.ErrEmptySelector)
	}
	rs, recs, err := d.resources(sel)
	if err != nil {
		return err
	}
	j := sel.Journal
	if j == nil {
		j = cloud.NopJournal
	}
	var errs []error
	if err := d.offServer.Restore(); err != nil {
		errs = append(errs, fmt.Errorf("give wptest back its CPUs: %w", err))
	}
	d.offServer = nil
	for i, r := range recs {
		_ = j.Append(cloud.Event{Phase: cloud.PhaseBefore, Op: "delete", Kind: "machine", Name: rs[i].Name, ID: r.ID})
		if err := r.Remove(); err != nil {
			_ = j.Append(cloud.Event{Phase: cloud.PhaseFailed, Op: "delete", Kind: "machine", Name: rs[i].Name, ID: r.ID, Error: err.Error()})
			errs = append(errs, err)
			continue
		}
		_ = j.Append(cloud.Event{Phase: cloud.PhaseAfter, Op: "delete", Kind: "machine", Name: rs[i].Name, ID: r.ID})
		fmt.Fprintf(d.Log, "netns: removed %s (%s)\n", rs[i].Name, r.ID)
	}
	left, lerr := d.List(ctx, sel)
	if len(errs) == 0 && lerr == nil && len(left) == 0 {
		if err := j.Append(cloud.GoneEvent(sel.Run)); err != nil {
			fmt.Fprintf(d.Log, "journal: %v\n", err)
		}
		return nil
	}
	err = errors.Join(append(errs, lerr)...)
	if err == nil {
		err = errors.New("the label still lists them after they were removed")
	}
	if lerr != nil {
		left = nil // unknown: the list failed
	}
	return exitcode.With(exitcode.Teardown, &cloud.TeardownError{Run: sel.Run, Left: left, Err: err})
}

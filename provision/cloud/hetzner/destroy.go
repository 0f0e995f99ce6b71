package hetzner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/wptest/wptest/provision/cloud"
)

// Destroy removes one run's resources by label, in dependency order:
// servers (and waits until they are gone), firewalls (retrying while the API
// still sees them in use), placement groups, SSH keys. What is already gone
// counts as removed. It keeps going past errors so one stuck resource does
// not leave the rest billed, and reports a teardown error (exit 7) with the
// command to retry.
func (d *Driver) Destroy(ctx context.Context, sel cloud.Selector) error {
	if sel.Run == "" || sel.AllRuns {
		return cloud.ConfigErr(cloud.ErrEmptySelector)
	}
	return cloud.Teardown(sel.Run, d.destroy(ctx, sel))
}

func (d *Driver) destroy(ctx context.Context, sel cloud.Selector) error {
	ls, err := sel.LabelSelector()
	if err != nil {
		return cloud.ConfigErr(err)
	}
	j := sel.Journal
	if j == nil {
		j = cloud.NopJournal
	}
	lo := hcloud.ListOpts{LabelSelector: ls}
	var errs []error

	servers, err := d.c.Server.AllWithOpts(ctx, hcloud.ServerListOpts{ListOpts: lo})
	if err != nil {
		return fmt.Errorf("list servers %s: %w", ls, err)
	}
	for _, s := range servers {
		if err := d.deleteServer(ctx, j, s); err != nil {
			errs = append(errs, err)
		}
	}
	fws, err := d.c.Firewall.AllWithOpts(ctx, hcloud.FirewallListOpts{ListOpts: lo})
	errs = append(errs, listErr("firewalls", err))
	for _, f := range fws {
		errs = append(errs, d.deleteFirewall(ctx, j, f))
	}
	pgs, err := d.c.PlacementGroup.AllWithOpts(ctx, hcloud.PlacementGroupListOpts{ListOpts: lo})
	errs = append(errs, listErr("placement groups", err))
	for _, p := range pgs {
		errs = append(errs, d.deletePlacementGroup(ctx, j, p))
	}
	keys, err := d.c.SSHKey.AllWithOpts(ctx, hcloud.SSHKeyListOpts{ListOpts: lo})
	errs = append(errs, listErr("ssh keys", err))
	for _, k := range keys {
		errs = append(errs, d.deleteSSHKey(ctx, j, k))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	d.logf("run %s: removed %d servers, %d firewalls, %d placement groups, %d ssh keys",
		sel.Run, len(servers), len(fws), len(pgs), len(keys))
	return nil
}

func listErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("list %s: %w", what, err)
}

// gone reports whether err means the resource no longer exists.
func gone(err error) bool { return hcloud.IsError(err, hcloud.ErrorCodeNotFound) }

func (d *Driver) deleteServer(ctx context.Context, j cloud.Journal, s *hcloud.Server) error {
	return mutate(j, "delete", "server", s.Name, nil, func() (string, error) {
		res, _, err := d.c.Server.DeleteWithResult(ctx, s)
		if gone(err) {
			return id(s.ID), nil
		}
		if err != nil {
			return "", fmt.Errorf("delete server %s (id %d): %w", s.Name, s.ID, err)
		}
		if err := d.c.Action.WaitFor(ctx, res.Action); err != nil {
			return "", fmt.Errorf("delete server %s (id %d): %w", s.Name, s.ID, err)
		}
		d.logf("deleted server %s (id %d)", s.Name, s.ID)
		return id(s.ID), nil
	})
}

// firewallRetries bounds the wait for a firewall to be released by servers
// that were just deleted (the API answers resource_in_use meanwhile).
const firewallRetries = 10

func (d *Driver) deleteFirewall(ctx context.Context, j cloud.Journal, f *hcloud.Firewall) error {
	return mutate(j, "delete", "firewall", f.Name, nil, func() (string, error) {
		for try := 0; ; try++ {
			_, err := d.c.Firewall.Delete(ctx, f)
			switch {
			case err == nil || gone(err):
				d.logf("deleted firewall %s (id %d)", f.Name, f.ID)
				return id(f.ID), nil
			case hcloud.IsError(err, hcloud.ErrorCodeResourceInUse) && try < firewallRetries:
				if serr := sleep(ctx, d.opt.Backoff(try)); serr != nil {
					return "", fmt.Errorf("delete firewall %s (id %d): %w", f.Name, f.ID, serr)
				}
			default:
				return "", fmt.Errorf("delete firewall %s (id %d): %w", f.Name, f.ID, err)
			}
		}
	})
}

func (d *Driver) deletePlacementGroup(ctx context.Context, j cloud.Journal, p *hcloud.PlacementGroup) error {
	return mutate(j, "delete", "placement_group", p.Name, nil, func() (string, error) {
		_, err := d.c.PlacementGroup.Delete(ctx, p)
		if err != nil && !gone(err) {
			return "", fmt.Errorf("delete placement group %s (id %d): %w", p.Name, p.ID, err)
		}
		d.logf("deleted placement group %s (id %d)", p.Name, p.ID)
		return id(p.ID), nil
	})
}

func (d *Driver) deleteSSHKey(ctx context.Context, j cloud.Journal, k *hcloud.SSHKey) error {
	return mutate(j, "delete", "ssh_key", k.Name, nil, func() (string, error) {
		_, err := d.c.SSHKey.Delete(ctx, k)
		if err != nil && !gone(err) {
			return "", fmt.Errorf("delete ssh key %s (id %d): %w", k.Name, k.ID, err)
		}
		d.logf("deleted ssh key %s (id %d)", k.Name, k.ID)
		return id(k.ID), nil
	})
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// List returns the resources sel selects, servers first.
func (d *Driver) List(ctx context.Context, sel cloud.Selector) ([]cloud.Resource, error) {
	ls, err := sel.LabelSelector()
	if err != nil {
		return nil, cloud.ConfigErr(err)
	}
	lo := hcloud.ListOpts{LabelSelector: ls}
	var out []cloud.Resource
	add := func(kind string, rid int64, name string, labels map[string]string) {
		r := cloud.Resource{Kind: kind, ID: id(rid), Name: name, Run: labels[cloud.LabelRun], Labels: labels}
		if v, err := strconv.ParseInt(labels[cloud.LabelExpires], 10, 64); err == nil {
			r.Expires = time.Unix(v, 0).UTC()
		}
		out = append(out, r)
	}
	servers, err := d.c.Server.AllWithOpts(ctx, hcloud.ServerListOpts{ListOpts: lo})
	if err != nil {
		return nil, classify("list servers", err)
	}
	for _, s := range servers {
		add("server", s.ID, s.Name, s.Labels)
	}
	fws, err := d.c.Firewall.AllWithOpts(ctx, hcloud.FirewallListOpts{ListOpts: lo})
	if err != nil {
		return nil, classify("list firewalls", err)
	}
	for _, f := range fws {
		add("firewall", f.ID, f.Name, f.Labels)
	}
	pgs, err := d.c.PlacementGroup.AllWithOpts(ctx, hcloud.PlacementGroupListOpts{ListOpts: lo})
	if err != nil {
		return nil, classify("list placement groups", err)
	}
	for _, p := range pgs {
		add("placement_group", p.ID, p.Name, p.Labels)
	}
	keys, err := d.c.SSHKey.AllWithOpts(ctx, hcloud.SSHKeyListOpts{ListOpts: lo})
	if err != nil {
		return nil, classify("list ssh keys", err)
	}
	for _, k := range keys {
		add("ssh_key", k.ID, k.Name, k.Labels)
	}
	return out, nil
}

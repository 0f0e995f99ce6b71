package hetzner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

// Destroy removes one run's resources by label (see teardown). It reports a
// teardown error (exit 7) only if the label still lists something after the
// last attempt, and then names it.
func (d *Driver) Destroy(ctx context.Context, sel cloud.Selector) error {
	if sel.Run == "" || sel.AllRuns {
		return cloud.ConfigErr(cloud.ErrEmptySelector)
	}
	return d.teardown(ctx, sel, nil)
}

// made is what Create holds IDs for. teardown deletes them together with
// what the label lists, kind by kind, so a resource is removed even when a
// list call fails, and no known resource is deleted before an unknown one
// that holds it (a server whose create answer was lost still holds the
// firewall: deleting the known firewall first meets resource_in_use until
// that server is gone).
type made struct {
	servers   []*hcloud.Server
	firewalls []*hcloud.Firewall
	pgs       []*hcloud.PlacementGroup
	keys      []*hcloud.SSHKey
}

// teardownAttempts bounds how often teardown deletes and lists again before
// it reports what is left; firewallInUseRetries how often one attempt asks
// again for a firewall the API still sees in use (briefly, right after its
// servers were deleted). Both wait d.opt.Backoff between tries, so the worst
// case is seconds, not the minutes a long retry on one resource took.
const (
	teardownAttempts     = 3
	firewallInUseRetries = 3
)

// teardown removes everything labelled with sel's run, plus what known holds,
// in dependency order: servers (waiting until each is gone), firewalls,
// placement groups, SSH keys. "Not found" counts as removed. Then it lists
// the label again: only that list decides the outcome. An error along the
// way (a one-off API failure, a firewall still in use) that a later attempt
// or the list shows resolved is logged, not reported. When the list is
// empty, the journal gets a "gone" line, which settles everything it left
// open. Otherwise, after the last attempt, the error is a TeardownError
// (exit 7) naming each resource still there.
func (d *Driver) teardown(ctx context.Context, sel cloud.Selector, known *made) error {
	ls, err := sel.LabelSelector()
	if err != nil {
		return cloud.ConfigErr(err)
	}
	j := sel.Journal
	if j == nil {
		j = cloud.NopJournal
	}
	if known == nil {
		known = &made{}
	}
	done := map[string]bool{} // kind/id deleted in an earlier attempt
	var left []cloud.Resource
	var lastErr, resolved error
	for attempt := 1; attempt <= teardownAttempts; attempt++ {
		if attempt > 1 {
			d.logf("run %s: teardown attempt %d of %d (%v)", sel.Run, attempt, teardownAttempts, lastErr)
			if err := sleep(ctx, d.opt.Backoff(attempt-2)); err != nil {
				lastErr = errors.Join(lastErr, err)
				break
			}
		}
		sweepErr := d.sweep(ctx, ls, j, known, done)
		rs, lerr := d.List(ctx, sel)
		resolved = errors.Join(resolved, sweepErr)
		if lerr == nil && len(rs) == 0 {
			if resolved != nil {
				d.logf("run %s: errors on the way, resolved since: %v", sel.Run, resolved)
			}
			d.logf("run %s: nothing left under its label", sel.Run)
			if err := j.Append(cloud.GoneEvent(sel.Run)); err != nil {
				d.logf("journal: %v", err)
			}
			return nil
		}
		left, lastErr = rs, errors.Join(sweepErr, lerr)
		if lerr != nil {
			left = nil // unknown: the list failed
			lastErr = fmt.Errorf("cannot confirm what is left: %w", lastErr)
		}
		if lastErr == nil {
			lastErr = errors.New("the label still lists them after they were deleted")
		}
		if ctx.Err() != nil {
			break
		}
	}
	return exitcode.With(exitcode.Teardown, &cloud.TeardownError{Run: sel.Run, Left: left, Err: lastErr})
}

// sweep makes one pass over every kind; it keeps going past errors so one
// stuck resource does not leave the rest billed. done holds what earlier
// passes deleted ("server/40"): a known resource the label no longer lists
// is not deleted twice.
func (d *Driver) sweep(ctx context.Context, ls string, j cloud.Journal, known *made, done map[string]bool) error {
	lo := hcloud.ListOpts{LabelSelector: ls}
	var errs []error
	del := func(kind string, rid int64, f func() error) {
		err := f()
		if err == nil {
			done[kind+"/"+id(rid)] = true
		}
		errs = append(errs, err)
	}

	servers, err := d.c.Server.AllWithOpts(ctx, hcloud.ServerListOpts{ListOpts: lo})
	errs = append(errs, listErr("servers", err))
	for _, s := range pick(servers, known.servers, "server", func(s *hcloud.Server) int64 { return s.ID }, done) {
		del("server", s.ID, func() error { return d.deleteServer(ctx, j, s) })
	}
	// Waiting for a firewall to be released makes sense only when every
	// server of the run is gone; otherwise one that is still there holds
	// it, and the next attempt (after listing the servers again) comes
	// sooner than any wait here would end.
	serversGone := errors.Join(errs...) == nil
	fws, err := d.c.Firewall.AllWithOpts(ctx, hcloud.FirewallListOpts{ListOpts: lo})
	errs = append(errs, listErr("firewalls", err))
	for _, f := range pick(fws, known.firewalls, "firewall", func(f *hcloud.Firewall) int64 { return f.ID }, done) {
		del("firewall", f.ID, func() error { return d.deleteFirewall(ctx, j, f, serversGone) })
	}
	pgs, err := d.c.PlacementGroup.AllWithOpts(ctx, hcloud.PlacementGroupListOpts{ListOpts: lo})
	errs = append(errs, listErr("placement groups", err))
	for _, p := range pick(pgs, known.pgs, "placement_group", func(p *hcloud.PlacementGroup) int64 { return p.ID }, done) {
		del("placement_group", p.ID, func() error { return d.deletePlacementGroup(ctx, j, p) })
	}
	keys, err := d.c.SSHKey.AllWithOpts(ctx, hcloud.SSHKeyListOpts{ListOpts: lo})
	errs = append(errs, listErr("ssh keys", err))
	for _, k := range pick(keys, known.keys, "ssh_key", func(k *hcloud.SSHKey) int64 { return k.ID }, done) {
		del("ssh_key", k.ID, func() error { return d.deleteSSHKey(ctx, j, k) })
	}
	return errors.Join(errs...)
}

// pick is what to delete of one kind: everything listed, then each known
// one that is not listed and not deleted before.
func pick[T any](listed, known []T, kind string, rid func(T) int64, done map[string]bool) []T {
	seen := map[int64]bool{}
	out := make([]T, 0, len(listed)+len(known))
	for _, x := range listed {
		seen[rid(x)] = true
		out = append(out, x)
	}
	for _, x := range known {
		if !seen[rid(x)] && !done[kind+"/"+id(rid(x))] {
			seen[rid(x)] = true
			out = append(out, x)
		}
	}
	return out
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

// deleteFirewall deletes f; with wait, it asks again a few times while the
// API still sees f in use by servers that were just deleted.
func (d *Driver) deleteFirewall(ctx context.Context, j cloud.Journal, f *hcloud.Firewall, wait bool) error {
	return mutate(j, "delete", "firewall", f.Name, nil, func() (string, error) {
		for try := 0; ; try++ {
			_, err := d.c.Firewall.Delete(ctx, f)
			switch {
			case err == nil || gone(err):
				d.logf("deleted firewall %s (id %d)", f.Name, f.ID)
				return id(f.ID), nil
			case hcloud.IsError(err, hcloud.ErrorCodeResourceInUse) && wait && try < firewallInUseRetries:
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

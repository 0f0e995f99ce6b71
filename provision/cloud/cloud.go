// Package cloud makes and removes the machines a benchmark runs on.
//
// A Cloud driver validates a Spec into a Plan before anything is billed
// (Plan), creates the machines while journaling every mutation (Create),
// removes them by label (Destroy: idempotent, scoped to one run, never an
// empty selector) and lists what exists (List). Drivers register with the
// registry (registry.go); provision/cloud/drivers lists the compiled-in ones.
//
// Nothing here reads flags or the environment: the CLI passes its Getenv,
// the run directory and the clock in, and a driver reads its own
// credentials through that Getenv.
package cloud

import (
	"context"
	"errors"
	"fmt"
	"github.com/wptest/wptest/hostrecord"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Cloud is what a run needs from a machine provider.
type Cloud interface {
	// Plan validates spec against the provider (token, server type in the
	// location, image) and says what Create would make and what it costs.
	// It mutates nothing.
	Plan(ctx context.Context, spec Spec) (*Plan, error)
	// Create makes the planned machines. Every mutation is written to j
	// before and after it happens. On error (or a cancelled ctx) everything
	// Create made is removed again before it returns.
	Create(ctx context.Context, plan *Plan, j Journal) ([]Machine, error)
	// Destroy removes every resource selected by sel (one run). It is
	// idempotent (what is already gone counts as removed) and refuses an
	// empty selector.
	Destroy(ctx context.Context, sel Selector) error
	// List returns the resources sel selects (sel.AllRuns lists every run).
	List(ctx context.Context, sel Selector) ([]Resource, error)
}

// Role, Machine: what a run made (or was given), as it records them
// (hostrecord: the run's readers need nothing of the cloud).
type (
	Role    = hostrecord.Role
	Machine = hostrecord.Machine
)

// The roles a machine has.
const (
	RoleServer  = hostrecord.RoleServer
	RoleLoadGen = hostrecord.RoleLoadGen
)

// Run names one run: its ID (the label every resource carries), where its
// files live, and who made it for what until when.
type Run struct {
	ID      string        `json:"id"`
	Dir     string        `json:"dir"` // runs/<id>: journal, known_hosts, the client key
	Profile string        `json:"profile"`
	Owner   string        `json:"owner"`
	Created time.Time     `json:"created"`
	TTL     time.Duration `json:"ttl_ns"` // expiry = Created + TTL, as a label for gc
}

// Expires is when gc may remove the run's machines.
func (r Run) Expires() time.Time { return r.Created.Add(r.TTL) }

var runIDRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`)

// ValidRunID reports whether id can be a label value and part of a host name.
func ValidRunID(id string) error {
	if !runIDRe.MatchString(id) {
		return fmt.Errorf("run id %q: want 1-40 of [a-z0-9-], not starting or ending with '-'", id)
	}
	return nil
}

// Spec is what to make: the machines block plus the run it belongs to.
type Spec struct {
	Machines Machines `json:"machines"`
	Run      Run      `json:"run"`
}

// Plan is a validated Spec: what Create will make and what it costs.
type Plan struct {
	Driver string `json:"driver"`
	// Owned: the driver makes these machines (they cost money until
	// `wptest down` removes them), and they are new, so a host key may
	// still change while one boots. False for machines given to wptest
	// (static, local): nothing to remove afterwards.
	Owned     bool      `json:"owned"`
	Spec      Spec      `json:"spec"`
	Machines  []Machine `json:"machines"`  // planned: Name, Role, Location, ServerType, Image, ImageID
	Resources []string  `json:"resources"` // human lines, in creation order
	// Price per hour for all machines together, as the provider states it
	// (gross, incl. VAT), and the per-machine price it is made of.
	HourlyGross string   `json:"hourly_gross"`
	HourlyEach  string   `json:"hourly_each"`
	Currency    string   `json:"currency"`
	PriceSource string   `json:"price_source"`
	Notes       []string `json:"notes"`
}

// WriteText prints the plan for humans.
func (p *Plan) WriteText(w io.Writer) {
	fmt.Fprintf(w, "driver %s, run %s\n", p.Driver, p.Spec.Run.ID)
	if p.Spec.Machines.NotCarried != "" {
		fmt.Fprintf(w, "not carried: %s\n", p.Spec.Machines.NotCarried)
	}
	for _, m := range p.Machines {
		desc := m.Address
		if m.ServerType != "" {
			desc = fmt.Sprintf("%s in %s, image %s (id %d)", m.ServerType, m.Location, m.Image, m.ImageID)
		}
		fmt.Fprintf(w, "  + machine %-28s %-8s %s\n", m.Name, m.Role, desc)
	}
	for _, r := range p.Resources {
		fmt.Fprintf(w, "  + %s\n", r)
	}
	if p.HourlyGross != "" {
		cur := p.Currency
		if cur == "" {
			cur = "(currency not stated by the provider)"
		}
		fmt.Fprintf(w, "cost: %s %s per hour for %d machines (%s %s each, gross; %s)\n",
			p.HourlyGross, cur, len(p.Machines), p.HourlyEach, p.Currency, p.PriceSource)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// Selector picks resources by label. Exactly one of Run or AllRuns is set;
// the zero Selector is refused everywhere, so a bug can never widen a delete
// to the whole project (hetzner-k3s #15).
type Selector struct {
	Run     string // the resources of one run
	AllRuns bool   // every resource wptest made (List only; gc picks runs from it)
	// Journal, if set, receives before/after events for each deletion.
	Journal Journal
}

// ErrEmptySelector is returned for a selector that names no run.
var ErrEmptySelector = errors.New("refusing an empty selector: name a run (wptest down --run ID); gc selects expired runs by label")

// Label keys on every resource.
const (
	LabelManaged = "wptest"         // "1"
	LabelRun     = "wptest/run"     // run id
	LabelProfile = "wptest/profile" // profile name
	LabelOwner   = "wptest/owner"   // who ran it (sanitized)
	LabelRole    = "wptest/role"    // server | loadgen
	LabelCreated = "wptest/created" // unix seconds
	LabelExpires = "wptest/expires" // unix seconds; gc removes the run after it
)

// LabelSelector is the provider label selector for s.
func (s Selector) LabelSelector() (string, error) {
	switch {
	case s.Run != "" && s.AllRuns:
		return "", errors.New("selector: both a run and all runs")
	case s.Run != "":
		if err := ValidRunID(s.Run); err != nil {
			return "", err
		}
		return LabelManaged + "=1," + LabelRun + "=" + s.Run, nil
	case s.AllRuns:
		return LabelManaged + "=1," + LabelRun, nil
	}
	return "", ErrEmptySelector
}

// Labels are the labels for a resource of run r (role may be empty).
func Labels(r Run, role Role) map[string]string {
	l := map[string]string{
		LabelManaged: "1",
		LabelRun:     r.ID,
		LabelCreated: fmt.Sprint(r.Created.Unix()),
		LabelExpires: fmt.Sprint(r.Expires().Unix()),
	}
	if v := labelValue(r.Profile); v != "" {
		l[LabelProfile] = v
	}
	if v := labelValue(r.Owner); v != "" {
		l[LabelOwner] = v
	}
	if role != "" {
		l[LabelRole] = string(role)
	}
	return l
}

// labelValue maps s onto a valid label value: [a-zA-Z0-9._-], at most 63,
// alphanumeric at both ends ("root@box" -> "root_box").
func labelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	v := strings.Trim(string(b), "._-")
	if len(v) > 63 {
		v = strings.TrimRight(v[:63], "._-")
	}
	return v
}

// Resource is one provider object wptest made.
type Resource struct {
	Kind    string            `json:"kind"` // server, firewall, placement_group, ssh_key
	ID      string            `json:"id"`
	Name    string            `json:"name"`
	Run     string            `json:"run"`
	Expires time.Time         `json:"expires,omitzero"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// String names r as a user finds it in the console: "server wptest-t1-server (id 40)".
func (r Resource) String() string {
	return fmt.Sprintf("%s %s (id %s)", strings.ReplaceAll(r.Kind, "_", " "), r.Name, r.ID)
}

// ExpiredRuns returns the sorted run IDs among rs whose expiry label is at or
// before now. Runs with a missing or unreadable expiry are never expired (gc
// leaves what it cannot prove it may delete) and are returned in unknown.
func ExpiredRuns(rs []Resource, now time.Time) (expired, unknown []string) {
	exp := map[string]bool{}
	unk := map[string]bool{}
	for _, r := range rs {
		if r.Run == "" {
			continue
		}
		if r.Expires.IsZero() {
			unk[r.Run] = true
			continue
		}
		if !r.Expires.After(now) {
			exp[r.Run] = true
		}
	}
	for id := range exp {
		if !unk[id] {
			expired = append(expired, id)
		}
	}
	for id := range unk {
		unknown = append(unknown, id)
	}
	sort.Strings(expired)
	sort.Strings(unknown)
	return expired, unknown
}

// GC removes every run whose expiry label has passed (as of now), one run
// at a time by its own label; runs without a readable expiry are left alone
// and reported. With dryRun it only says what it would remove.
func GC(ctx context.Context, c Cloud, now time.Time, dryRun bool, log io.Writer) (removed []string, err error) {
	rs, err := c.List(ctx, Selector{AllRuns: true})
	if err != nil {
		return nil, err
	}
	expired, unknown := ExpiredRuns(rs, now)
	for _, id := range unknown {
		fmt.Fprintf(log, "gc: run %s has no readable %s label; leaving it (remove it with %s)\n", id, LabelExpires, DownCommand(id))
	}
	var errs []error
	for _, id := range expired {
		if dryRun {
			fmt.Fprintf(log, "gc: would remove expired run %s\n", id)
			continue
		}
		fmt.Fprintf(log, "gc: removing expired run %s\n", id)
		if err := c.Destroy(ctx, Selector{Run: id}); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, id)
	}
	return removed, errors.Join(errs...)
}

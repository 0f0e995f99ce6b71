package cloud

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Driver is one kind of machines as the registry knows it: the label of a
// machines block, what the block may say and what it means when it does
// not, where its secrets come from, what it can do, and how to open it.
// A driver package registers itself in init; the binary's list of drivers
// is provision/cloud/drivers. Nothing outside a driver's own package tests
// its name: the commands ask the registry.
type Driver struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// Attributes are the driver's own machines attributes, besides the
	// Common ones every driver reads; Default "" means none.
	Attributes []Attribute `json:"attributes"`
	// Credentials name where the driver reads its secrets from (never
	// their values, which only the driver's Open reads, through Getenv).
	Credentials  []Credential `json:"credentials"`
	Capabilities Capabilities `json:"capabilities"`
	// DefaultCloud: the driver of machines plan/up with no machines
	// block, and of gc, machines list and down when none is named. At most
	// one driver says so.
	DefaultCloud bool `json:"default_cloud,omitempty"`
	// DefaultRun: the driver of an experiment file without a machines
	// block (run, plan). At most one driver says so.
	DefaultRun bool `json:"default_run,omitempty"`
	// TargetForm describes the --target values Target claims, for
	// messages ("ssh://user@host:port"); "" if it claims none. Every
	// driver is also chosen by --target NAME.
	TargetForm string                   `json:"target_form,omitempty"`
	Target     func(target string) bool `json:"-"`
	// Open returns the driver, its credentials read through o.Getenv.
	Open func(o OpenOptions) (Cloud, error) `json:"-"`
	// ListPrice is the price a machine of m costs by the provider's
	// published list, for an estimate made without its API (no token);
	// an error says there is none. Nil: the driver keeps no list.
	ListPrice func(m Machines) (ListPrice, error) `json:"-"`
}

// ListPrice is one machine's hourly price as its provider published it:
// gross (with VAT), with where and when, so a reader can check it.
type ListPrice struct {
	ServerType  string
	HourlyGross string // per machine
	Currency    string
	Source      string // the page it was published on
	Date        string // when it was read there (YYYY-MM-DD)
}

// Attribute is a machines attribute and its default.
type Attribute struct {
	Name    string `json:"name"`
	Default string `json:"default,omitempty"`
	Doc     string `json:"doc"`
	// Portable: a common attribute that means the same to every driver,
	// so a block keeps it when the command line picks another driver
	// (Resolve). A driver's own attributes never are.
	Portable bool `json:"portable,omitempty"`
	// Operator: only the person running wptest sets it, on the command
	// line (this flag or -var), never a file: a file on this machine (a
	// key, known_hosts) or who may reach the server. Files travel between
	// people; what they say is data.
	Operator string `json:"operator,omitempty"`
	// Check validates a value the block or -var gives (not the default):
	// its error says what is wanted, and the block's is shown at the
	// value (file:line:col). nil: any value.
	Check func(v string) error `json:"-"`
	// Example is a value Check takes ("2-3"), for docs and tests.
	Example string `json:"example,omitempty"`
}

// Credential is one place a driver reads a secret or a setting from.
type Credential struct {
	Env    string `json:"env"`
	Secret bool   `json:"secret,omitempty"`
	Doc    string `json:"doc"`
}

// Capabilities say what a driver can do; the commands decide by them.
type Capabilities struct {
	// Creates: the driver makes machines (billed until down removes them).
	Creates bool `json:"creates"`
	// Labels: what it makes carries the run's labels, so machines list and
	// gc find runs by label.
	Labels bool `json:"labels"`
	// Prices: plan states the hourly price.
	Prices bool `json:"prices"`
	// Targets: it takes hosts the user already has (targets, known_hosts).
	Targets bool `json:"targets"`
}

// OpenOptions is what the CLI gives a driver it opens. Nothing in a driver
// reads the environment itself: Getenv is the command's.
type OpenOptions struct {
	Getenv func(string) string
	// Redactor receives every secret the driver reads or makes; Log and
	// Debug (API dumps, nil: none) are wrapped in it.
	Redactor *Redactor
	Log      io.Writer
	Debug    io.Writer
	Version  string
	// Backoff paces API retries (nil: the driver's own).
	Backoff func(retries int) time.Duration
}

// Common are the attributes every driver reads, with their defaults.
// The user is the image's (its SSH user), so it is not Portable: a block
// switched to another driver leaves it.
var Common = []Attribute{
	{Name: "load_generators", Default: "1", Doc: "load generator machines besides the server (0 to 9)", Portable: true},
	{Name: "ttl", Default: DefaultTTL, Doc: "gc may remove the run after this", Portable: true},
	{Name: "user", Default: "root", Doc: "the SSH user (the image's: not kept when --target/--driver picks another driver)"},
	{Name: "open_ports", Default: strings.Join(DefaultOpenPorts, ","), Doc: "ports the firewall opens", Portable: true},
	{Name: "allow_from", Default: "", Doc: "who else may reach the web ports (IP or CIDR)", Portable: true, Operator: "-var allow_from=ADDR,..."},
	{Name: "allow_ssh_from", Default: "this host's public address, else anywhere (key-only)", Doc: "who may reach SSH", Portable: true, Operator: "-var allow_ssh_from=ADDR,..."},
	// The machines' own figure, so not Portable: another driver's are others.
	{Name: "load_generator_link_mbps", Doc: "each load generator's link bandwidth in Mbit/s, as its provider states it: a point whose load generator's link carried more than 90% of it measured the bench (none stated: the link is not judged)",
		Check: checkLinkMbps, Example: "1000"},
}

// TargetAttributes are the attributes of a driver that takes hosts the
// user has (Capabilities.Targets): such a driver lists them among its
// own, and the commands' --target, --known-hosts and --identity set them.
var TargetAttributes = []Attribute{
	{Name: "targets", Doc: "ssh://user@host[:port], one a machine (or --target)"},
	{Name: "known_hosts", Doc: "known_hosts file pinning every target (required)", Operator: "--known-hosts FILE"},
	{Name: "identity_file", Doc: "private key the targets accept (default: the run's own)", Operator: "--identity KEY"},
}

var (
	regMu    sync.RWMutex
	registry = map[string]*Driver{}
)

// Register adds d; a driver package calls it from init. It panics on a
// second driver of one name or a second default, as database/sql does:
// that is a build mistake, not input.
func Register(d Driver) {
	regMu.Lock()
	defer regMu.Unlock()
	if err := add(registry, d); err != nil {
		panic("cloud: " + err.Error())
	}
}

func add(reg map[string]*Driver, d Driver) error {
	if d.Name == "" || d.Open == nil {
		return fmt.Errorf("driver %q: Register needs a name and Open", d.Name)
	}
	if _, dup := reg[d.Name]; dup {
		return fmt.Errorf("driver %s registered twice", d.Name)
	}
	for _, a := range d.Attributes {
		if slices.ContainsFunc(Common, func(c Attribute) bool { return c.Name == a.Name }) {
			return fmt.Errorf("driver %s: attribute %s is a common one", d.Name, a.Name)
		}
		if !d.Capabilities.Targets && isTargetAttr(a.Name) {
			return fmt.Errorf("driver %s: attribute %s is for a driver that takes targets", d.Name, a.Name)
		}
		// A target attribute's Operator is what keeps a file from naming a
		// key or a known_hosts file on this machine: a driver keeps it.
		if i := slices.IndexFunc(TargetAttributes, func(t Attribute) bool { return t.Name == a.Name }); i >= 0 && a.Operator != TargetAttributes[i].Operator {
			return fmt.Errorf("driver %s: attribute %s is not TargetAttributes' (only the operator sets it: %q)", d.Name, a.Name, TargetAttributes[i].Operator)
		}
	}
	if d.Capabilities.Targets && !slices.ContainsFunc(d.Attributes, func(a Attribute) bool { return a.Name == TargetAttributes[0].Name }) {
		return fmt.Errorf("driver %s takes targets but does not list TargetAttributes", d.Name)
	}
	for _, o := range reg {
		if (d.DefaultCloud && o.DefaultCloud) || (d.DefaultRun && o.DefaultRun) {
			return fmt.Errorf("drivers %s and %s both claim a default", o.Name, d.Name)
		}
	}
	reg[d.Name] = &d
	return nil
}

// Drivers are the registered drivers, sorted by name.
func Drivers() []Driver {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]Driver, 0, len(registry))
	for _, d := range registry {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names are the registered drivers' names, sorted.
func Names() []string {
	var out []string
	for _, d := range Drivers() {
		out = append(out, d.Name)
	}
	return out
}

// Lookup returns the driver called name, or a config error listing the
// known ones.
func Lookup(name string) (Driver, error) {
	regMu.RLock()
	d, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return Driver{}, ConfigErr(fmt.Errorf("machines driver %q: %s", name, knownDrivers()))
	}
	return *d, nil
}

func knownDrivers() string {
	if n := Names(); len(n) > 0 {
		return "use one of " + strings.Join(n, ", ")
	}
	return "no drivers are compiled in (import provision/cloud/drivers)"
}

// DefaultDriver is the driver that claims the default (run: DefaultRun,
// else DefaultCloud).
func DefaultDriver(run bool) (Driver, error) {
	for _, d := range Drivers() {
		if (run && d.DefaultRun) || (!run && d.DefaultCloud) {
			return d, nil
		}
	}
	what := "cloud commands"
	if run {
		what = "experiment files without a machines block"
	}
	return Driver{}, ConfigErr(fmt.Errorf("no default machines driver for %s: name one (%s)", what, knownDrivers()))
}

// ForTarget is the driver a --target value chooses: the driver of that
// name, else the driver whose Target claims it.
func ForTarget(t string) (Driver, error) {
	if d, err := Lookup(t); err == nil {
		return d, nil
	}
	forms := Names()
	for _, d := range Drivers() {
		if d.Target != nil && d.Target(t) {
			return d, nil
		}
		if d.TargetForm != "" {
			forms = append(forms, d.TargetForm)
		}
	}
	return Driver{}, ConfigErr(fmt.Errorf("--target %q: want %s", t, strings.Join(forms, ", ")))
}

// TargetForms are the --target values the registry takes, for flag help.
func TargetForms() string {
	forms := Names()
	for _, d := range Drivers() {
		if d.TargetForm != "" {
			forms = append(forms, d.TargetForm)
		}
	}
	return strings.Join(forms, ", ")
}

// reads says whether d reads attribute name (its own or a common one).
func (d Driver) reads(name string) bool {
	_, ok := d.attr(name)
	return ok
}

// own is d's own attribute name.
func (d Driver) own(name string) (Attribute, bool) {
	i := slices.IndexFunc(d.Attributes, func(a Attribute) bool { return a.Name == name })
	if i < 0 {
		return Attribute{}, false
	}
	return d.Attributes[i], true
}

// attr is d's (or the common) attribute name.
func (d Driver) attr(name string) (Attribute, bool) {
	for _, a := range append(append([]Attribute(nil), Common...), d.Attributes...) {
		if a.Name == name {
			return a, true
		}
	}
	return Attribute{}, false
}

// attrNames are d's own attribute names and the common ones, for messages.
func (d Driver) attrNames() string {
	var n []string
	for _, a := range append(append([]Attribute(nil), d.Attributes...), Common...) {
		n = append(n, a.Name)
	}
	return strings.Join(n, ", ")
}

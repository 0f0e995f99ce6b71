// Package static is the driver for hosts the user already has: it
// registers itself with provision/cloud like any driver (the binary's list
// is provision/cloud/drivers).
package static

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/safefile"
	"github.com/wptest/wptest/provision/cloud"
)

// Static is the driver for hosts the user already has (targets
// ssh://user@host:port): the first is the server, the others load
// generators. It creates and deletes nothing. Their pins come from a
// known_hosts file the user names and are copied into the run's own.
type Static struct{}

var _ cloud.Cloud = Static{}

const name = "static"

func init() {
	cloud.Register(cloud.Driver{
		Name:         name,
		Summary:      "hosts you already have; the first target is the server, the others load generators; creates nothing",
		Attributes:   cloud.TargetAttributes,
		Capabilities: cloud.Capabilities{Targets: true},
		TargetForm:   "ssh://user@host:port",
		Target:       func(t string) bool { return strings.HasPrefix(t, "ssh://") },
		Open:         func(cloud.OpenOptions) (cloud.Cloud, error) { return Static{}, nil },
	})
}

// Plan checks every target parses and is pinned in the given known_hosts.
func (Static) Plan(ctx context.Context, spec cloud.Spec) (*cloud.Plan, error) {
	m := spec.Machines
	if len(m.Targets) == 0 {
		return nil, cloud.ConfigErr(errors.New(`static machines: no targets (targets = ["ssh://root@203.0.113.7"] or --target)`))
	}
	// A malformed target is named before anything else is asked of it.
	for i, s := range m.Targets {
		if t, err := host.ParseTarget(s); err != nil || t.Local {
			return nil, cloud.ConfigErr(fmt.Errorf("static machines: target %d: %v", i+1, orLocal(err)))
		}
	}
	if m.KnownHosts == "" {
		return nil, cloud.ConfigErr(errors.New("static machines: known_hosts is required: host keys are pinned, never trusted on first use (ssh-keyscan HOST >> hosts.known, then check the fingerprints)"))
	}
	cb, err := knownhosts.New(m.KnownHosts)
	if err != nil {
		return nil, cloud.ConfigErr(fmt.Errorf("static machines: known_hosts: %w", err))
	}
	p := &cloud.Plan{Driver: name, Spec: spec}
	seen := map[string]bool{}
	for i, s := range m.Targets {
		t, err := host.ParseTarget(s)
		if err != nil || t.Local {
			return nil, cloud.ConfigErr(fmt.Errorf("static machines: target %d: %v", i+1, orLocal(err)))
		}
		if seen[t.Addr()] {
			return nil, cloud.ConfigErr(fmt.Errorf("static machines: target %s given twice", t))
		}
		seen[t.Addr()] = true
		if !pinned(cb, t.Addr()) {
			return nil, cloud.ConfigErr(fmt.Errorf("static machines: %s has no pin in %s", t.Addr(), m.KnownHosts))
		}
		mc := cloud.Machine{Driver: name, Address: t.Host, Port: t.Port, User: t.User, IdentityFile: m.IdentityFile}
		if i == 0 {
			mc.Name, mc.Role = "server", cloud.RoleServer
		} else {
			mc.Name, mc.Role = fmt.Sprintf("loadgen-%d", i), cloud.RoleLoadGen
		}
		p.Machines = append(p.Machines, mc)
	}
	p.Notes = append(p.Notes, "static hosts: nothing is created or deleted, nothing is billed by wptest")
	return p, nil
}

func orLocal(err error) error {
	if err == nil {
		return errors.New(`"local" is the local driver, not a static target`)
	}
	return err
}

// pinned reports whether known_hosts has any key for addr: asking with a
// throwaway key yields a KeyError listing the pinned keys (Want) if so.
func pinned(cb ssh.HostKeyCallback, addr string) bool {
	k, err := cloud.NewKeyPair(nil, "")
	if err != nil {
		return false
	}
	tcp, _ := net.ResolveTCPAddr("tcp", addr)
	err = cb(addr, tcp, k.Signer.PublicKey())
	var ke *knownhosts.KeyError
	return errors.As(err, &ke) && len(ke.Want) > 0
}

// Create copies the user's pins into the run's known_hosts.
func (Static) Create(ctx context.Context, p *cloud.Plan, j cloud.Journal) ([]cloud.Machine, error) {
	b, err := os.ReadFile(p.Spec.Machines.KnownHosts)
	if err != nil {
		return nil, cloud.ConfigErr(err)
	}
	dst := filepath.Join(p.Spec.Run.Dir, cloud.KnownHostsFile)
	if err := os.MkdirAll(p.Spec.Run.Dir, 0o700); err != nil {
		return nil, err
	}
	f, err := safefile.Append(dst, 0o600) // never through a link planted in the run directory
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return append([]cloud.Machine(nil), p.Machines...), nil
}

// Destroy deletes nothing (the hosts are the user's) but still refuses an
// empty selector, like every driver.
func (Static) Destroy(ctx context.Context, sel cloud.Selector) error {
	if sel.Run == "" || sel.AllRuns {
		return cloud.ConfigErr(cloud.ErrEmptySelector)
	}
	return nil
}

// List: static hosts are not resources wptest made.
func (Static) List(ctx context.Context, sel cloud.Selector) ([]cloud.Resource, error) {
	if _, err := sel.LabelSelector(); err != nil {
		return nil, cloud.ConfigErr(err)
	}
	return nil, nil
}

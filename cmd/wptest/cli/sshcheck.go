package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

// The files an ssh connection is configured by are config (exit 2), checked
// before anything connects or is created: a known_hosts file and an identity
// that cannot be read or parsed, or no way to authenticate at all, are the
// user's to fix, not a provisioning failure.

// checkKnownHosts checks that file is a readable, well-formed known_hosts.
func checkKnownHosts(flag, file string) error {
	if _, err := knownhosts.New(file); err != nil {
		return exitcode.With(exitcode.Config, fmt.Errorf("%s %s: %w", flag, file, err))
	}
	return nil
}

// checkIdentity checks that file holds an unencrypted private key.
func checkIdentity(flag, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return exitcode.With(exitcode.Config, fmt.Errorf("%s: %w", flag, err))
	}
	_, err = ssh.ParsePrivateKey(b)
	var pm *ssh.PassphraseMissingError
	if errors.As(err, &pm) {
		return exitcode.With(exitcode.Config, fmt.Errorf("%s %s is encrypted: load it into ssh-agent (SSH_AUTH_SOCK) and leave --identity out", flag, file))
	}
	if err != nil {
		return exitcode.With(exitcode.Config, fmt.Errorf("%s %s: not a private key: %w", flag, file, err))
	}
	return nil
}

// checkSSHAuth checks an ssh target's known_hosts, identity and agent as
// up, plan, seed and the other --target commands use them.
func checkSSHAuth(knownHosts, identity, agentSocket string) error {
	if err := checkKnownHosts("--known-hosts", knownHosts); err != nil {
		return err
	}
	if identity != "" {
		return checkIdentity("--identity", identity)
	}
	if agentSocket == "" {
		return exitcode.With(exitcode.Config, errors.New("no --identity and no ssh-agent (SSH_AUTH_SOCK is not set): give --identity KEY or start an agent with the key"))
	}
	return nil
}

// checkTargetMachines is run's check, before the run directory is made, of
// a machines block whose driver takes hosts the user has (Targets): the
// targets parse and are pinned in a well-formed known_hosts (the driver's
// own plan), and the identity is a key.
func checkTargetMachines(ctx context.Context, a *App, d cloud.Driver, m cloud.Machines) error {
	if m.KnownHosts != "" {
		if err := checkKnownHosts("known_hosts", m.KnownHosts); err != nil {
			return err
		}
	}
	s := newCloudSession(a)
	defer s.close()
	c, err := s.driver(d.Name, "")
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	if _, err := c.Plan(ctx, cloud.Spec{Machines: m}); err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	if m.IdentityFile == "" {
		return exitcode.With(exitcode.Config, fmt.Errorf("%s machines: no identity: give --identity KEY", d.Name))
	}
	return checkIdentity("identity", m.IdentityFile)
}

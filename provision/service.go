package provision

import (
	"context"
	"fmt"
	"time"

	"github.com/wptest/wptest/host"
)

// ServiceOp keeps a service running or stopped. Its commands default to
// systemctl under systemd and to "service NAME ..." otherwise; profiles give
// their own for daemons without an init script (start-stop-daemon).
type ServiceOp struct {
	opBase
	Name         string
	State        string // "running" or "stopped"
	Enabled      *bool
	OnNotify     string // "reload" or "restart"
	Cmds         map[string]string
	ReadyTimeout time.Duration

	initSeen string // the host's init system, read once per run
}

func (s *ServiceOp) spec() map[string]any {
	m := map[string]any{"name": s.Name, "state": s.State, "on_notify": s.OnNotify}
	if s.Enabled != nil {
		m["enabled"] = *s.Enabled
	}
	for k, v := range s.Cmds {
		m[k] = v
	}
	return m
}

// command returns the script for which (start, stop, reload, restart,
// status, ready) on a host with the given init; "" when there is none.
func (s *ServiceOp) command(init, which string) string {
	if c := s.Cmds[which]; c != "" {
		return c
	}
	custom := s.Cmds["start"] != ""
	switch which {
	case "ready":
		return s.command(init, "status")
	case "restart":
		if custom {
			return "" // stop, then start
		}
	case "reload":
		if custom {
			return "" // restart
		}
	}
	q := host.Quote(s.Name)
	if init == "systemd" {
		if which == "status" {
			return "systemctl is-active --quiet " + q
		}
		return "systemctl " + which + " " + q
	}
	return "service " + q + " " + which
}

type svcFacts struct {
	start, stop, enable, disable bool
}

func (s *ServiceOp) init(ctx context.Context, h host.Host) (string, error) {
	if s.initSeen != "" {
		return s.initSeen, nil
	}
	f, err := h.Facts(ctx)
	if err != nil {
		return "", fmt.Errorf("facts: %w", err)
	}
	s.initSeen = f.Init
	return f.Init, nil
}

// running reports whether the status command exits 0.
func (s *ServiceOp) running(ctx context.Context, h host.Host, init string) (bool, error) {
	code, err := exitCode(run(ctx, h, s.id+" (status)", s.command(init, "status")))
	return code == 0, err
}

func (s *ServiceOp) Check(ctx context.Context, h host.Host) (Change, error) {
	init, err := s.init(ctx, h)
	if err != nil {
		return Change{}, err
	}
	up, err := s.running(ctx, h, init)
	if err != nil {
		return Change{}, err
	}
	var sf svcFacts
	var details []string
	action := "none"
	switch {
	case s.State == "running" && !up:
		sf.start, action = true, "start"
		details = append(details, "stopped -> running")
	case s.State == "stopped" && up:
		sf.stop, action = true, "stop"
		details = append(details, "running -> stopped")
	}
	if s.Enabled != nil && init == "systemd" {
		code, err := exitCode(run(ctx, h, s.id+" (is-enabled)", "systemctl is-enabled --quiet "+host.Quote(s.Name)))
		if err != nil {
			return Change{}, err
		}
		if (code == 0) != *s.Enabled {
			if *s.Enabled {
				sf.enable = true
				details = append(details, "enable")
			} else {
				sf.disable = true
				details = append(details, "disable")
			}
			if action == "none" {
				action = details[len(details)-1]
			}
		}
	}
	if len(details) == 0 {
		return noChange(), nil
	}
	return Change{Needed: true, Action: action, Details: details, state: sf}, nil
}

func (s *ServiceOp) Apply(ctx context.Context, h host.Host, c Change) error {
	init, err := s.init(ctx, h)
	if err != nil {
		return err
	}
	sf, _ := c.state.(svcFacts)
	if sf.enable || sf.disable {
		verb := "enable"
		if sf.disable {
			verb = "disable"
		}
		if _, err := run(ctx, h, s.id, "systemctl "+verb+" "+host.Quote(s.Name)); err != nil {
			return err
		}
	}
	switch {
	case sf.start:
		if _, err := run(ctx, h, s.id+" (start)", s.command(init, "start")); err != nil {
			return err
		}
		return s.waitReady(ctx, h, init)
	case sf.stop:
		_, err := run(ctx, h, s.id+" (stop)", s.command(init, "stop"))
		return err
	}
	return nil
}

// Notify runs the reload or restart a notification asked for.
func (s *ServiceOp) Notify(ctx context.Context, h host.Host, action string) error {
	init, err := s.init(ctx, h)
	if err != nil {
		return err
	}
	if action == "reload" {
		if c := s.command(init, "reload"); c != "" {
			_, err := run(ctx, h, s.id+" (reload)", c)
			return err
		}
	}
	if c := s.command(init, "restart"); c != "" {
		if _, err := run(ctx, h, s.id+" (restart)", c); err != nil {
			return err
		}
	} else {
		if _, err := run(ctx, h, s.id+" (stop)", s.command(init, "stop")); err != nil {
			return err
		}
		if _, err := run(ctx, h, s.id+" (start)", s.command(init, "start")); err != nil {
			return err
		}
	}
	return s.waitReady(ctx, h, init)
}

// waitReady polls the ready command (default: status) until it exits 0.
func (s *ServiceOp) waitReady(ctx context.Context, h host.Host, init string) error {
	script := s.command(init, "ready")
	deadline := time.Now().Add(s.ReadyTimeout)
	for {
		res, err := run(ctx, h, s.id+" (ready)", script)
		code, rerr := exitCode(res, err)
		if rerr != nil {
			return rerr
		}
		if code == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %w", s.Name, s.ReadyTimeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

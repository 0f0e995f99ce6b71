package experiment

import (
	"context"
	"fmt"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
)

// stepConnect records the machines in the manifest, opens the server and
// reads its facts. It holds the host it opened; its cleanup closes it.
type stepConnect struct{ h host.Host }

func (*stepConnect) Name() string { return "connect" }

func (s *stepConnect) Run(ctx context.Context, r *runner) error {
	if err := recordMachines(r.man, r.dir, r.ms); err != nil {
		return err
	}
	sm, err := serverMachine(r.ms)
	if err != nil {
		return err
	}
	if s.h, err = hostOf(ctx, r.dir, sm, r.opt.Log); err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	r.srv = &server{h: s.h, m: sm, addr: "127.0.0.1"}
	if !sm.Local {
		r.srv.addr = sm.Address
	}
	if r.srv.facts, err = s.h.Facts(ctx); err != nil {
		return exitcode.With(exitcode.Provision, fmt.Errorf("facts of %s: %w", s.h.Name(), err))
	}
	return nil
}

func (s *stepConnect) Cleanup(context.Context, *runner) error {
	if s.h != nil {
		s.h.Close()
	}
	return nil
}

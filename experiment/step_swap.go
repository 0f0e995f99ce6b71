package experiment

import (
	"context"
	"fmt"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// stepSwap applies the group's column and reads the host manifest it
// left: the ports and protocols its server declares.
type stepSwap struct{ noGroupCleanup }

func (stepSwap) Name() string { return "server" }

func (stepSwap) Run(ctx context.Context, g *colGroup) error {
	r := g.r
	if err := r.apply(ctx, g.ps); err != nil {
		return err
	}
	live, err := hostmanifest.Read(ctx, r.srv.h)
	if err != nil || live == nil {
		return exitcode.With(exitcode.Provision, fmt.Errorf("%s on %s: no host manifest after its apply: %v", g.ps.ID, r.srv.h.Name(), err))
	}
	r.srv.ports = nil
	if live.Server != nil {
		r.srv.ports = live.Server.Ports
	}
	g.live = live
	return nil
}

package cli

import (
	"context"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/provision/cloud"
)

// runEstimate is sp's expected wall time and, where the driver states
// prices (the registry's capability), the machines' cost for that time at
// the hourly price its plan reads, as `machines plan` shows it. A plan that
// fails (no token, say) prices them at the driver's list price if it keeps
// one, else leaves the cost unknown, saying why: the estimate is for
// reading, it stops nothing.
func runEstimate(ctx context.Context, s *cloudSession, sp *experiment.Spec, id string) experiment.Estimate {
	e := experiment.EstimateOf(sp)
	d, err := cloud.Lookup(sp.Machines.Driver)
	if err != nil || !d.Capabilities.Prices {
		return e
	}
	c, err := s.driver(sp.Machines.Driver, "")
	if err == nil {
		var plan *cloud.Plan
		if plan, err = c.Plan(ctx, cloud.Spec{Machines: sp.Machines, Run: cloud.Run{ID: id, Profile: sp.Name}}); err == nil {
			e.Price(plan)
			return e
		}
	}
	e.PriceErr = s.redacted(err).Error()
	if d.ListPrice == nil {
		return e
	}
	if lp, err := d.ListPrice(sp.Machines); err != nil {
		e.PriceErr = err.Error() + " (" + e.PriceErr + ")"
	} else {
		e.PriceList(lp, 1+sp.Machines.LoadGens())
	}
	return e
}

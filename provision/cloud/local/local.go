// Package local is the driver for this machine: server and load
// generators are all here (the least faithful setup, and the one needing
// nothing). It registers itself with provision/cloud like any driver.
package local

import (
	"context"
	"strconv"

	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/static"
)

const name = "local"

func init() {
	cloud.Register(cloud.Driver{
		Name:       name,
		Summary:    "this machine plays every role; creates nothing",
		DefaultRun: true,
		Open:       func(cloud.OpenOptions) (cloud.Cloud, error) { return Local{}, nil },
	})
}

// Local is the driver for this machine: server and load generator are both
// here (the least faithful setup, and the one needing nothing).
type Local struct{}

var _ cloud.Cloud = Local{}

func (Local) Plan(ctx context.Context, spec cloud.Spec) (*cloud.Plan, error) {
	p := &cloud.Plan{Driver: name, Spec: spec, Notes: []string{"local: server and load generator share this machine; results measure both"}}
	p.Machines = []cloud.Machine{{Name: name, Role: cloud.RoleServer, Driver: name, Local: true}}
	for i := 1; i <= spec.Machines.LoadGens(); i++ {
		p.Machines = append(p.Machines, cloud.Machine{Name: "local-loadgen-" + strconv.Itoa(i), Role: cloud.RoleLoadGen, Driver: name, Local: true})
	}
	return p, nil
}

func (Local) Create(ctx context.Context, p *cloud.Plan, j cloud.Journal) ([]cloud.Machine, error) {
	return append([]cloud.Machine(nil), p.Machines...), nil
}

func (Local) Destroy(ctx context.Context, sel cloud.Selector) error {
	return static.Static{}.Destroy(ctx, sel)
}

func (Local) List(ctx context.Context, sel cloud.Selector) ([]cloud.Resource, error) {
	return static.Static{}.List(ctx, sel)
}

package experiment

import (
	"fmt"
	"io"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
)

// WritePlan prints what Run would measure, without touching any machine:
// the plan's hash, the fixture's root (generated here: it is a pure
// function of profile and seed), the columns with their profiles, every
// point in order, and the estimate.
func WritePlan(w io.Writer, sp *Spec, est Estimate) error {
	fp, err := fixture.LoadProfile(sp.Fixture.Profile)
	if err != nil {
		return err
	}
	fx, err := fixture.Generate(fp, sp.Fixture.Seed)
	if err != nil {
		return err
	}
	m := fx.Manifest()
	pin := "not pinned"
	switch {
	case sp.Fixture.Root == m.Root:
		pin = "= pinned"
	case sp.Fixture.Root != "":
		pin = "MISMATCH: pinned " + sp.Fixture.Root
	}
	fmt.Fprintf(w, "experiment %s (%s)\nexperiment_sha256 %s\nplan_sha256 %s\nfixture %s seed %d root %s (%s)\nmachines %s\n",
		sp.Name, sp.File, sp.SHA256, sp.PlanHash(), sp.Fixture.Profile, sp.Fixture.Seed, m.Root, pin, sp.Machines.Describe())
	if sp.Machines.NotCarried != "" {
		fmt.Fprintf(w, "machines not carried: %s\n", sp.Machines.NotCarried)
	}
	stage.WriteLocalFiles(w, sp.Uploads)
	for _, c := range sp.Columns {
		if c.Enabled {
			fmt.Fprintf(w, "column %s (profile %s) %q\n", c.ID, c.Profile, c.Label)
		} else {
			fmt.Fprintf(w, "column %s (profile %s): left out (%q)\n", c.ID, c.Profile, c.Reason)
		}
	}
	for _, p := range sp.Plan() {
		fmt.Fprintln(w, p.Key)
	}
	est.WriteText(w)
	return nil
}

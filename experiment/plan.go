package experiment

import (
	"fmt"
	"io"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/results"
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
			if err := writeColumnVars(w, c, sp.VarFrom[c.ID]); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(w, "column %s (profile %s): left out (%q)\n", c.ID, c.Profile, c.Reason)
		}
	}
	for _, p := range planOf(sp).points {
		fmt.Fprintln(w, p.Key)
	}
	est.WriteText(w)
	return nil
}

// writeColumnVars prints every variable of column c's profile, as terraform
// plan prints every attribute: its value (sensitive ones hidden) and where
// it came from (the profile's default, the experiment file, the command
// line), operator_only ones marked.
func writeColumnVars(w io.Writer, c results.Column, from map[string]VarOrigin) error {
	p, err := loadProfile(c, nil)
	if err != nil {
		return err
	}
	width := 0
	for _, v := range p.Variables {
		width = max(width, len(v.Name))
	}
	for _, v := range p.Variables {
		origin := "profile default"
		if o, ok := from[v.Name]; ok {
			origin = o.String()
		}
		if v.OperatorOnly {
			origin += "; operator only"
		}
		if v.Name == AllowFromVar {
			origin += "; the run adds its load generators"
		}
		fmt.Fprintf(w, "  var %-*s = %s  (%s)\n", width, v.Name, p.Shown(v), origin)
	}
	return nil
}

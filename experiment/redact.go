package experiment

import (
	"github.com/wptest/wptest/internal/redact"
	"github.com/wptest/wptest/results"
)

// recorded is sp's variables and columns as the run records them
// (manifest.json, and so the report): a profile variable the profile
// declares sensitive, and an experiment variable of the same name, read
// "(sensitive)"; every other value has its URLs' userinfo and the
// profiles' secrets (what they computed from a sensitive value) hidden.
// The run itself uses sp: only the record is redacted.
func recorded(sp *Spec) (map[string]string, []results.Column) {
	sensitive := map[string]map[string]bool{} // column id -> its profile's sensitive variables
	anyProf := map[string]bool{}
	var secrets []string
	for _, ps := range sp.Columns {
		names := map[string]bool{}
		dir, err := lookupProfile(ps.Profile)
		if err == nil {
			// Declared even when the profile has errors without its vars.
			if p := baseProfile(dir); p != nil {
				for _, v := range p.Variables {
					if v.Sensitive {
						names[v.Name], anyProf[v.Name] = true, true
					}
				}
			}
		}
		if p, err := loadProfile(ps, nil); err == nil {
			secrets = append(secrets, p.Secrets()...)
		}
		sensitive[ps.ID] = names
	}
	profs := make([]results.Column, len(sp.Columns))
	for i, ps := range sp.Columns {
		names := sensitive[ps.ID]
		ps.Vars = redact.Vars(ps.Vars, func(n string) bool { return names[n] }, secrets)
		profs[i] = ps
	}
	return redact.Vars(sp.Vars, func(n string) bool { return anyProf[n] }, secrets), profs
}

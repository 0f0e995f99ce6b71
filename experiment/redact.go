package experiment

import (
	"github.com/wptest/wptest/internal/redact"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/results"
)

// recorded is sp's variables and profile columns as the run records them
// (manifest.json, and so the report): a profile variable the profile
// declares sensitive, and an experiment variable of the same name, read
// "(sensitive)"; every other value has its URLs' userinfo and the
// profiles' secrets (what they computed from a sensitive value) hidden.
// The run itself uses sp: only the record is redacted.
func recorded(sp *Spec) (map[string]string, []results.ProfileSpec) {
	sensitive := map[string]map[string]bool{} // profile name -> its sensitive variables
	anyProf := map[string]bool{}
	var secrets []string
	for _, ps := range sp.Profiles {
		names := map[string]bool{}
		dir, err := profiles.Lookup(ps.Name, func(d string) []string {
			if lp, _ := provision.Load(profiles.FS, d, provision.Vars{}); lp != nil {
				return lp.Aliases
			}
			return nil
		})
		if err == nil {
			// Declared even when the profile has errors without its vars.
			if p, _ := provision.Load(profiles.FS, dir, provision.Vars{}); p != nil {
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
		sensitive[ps.Name] = names
	}
	profs := make([]results.ProfileSpec, len(sp.Profiles))
	for i, ps := range sp.Profiles {
		names := sensitive[ps.Name]
		ps.Vars = redact.Vars(ps.Vars, func(n string) bool { return names[n] }, secrets)
		profs[i] = ps
	}
	return redact.Vars(sp.Vars, func(n string) bool { return anyProf[n] }, secrets), profs
}

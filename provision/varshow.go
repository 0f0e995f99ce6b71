package provision

import (
	"fmt"
	"strings"

	"github.com/wptest/wptest/internal/redact"
)

// Given says whether the variable was set from outside (-var, -var-file),
// rather than left at its default.
func (v *Variable) Given() bool { return v.given }

// Shown is the variable's value as a plan shows it: "(sensitive)" for a
// sensitive one; else its value (strings quoted, lists and maps as JSON),
// with URLs' userinfo and the profile's secrets hidden; a platform_default
// not overridden shows each platform's value ("debian-12: "8.2", ...").
func (p *Profile) Shown(v *Variable) string {
	if v.Sensitive {
		return redact.Redacted
	}
	one := func(plat string) string {
		return redact.URLs(p.secrets.redact(fmtVal(ctyToGo(v.On(plat)))))
	}
	if v.given || len(v.platformDefault) == 0 {
		return one("")
	}
	var per []string
	for _, plat := range p.Platforms {
		per = append(per, fmt.Sprintf("%s: %s", plat, one(plat)))
	}
	return strings.Join(per, ", ")
}

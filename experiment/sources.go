package experiment

import (
	"context"
	"fmt"
	"github.com/wptest/wptest/results"
	"net/netip"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/hcldiag"
	"github.com/wptest/wptest/provision/cloud"
)

// AllowFromVar is the profile variable that scopes the server's own
// firewall (firewalld) to who may reach the web ports; the run sets it as
// the cloud firewall is set: its load generators and the machines'
// allow_from.
const AllowFromVar = "allow_from"

// webSources are who may reach the server's web ports in this run: the
// load generator machines, the machines block's allow_from and, when the
// load comes from this process to a server that is another machine, this
// host as the server sees it (its SSH session's client address). The
// server's own loopback needs no rule.
func (s *server) webSources(ctx context.Context, ms []cloud.Machine, allowFrom []string) []string {
	var out []string
	lms := loadMachines(ms)
	for _, m := range lms {
		if m.Address != "" {
			out = append(out, m.Address)
		}
	}
	out = append(out, allowFrom...)
	if len(lms) == 0 && !s.m.Local {
		res, err := s.h.Run(ctx, host.Cmd{Script: `printf '%s' "${SSH_CLIENT%% *}"`, Label: "this host's address as the server sees it"})
		if a, perr := netip.ParseAddr(strings.TrimSpace(string(res.Stdout))); err == nil && perr == nil {
			out = append(out, a.Unmap().String())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// withSources is ps with sources added to its allow_from (the column's
// own kept), when the profile has that variable.
func withSources(ps results.Column, sources []string, declared bool) (results.Column, error) {
	if len(sources) == 0 || !declared {
		return ps, nil
	}
	all := slices.Clone(sources)
	if raw, ok := ps.Vars[AllowFromVar]; ok {
		given, err := stringList(raw)
		if err != nil {
			return ps, fmt.Errorf("profile %s: -var %s: %w", ps.ID, AllowFromVar, err)
		}
		all = append(given, all...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	q := make([]string, len(all))
	for i, s := range all {
		q[i] = fmt.Sprintf("%q", s)
	}
	vars := make(map[string]string, len(ps.Vars)+1)
	for k, v := range ps.Vars {
		vars[k] = v
	}
	vars[AllowFromVar] = "[" + strings.Join(q, ", ") + "]"
	ps.Vars = vars
	return ps, nil
}

// stringList reads an HCL list of strings given as a variable's value.
func stringList(raw string) ([]string, error) {
	if d := hcldiag.Check("<allow_from>", []byte(raw), hcldiag.Expression); d != nil {
		return nil, d
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), "<allow_from>", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		return nil, diags
	}
	if v.IsNull() || !v.IsKnown() || !(v.Type().IsListType() || v.Type().IsTupleType() || v.Type().IsSetType()) {
		return nil, fmt.Errorf("want a list of addresses, such as [\"203.0.113.7\"]")
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.Type() != cty.String || e.IsNull() {
			return nil, fmt.Errorf("want a list of addresses, such as [\"203.0.113.7\"]")
		}
		out = append(out, e.AsString())
	}
	return out, nil
}

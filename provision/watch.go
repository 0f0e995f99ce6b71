package provision

import (
	"github.com/wptest/wptest/hostrecord"
	"path"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
)

// Watch and Written are recorded in the host manifest (hostrecord).
type (
	Watch   = hostrecord.Watch
	Written = hostrecord.Written
)

type watchBlock struct {
	Paths      []string  `hcl:"paths"`
	PathsRange hcl.Range `hcl:"paths,attr_value_range"`
}

// decodeWatch reads one watch block; ok is false when it has errors or its
// when is false. seen holds the labels declared so far.
func decodeWatch(b *hcl.Block, ctx *hcl.EvalContext, seen map[string]hcl.Range) (Watch, bool, hcl.Diagnostics) {
	var wb watchBlock
	ok, diags := watches.decode(b, ctx, seen, &wb)
	if !ok {
		return Watch{}, false, diags
	}
	if len(wb.Paths) == 0 {
		return Watch{}, false, append(diags, errDiag("Empty watch", "paths must name at least one file or directory.", wb.PathsRange.Ptr()))
	}
	w := Watch{Name: b.Labels[0]}
	for _, p := range wb.Paths {
		if d := absPath(p, wb.PathsRange); d.HasErrors() {
			return Watch{}, false, append(diags, d...)
		}
		if c := path.Clean(p); !slices.Contains(w.Paths, c) {
			w.Paths = append(w.Paths, c)
		}
	}
	return w, true, diags
}

// Written are the files the profile's file ops write, by path; not one
// whose path came from a sensitive value (the record would keep it).
func (r *Rendered) Written() []Written {
	var out []Written
	for _, op := range r.Ops {
		if f, ok := op.(*FileOp); ok && !f.marks.marked("path") {
			out = append(out, Written{Path: f.Path, Op: f.id, Sensitive: f.marks.marked("content")})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

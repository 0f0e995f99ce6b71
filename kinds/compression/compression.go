// Package compression is the compression scenario kind: a file as a
// browser asks for it (Accept-Encoding: gzip, unless the block says
// gzip = false), who compresses it, its bytes on the wire and what
// compressing costs the server.
//
//	scenario "compression" {
//	  kind     = "compression"
//	  path     = "/wp-includes/css/dist/block-library/style.min.css"
//	  visitors = [50, 1000]
//	}
package compression

import (
	"context"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchcmd"
	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// Name is the kind's name in an experiment file (kind = "compression").
const Name = "compression"

func init() {
	results.Register(results.Kind{Name: Name, Order: 30}, results.RunMetrics("requests per second", "request", []results.Metric{
		{Name: "body_bytes", Label: "body as sent (bytes)", Unit: "B", Better: results.Lower, Value: results.ProbeBody},
	}))
	experiment.Register(Name, kind{})
	report.Register(Name, report.Kind{Section: section, Charts: charts, PerRequest: true, Order: 40})
	benchcmd.Register(Name, benchcmd.Kind{Order: 30, Visitors: "50", Load: benchLoad,
		Help: "as page, with Accept-Encoding: gzip; bytes counted at the connection"})
}

// benchLoad asks as a browser does (gzip), a run per visitor count.
func benchLoad(ctx context.Context, f *benchcmd.Flags, rep *result.Report, base benchgen.Config) error {
	base.Header = append([]string{benchgen.AcceptGzip}, base.Header...)
	return benchcmd.Sweep(ctx, f, rep, base)
}

// kind asks for the file as a browser does (gzip), unless the block says
// otherwise.
type kind struct{ experiment.RunKind }

func (kind) Decode(b experiment.Block, s *results.Scenario) hcl.Diagnostics {
	if a, ok := b.Written["gzip"]; !ok {
		s.Gzip = true
	} else if v, d := a.Expr.Value(b.Ctx); !d.HasErrors() && v.IsNull() {
		s.Gzip = true // gzip = null: as left out
	}
	return nil
}

func charts(r *report.Report, sc results.Scenario, add report.AddChart) error {
	p, err := r.Bars(sc, "wire_bytes")
	if err := add("compression-"+sc.Name, "Bytes on the wire per response (Accept-Encoding: gzip), median", p, err); err != nil {
		return err
	}
	p, err = r.Bars(sc, "server_cpu_ms") // the tables name the figure
	return add("compression-cpu-"+sc.Name, "Server CPU per response, median", p, err)
}

func section(r *report.Report, sc results.Scenario) report.Section {
	ps := r.ColumnsOf(sc)
	s := report.Section{ID: "compression-" + sc.Name, Title: fmt.Sprintf("Compression (%s: %s)", sc.Name, sc.Path),
		Text: []string{"The file as a browser asks for it (Accept-Encoding: gzip). Bytes are counted at the connection: headers and body as received."}}
	t := report.Table{Caption: "Compressed or not, and what it costs", Head: r.Head("", ps)}
	for _, st := range sc.Steps() {
		enc := []string{st + ": Content-Encoding"}
		for _, p := range ps {
			enc = append(enc, r.Encoding(p, sc.Name, st))
		}
		t.Rows = append(t.Rows, enc)
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "body_bytes")...)
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "wire_bytes", "rps")...)
		t.Rows = append(t.Rows, r.CPURows(st+": ", "request", ps, sc.Name, st)...)
	}
	s.Tables = append(s.Tables, t)
	if t, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	s.Charts = []string{"compression-" + sc.Name, "compression-cpu-" + sc.Name}
	return s
}

// Package transfer is the transfer scenario kind: visitors who download
// one large static file over and over, each on its own keep-alive
// connection, for a window at each visitor count. Its figures are the
// rate the file's bytes arrived at (MB/s, as the Apache kit's transfer
// rate) and the load generator's link as a share of the bandwidth the
// machines block states for it: the cPanel vs corehttpd post left its
// 105 KB image test out because "from 50 visitors on the numbers describe
// Hetzner's network rather than either server", which this share shows.
//
//	scenario "image" {
//	  kind     = "transfer"
//	  path     = "/wptest-105k.bin" # default: /wptest-1m.bin, the site's 1 MB file
//	  visitors = [1, 10, 50, 100]
//	  duration = "15s"
//	  warmup   = "3s"
//	}
//
// A point whose link carried more than 90% of its stated bandwidth
// measured the network, not the server (results.BenchLimit): no claim on
// the server is judged there, and the tables say "bench"; the link's share
// itself is shown and judged there, since it says why.
package transfer

import (
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchcmd"
	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// Name is the kind's name in an experiment file (kind = "transfer").
const Name = "transfer"

// DefaultPath is the file a block without a path downloads: the Apache
// kit's large.bin, 1 MB, which every profile's site writes.
const DefaultPath = "/wptest-1m.bin"

func init() {
	results.Register(results.Kind{Name: Name, Order: 80}, figures)
	experiment.Register(Name, kind{})
	report.Register(Name, report.Kind{Section: section, Charts: charts, PerRequest: true, Order: 80})
	benchcmd.Register(Name, benchcmd.Kind{Order: 80, Visitors: "1,10,50", Load: benchcmd.Sweep, Text: benchText,
		Help: "-c visitors download --url (a large file) over and over; MB/s per count",
		Check: func(f *benchcmd.Flags) error {
			if f.Given("rate") {
				return errors.New("--rate: a transfer's visitors download as fast as they can (closed loop)")
			}
			return nil
		}})
}

// benchText is the runs' table, then each one's transfer rate.
func benchText(w io.Writer, rep *result.Report) {
	benchgen.WriteRuns(w, rep.Runs)
	for _, r := range rep.Runs {
		if r.ElapsedMs > 0 {
			fmt.Fprintf(w, "%s: transfer rate %s MB/s\n", r.Name, report.Num(mbPerSec(&r)))
		}
	}
}

// figures are the kind's own two, then those of any run of requests.
var figures = append([]results.Metric{
	{Name: "mb_s", Label: "transfer rate (MB/s)", Unit: "MB/s", Better: results.Higher, Headline: true, Noise: true,
		Value: results.RunField(mbPerSec, func(r *result.Run) bool { return r.ElapsedMs > 0 })},
	// The bench's own, not the server's: compare leaves it out.
	{Name: "link_pct", Label: "load generator's link, share of its stated bandwidth (%)", Unit: "%", Bench: true,
		Value: func(results.Record) (float64, bool) { return 0, false }, Scoped: results.LinkPct},
}, results.RunMetrics("files per second", "file", nil)...)

// mbPerSec is the rate the file's bodies arrived at over the window, in
// MB (10^6 bytes) per second: the Apache kit's transfer rate.
func mbPerSec(r *result.Run) float64 { return float64(r.Bytes.Body) / (r.ElapsedMs / 1000) / 1e6 }

// notHere are the common attributes a transfer has no use for: a request
// count or rate where it measures a window, or compression. (Another
// kind's attributes are refused as every kind refuses them.)
var notHere = []struct{ attr, why string }{
	{"requests", "a transfer measures a window (duration)"},
	{"rate", "a transfer's visitors download as fast as they can (closed loop)"},
	{"gzip", "a transfer downloads the file as it is (the site's files are numbered lines, which compress thirtyfold)"},
}

// kind is a run of requests per visitor count, with its own defaults and
// refusals.
type kind struct{ experiment.RunKind }

// Progress is the point's rate on the progress line, to 3 significant
// digits ("transfer rate (MB/s) 1,180").
func (kind) Progress(rec results.Record) string {
	m, _ := results.MetricOf(Name, "mb_s")
	if v, ok := m.Value(rec); ok {
		return m.Label + " " + report.Num(v)
	}
	return ""
}

func (kind) Decode(b experiment.Block, s *results.Scenario) hcl.Diagnostics {
	var ds hcl.Diagnostics
	if !b.Given("path") {
		s.Path = DefaultPath
	}
	for _, n := range notHere {
		if b.Given(n.attr) {
			r := b.Range(n.attr)
			ds = append(ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Not an attribute of a transfer",
				Detail: fmt.Sprintf("%s: %s.", n.attr, n.why), Subject: &r})
		}
	}
	return ds
}

func section(r *report.Report, sc results.Scenario) report.Section {
	cols := r.ColumnsOf(sc)
	t := report.Table{Caption: "By visitors", Head: r.Head("", cols)}
	for _, st := range sc.Steps() {
		t.Rows = append(t.Rows, r.FigRows(st+": ", cols, sc, st, "mb_s", "link_pct", "rps", "p99_ms")...)
		t.Rows = append(t.Rows, r.CPURows(st+": ", "file", cols, sc.Name, st)...)
		t.Rows = append(t.Rows, r.FigRows(st+": ", cols, sc, st, "error_pct")...)
	}
	s := report.Section{ID: "transfer-" + sc.Name, Title: fmt.Sprintf("Large files (%s: %s, %s)", sc.Name, sc.Path, sc.Proto),
		Text: []string{fmt.Sprintf("How fast the file's bytes arrived (MB/s, 10^6 bytes) as visitors grow, each downloading it over and over, and the busiest load generator's link as a share of the bandwidth the machines block states for it (load_generator_link_mbps; none stated: –). Above %s%% the link set the pace: the point measured the network, not the server, and its other figures read \"bench\"; where the load generator's CPUs or failed requests set it, its link's share reads \"bench\" too. %s per step after %s of warm-up.",
			results.Num(results.MaxLinkPct), report.Amount(sc), sc.Warmup)},
		Tables: []report.Table{t}, Charts: []string{"mb-s-" + sc.Name}}
	if g, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, g)
	}
	return s
}

func charts(r *report.Report, sc results.Scenario, add report.AddChart) error {
	p, err := r.Lines(sc, "mb_s", false)
	return add("mb-s-"+sc.Name, "Transfer rate by visitors, median (points that measured the network left out)", p, err)
}

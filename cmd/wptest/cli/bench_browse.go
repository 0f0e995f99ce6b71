package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
)

// bench's browse: -c visitors (the first count), each loading --url and
// every asset it references over up to 6 h1 connections or one h2/h3
// connection (--proto), for --duration after --warmup.
func init() {
	benchKinds = append(benchKinds, struct {
		name string
		kind benchKind
	}{"browse", benchKind{visitors: "1", load: browseLoad, text: browseText,
		help: "-c visitors load the page and every asset it references, as browsers do:\nh1 over up to 6 connections each, h2/h3 over one; page-view time, bytes per view"}})
}

func browseLoad(ctx context.Context, f *benchFlags, rep *result.Report, base benchgen.Config) error {
	b, err := benchgen.Browse(ctx, benchgen.BrowseConfig{Base: base, Visitors: f.counts[0], Duration: base.Duration, Warmup: base.Warmup})
	rep.Browse = &b
	if err == nil && b.PageViewsOK == 0 {
		err = fmt.Errorf("browse: no page view of %d answered whole", b.PageViews)
	}
	return err
}

func browseText(w io.Writer, rep *result.Report) {
	b := rep.Browse
	fmt.Fprintf(w, "browse %s (%s): %d visitor(s), up to %d connection(s) each\n", b.URL, b.Proto, b.Visitors, b.ConnsPerVisitor)
	fmt.Fprintf(w, "page views:        %d (%d ok, %d failed), %.2f/s\n", b.PageViews, b.PageViewsOK, b.PageViewsFailed, b.PageViewsPerSec)
	fmt.Fprintf(w, "page view (ms):    p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n", b.PageView.P50, b.PageView.P90, b.PageView.P99, b.PageView.Max)
	fmt.Fprintf(w, "first byte (ms):   p50 %.2f  p99 %.2f\n", b.TTFB.P50, b.TTFB.P99)
	fmt.Fprintf(w, "per page view:     %.0f bytes in, %.0f out, %.1f assets\n", b.WireIn.Mean, b.WireOut.Mean, b.Assets.Mean)
	fmt.Fprintf(w, "connections:       %d %v; responses %v\n", b.Connections, b.Negotiated, b.Responses)
}

package benchgen

import (
	"fmt"
	"io"
	"net/url"
	"text/tabwriter"

	"github.com/wptest/wptest/bench/result"
)

// WriteAB writes one run in the shape ab users know (Rasmus's ab test). Where ab's
// definitions differ from the JSON fields it says which: "Complete requests"
// is every attempt that ended (ab counts failed ones too), "Requests per
// second" is attempts over the elapsed time, "Total transferred" is bytes read
// at the connection (headers included), "HTML transferred" the bodies.
func WriteAB(w io.Writer, r result.Run) {
	u, _ := url.Parse(r.URL)
	host, port, path := r.URL, "", ""
	if u != nil {
		host, port, path = u.Hostname(), u.Port(), u.RequestURI()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
	}
	sec := r.ElapsedMs / 1000
	docLen := int64(0)
	if r.Latency.Count > 0 {
		docLen = r.Bytes.Body / int64(r.Latency.Count)
	}
	ab := r.ABErrors
	failed := ab.Connect + ab.Receive + ab.Length + ab.Exceptions
	fmt.Fprintf(w, "Server Hostname:        %s\n", host)
	fmt.Fprintf(w, "Server Port:            %s\n", port)
	proto := r.Proto
	if r.HTTP10 {
		proto += ", HTTP/1.0 requests"
	}
	fmt.Fprintf(w, "Protocol:               %s (%s loop)\n\n", proto, r.Model)
	fmt.Fprintf(w, "Document Path:          %s\n", path)
	fmt.Fprintf(w, "Document Length:        %d bytes\n\n", docLen)
	fmt.Fprintf(w, "Concurrency Level:      %d\n", r.Visitors)
	fmt.Fprintf(w, "Time taken for tests:   %.3f seconds\n", sec)
	fmt.Fprintf(w, "Complete requests:      %d\n", r.Attempts)
	fmt.Fprintf(w, "Failed requests:        %d\n", failed)
	if failed > 0 {
		fmt.Fprintf(w, "   (Connect: %d, Receive: %d, Length: %d, Exceptions: %d)\n", ab.Connect, ab.Receive, ab.Length, ab.Exceptions)
	}
	if ab.Non2xx > 0 {
		fmt.Fprintf(w, "Non-2xx responses:      %d\n", ab.Non2xx)
	}
	fmt.Fprintf(w, "Keep-Alive requests:    %d\n", r.KeepAliveReqs)
	if r.KeepAliveCloses > 0 {
		fmt.Fprintf(w, "Keep-alive closes:      %d (not failures)\n", r.KeepAliveCloses)
	}
	fmt.Fprintf(w, "Total transferred:      %d bytes\n", r.Bytes.WireIn)
	fmt.Fprintf(w, "HTML transferred:       %d bytes\n", r.Bytes.Body)
	if sec > 0 && r.Attempts > 0 {
		fmt.Fprintf(w, "Requests per second:    %.2f [#/sec] (mean)\n", float64(r.Attempts)/sec)
		fmt.Fprintf(w, "Time per request:       %.3f [ms] (mean)\n", float64(r.Visitors)*r.ElapsedMs/float64(r.Attempts))
		fmt.Fprintf(w, "Time per request:       %.3f [ms] (mean, across all concurrent requests)\n", r.ElapsedMs/float64(r.Attempts))
		fmt.Fprintf(w, "Transfer rate:          %.2f [Kbytes/sec] received\n", float64(r.Bytes.WireIn)/1024/sec)
	}
	fmt.Fprintf(w, "\nConnection Times (ms)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\tmin\tmean\tmedian\tp99\tmax\t\n")
	for _, row := range []struct {
		n string
		l result.Latency
	}{{"Connect:", r.Connect}, {"Waiting:", r.TTFB}, {"Total:", r.Latency}} {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", row.n, row.l.Min, row.l.Mean, row.l.P50, row.l.P99, row.l.Max)
	}
	tw.Flush()
	if len(r.Latency.Percentiles) > 0 {
		fmt.Fprintf(w, "\nPercentage of the requests served within a certain time (ms)\n")
		for _, p := range r.Latency.Percentiles {
			suffix := ""
			if p.Pct == 100 {
				suffix = " (longest request)"
			}
			fmt.Fprintf(w, " %3.0f%%  %8.2f%s\n", p.Pct, p.Ms, suffix)
		}
	}
	if r.ClientCPUMs > 0 {
		fmt.Fprintf(w, "\nClient CPU:             %.0f ms (%.2f µs per request)\n", r.ClientCPUMs, r.ClientCPUPerReqUs)
	}
	if r.Limit != "" {
		fmt.Fprintf(w, "\nLIMIT: %s\n", r.Limit)
	}
}

// WriteRuns writes runs as a table, one line per step.
func WriteRuns(w io.Writer, runs []result.Run) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "step\tmodel\tproto\tattempts\tok\tfailed\trps\tp50 ms\tp90 ms\tp99 ms\tmax ms\tconnect p50\twire in/answer\tka closes\t\n")
	for _, r := range runs {
		per := 0.0
		if r.Outcomes.OK+r.ABErrors.Non2xx > 0 {
			per = float64(r.Bytes.WireIn) / float64(r.Latency.Count)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%.1f\t%.2f\t%.0f\t%d\t\n",
			r.Name, r.Model, r.Proto, r.Attempts, r.Outcomes.OK, r.Attempts-r.Outcomes.OK, r.RPS,
			r.Latency.P50, r.Latency.P90, r.Latency.P99, r.Latency.Max, r.Connect.P50, per, r.KeepAliveCloses)
	}
	tw.Flush()
	for _, r := range runs {
		if r.Attempts > r.Outcomes.OK {
			fmt.Fprintf(w, "%s failures: %s\n", r.Name, failureLine(r.Outcomes))
			for _, e := range r.Errors {
				fmt.Fprintf(w, "  %s ×%d: %s\n", e.Outcome, e.Count, e.Message)
			}
		}
		if r.Limit != "" {
			fmt.Fprintf(w, "%s LIMIT: %s\n", r.Name, r.Limit)
		}
	}
}

func failureLine(o result.Outcomes) string {
	if o.Failed() == 0 {
		return "no failures"
	}
	s := ""
	a := o.Array()
	for i, n := range a {
		if result.Outcome(i) == result.OK || n == 0 {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%s=%d", result.Outcome(i), n)
	}
	return s
}

// WriteCrowd writes the crowd scenario's summary.
func WriteCrowd(w io.Writer, c result.Crowd) {
	fmt.Fprintf(w, "crowd: %d visitors clicking every %g s; a new visitor every %g s; gave up after %g s\n",
		c.Visitors, c.ClickEveryMs/1000, c.ProbeEveryMs/1000, c.GiveUpMs/1000)
	if cw := c.Window; cw != nil {
		if cw.WarmupRaisedFromMs > 0 {
			fmt.Fprintf(w, "warm-up raised from %g s to click_every (%g s): every visitor clicks once before the first new visitor\n", cw.WarmupRaisedFromMs/1000, cw.WarmupMs/1000)
		}
		fmt.Fprintf(w, "crowd complete at %.2f s, new visitors from %.2f s to %.2f s, crowd stopped at %.2f s\n",
			cw.CompleteMs/1000, cw.FirstProbeMs/1000, cw.LastProbeEndMs/1000, cw.StoppedMs/1000)
	}
	fmt.Fprintf(w, "new visitors: %d, answered %d, gave up %d (%s)\n", len(c.Probes), c.Wait.Count, c.GaveUp, failureLine(c.ProbeOutcomes))
	if c.Wait.Count == 0 {
		fmt.Fprintf(w, "wait (connect + answer): none answered\n") // not a wait of 0 ms
	} else {
		fmt.Fprintf(w, "wait (connect + answer): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n", c.Wait.P50, c.Wait.P90, c.Wait.P99, c.Wait.Max)
	}
	fmt.Fprintf(w, "connect: p50 %.2f ms, max %.2f ms\n", c.ConnectWait.P50, c.ConnectWait.Max)
	fmt.Fprintf(w, "background clicks:\n")
	WriteRuns(w, []result.Run{c.Background})
	fmt.Fprintf(w, "load host memory (VmHWM): %.1f MB\n", float64(c.ClientRSSKB)/1024)
}

// WriteKit writes the ten metrics.
func WriteKit(w io.Writer, k result.Kit) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "#\tmetric\tvalue\n")
	if k.Startup != nil {
		fmt.Fprintf(tw, "1\tstartup\t%.0f ms (mean of %d)\n", k.Startup.MeanMs, len(k.Startup.Rounds))
	} else {
		fmt.Fprintf(tw, "1\tstartup\tnot measured (no restart command)\n")
	}
	t := k.Throughput
	fmt.Fprintf(tw, "2\tthroughput\t%.0f req/s (c=%d, keep-alive)\n", t.RPS, t.Visitors)
	fmt.Fprintf(tw, "3\tlatency\tp50 %.2f / p90 %.2f / p95 %.2f / p99 %.2f / max %.2f ms\n", t.Latency.P50, t.Latency.P90, t.Latency.P95, t.Latency.P99, t.Latency.Max)
	fmt.Fprintf(tw, "4\tconcurrency scaling\t%.0f%% of peak at c=%d\n", k.ScalingPct, lastVisitors(k.Scaling))
	fmt.Fprintf(tw, "5\tkeep-alive effect\t%.2fx (%.0f vs %.0f req/s)\n", k.KeepAliveX, k.KeepAliveOn.RPS, k.KeepAliveOff.RPS)
	if k.Transfer != nil {
		fmt.Fprintf(tw, "6\ttransfer rate\t%.1f MB/s\n", k.TransferMBs)
	} else {
		fmt.Fprintf(tw, "6\ttransfer rate\tnot measured (no --transfer-url)\n")
	}
	e := k.Errors
	ab := e.ABErrors
	fmt.Fprintf(tw, "7\terror rate\t%.3f%% at c=%d without keep-alive (connect %d, receive %d, length %d, exceptions %d, non-2xx %d; keep-alive closes %d)\n",
		e.ErrorRatePct, e.Visitors, ab.Connect, ab.Receive, ab.Length, ab.Exceptions, ab.Non2xx, e.KeepAliveCloses)
	if s := k.Server; s != nil {
		fmt.Fprintf(tw, "8\tCPU\t%.1f%% of all CPUs, %.3f ms per request (whole machine)\n", s.CPUBusyPct, s.CPUMsPerRequest)
		var pss int64
		for _, g := range s.Groups {
			pss += g.PSSPeakKB
		}
		fmt.Fprintf(tw, "9\tmemory (PSS)\t%.1f MB peak over named groups\n", float64(pss)/1024)
		if s.WorkerLimit > 0 {
			fmt.Fprintf(tw, "10\tworker usage\t%.0f%% (%d of %d busy at peak)\n", s.WorkerUsagePct, s.MaxBusyWorkers, s.WorkerLimit)
		} else {
			fmt.Fprintf(tw, "10\tworker usage\tno /server-status\n")
		}
	} else {
		fmt.Fprintf(tw, "8-10\tCPU, memory, workers\tnot sampled (run srvstat on the server)\n")
	}
	tw.Flush()
	fmt.Fprintln(w, "\nscaling:")
	WriteRuns(w, k.Scaling)
}

func lastVisitors(rs []result.Run) int {
	if len(rs) == 0 {
		return 0
	}
	return rs[len(rs)-1].Visitors
}

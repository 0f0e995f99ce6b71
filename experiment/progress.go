package experiment

import (
	"fmt"
	"strings"

	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

// Progress is one line for the person watching a run: a stage begun or
// done, a point begun, or a block to keep (the preflight, a note). The
// log (Options.Log) has every such line too, among the detail; how it is
// shown (one live line on a terminal, a line each elsewhere) is the
// caller's.
type Progress struct {
	Kind ProgressKind
	Text string // the line as the log has it, without a newline
}

// ProgressKind says how a Progress line is shown.
type ProgressKind int

const (
	// Stage is a stage done or a fact about the run: a line on plain
	// output, the live line on a terminal.
	Stage ProgressKind = iota
	// Point is a point ended, with the count, its own headline figure and
	// the ETA: a line to keep (a point begun is Busy, with the ETA).
	Point
	// Busy is a stage or a point begun, worth seeing while it lasts (a
	// swap, a point's measuring): only on a terminal's live line; plain
	// output waits for its end.
	Busy
	// Keep is a line to keep on every output (the preflight, a warning).
	Keep
)

// say writes a progress line to the log and hands it to Options.Progress.
func (r *runner) say(kind ProgressKind, format string, v ...any) {
	text := fmt.Sprintf(format, v...)
	fmt.Fprintln(r.opt.Log, text)
	if r.opt.Progress != nil {
		r.opt.Progress(Progress{Kind: kind, Text: text})
	}
}

// keepWriter hands what is written to it (the preflight's lines) to the
// log and, line by line, to Options.Progress as Keep lines.
type keepWriter struct{ r *runner }

func (w keepWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.r.say(Keep, "%s", l)
	}
	return len(p), nil
}

// headline is a record's figure for the progress line: requests per
// second and the server's CPU per request for a run (the kit: its
// throughput run), a newcomer's median wait in a crowd, the median page
// view of a browse run.
func headline(rec results.Record) string {
	if rec.BenchLimit != "" {
		return pointFigure(rec) + " (measured the bench, not the server: " + rec.BenchLimit + ")"
	}
	return pointFigure(rec)
}

// pointFigure is the point's main figure, to 3 significant digits
// (results.Num: "16.3 req/s", "0.153 ms CPU/req").
func pointFigure(rec results.Record) string {
	cpu := ""
	if rec.ServerCPUMsPerReq > 0 {
		cpu = ", " + results.Num(rec.ServerCPUMsPerReq) + " ms CPU/req"
	}
	if f, ok := ownFigure(rec); ok && rec.NotApplicable == "" {
		return f + cpu
	}
	switch {
	case rec.NotApplicable != "":
		return "n/a"
	case rec.Run != nil:
		return results.Num(rec.Run.RPS) + " req/s" + cpu
	case rec.Kit != nil:
		return results.Num(rec.Kit.Throughput.RPS) + " req/s" + cpu
	case rec.Crowd != nil && rec.Crowd.Wait.Count == 0:
		// No wait to show: a median of none would read as 0 ms.
		return fmt.Sprintf("no newcomer answered, %d of %d gave up", rec.Crowd.GaveUp, len(rec.Crowd.Probes))
	case rec.Crowd != nil:
		return fmt.Sprintf("newcomer wait p50 %s ms, %d of %d gave up", results.Num(rec.Crowd.Wait.P50), rec.Crowd.GaveUp, len(rec.Crowd.Probes))
	case rec.Browse != nil:
		return results.Num(rec.Browse.PageViewsPerSec) + " page views/s"
	}
	return ""
}

// sayPlan shows the machines the run will use (their cost, the driver's
// notes and, for machines it makes, how to remove them if it is cut off)
// before any is made; the log has the whole plan.
func (r *runner) sayPlan(p *cloud.Plan) {
	var ms []string
	for _, m := range p.Machines {
		ms = append(ms, fmt.Sprintf("%s (%s)", m.Name, m.Role))
	}
	r.say(Stage, "machines (%s): %s", p.Driver, strings.Join(ms, ", "))
	if p.HourlyGross != "" {
		r.say(Keep, "cost: %s %s per hour for %d machines", p.HourlyGross, p.Currency, len(p.Machines))
	}
	for _, n := range p.Notes {
		r.say(Keep, "note: %s", n)
	}
	if p.Owned {
		r.say(Keep, "if this run is cut off, remove what it made with: %s", cloud.DownCommand(p.Spec.Run.ID))
	}
}

// deviationsNote is an apply's changes and the profile's deviations on
// the host, each deviation named (the first two; then how many more), so
// the line that counts them says which.
func deviationsNote(changes int, devs []string) string {
	note := results.Plural(changes, "change")
	switch len(devs) {
	case 0:
		return note + ", no deviation"
	case 1, 2:
		return note + "; " + results.Plural(len(devs), "deviation") + ": " + strings.Join(devs, "; ")
	}
	return fmt.Sprintf("%s; %d deviations: %s; %s; and %d more", note, len(devs), devs[0], devs[1], len(devs)-2)
}

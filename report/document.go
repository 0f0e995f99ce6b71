package report

import (
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/compare"
	"github.com/wptest/wptest/results"
	"maps"
	"slices"
	"strings"

	"github.com/wptest/wptest/hostrecord"
	"github.com/wptest/wptest/internal/redact"
)

// Table is a table of a section: a caption, its head and rows of cells
// (FigRows, CPURows: a label, then a cell per column), notes under it.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
	Notes   []string
}

// Section is a part of the report: a kind's section is one of its
// scenarios (Kind.Section). ID is its anchor, Charts the ids of charts
// its kind's Charts draws.
type Section struct {
	ID     string
	Title  string
	Text   []string
	Lines  *Lines // before the tables
	Tables []Table
	Charts []string // chart IDs, drawn after the text
}

// Lines are a list read at a glance (the verdict: a claim a line), each
// line a badge and a few cells under Head, with what explains it folded
// under it (report.html) or listed after the lines (report.md).
type Lines struct {
	Head  []string
	Lines []Line
}

// Line is one line of Lines. Class colours its badge ("holds", "differs",
// "none").
type Line struct {
	Badge, Class string
	Cells        []string
	Fold         []string
}

type document struct {
	Title    string
	Intro    []string
	Sections []Section
	Manifest string // indented JSON
}

// num formats v with about three significant digits, as wptest compare
// prints it, so the report's tables and compare's agree digit for digit.
func num(v float64) string { return compare.Num(v) }

func commas(s string) string { return compare.Commas(s) }

// cell is a Stat as "median (min–max)", or "–" when nothing was measured.
func cell(s Stat) string {
	if s.N == 0 {
		return "–"
	}
	if s.N == 1 || s.Min == s.Max {
		return num(s.Med)
	}
	c := fmt.Sprintf("%s (%s–%s)", num(s.Med), num(s.Min), num(s.Max))
	if marked(s.Spread()) {
		c += " ⚠" // the repetitions disagree: the median alone would say more than the run knows
	}
	return c
}

// SpreadMark is the spread (percent of the median) above which a figure
// is marked in the tables: its repetitions disagree too much for the
// median alone.
const SpreadMark = 20

// marked says whether a spread (percent) is above SpreadMark, by more than
// float arithmetic's error: (1.65 − 1.35) ÷ 1.5 is 20%, not marked.
func marked(spread float64) bool { return spread > SpreadMark*(1+1e-9) }

// Head is a table's head: first, then each column's label.
func (r *Report) Head(first string, profiles []string) []string {
	h := []string{first}
	for _, p := range profiles {
		h = append(h, r.Labels[p])
	}
	return h
}

// row is one metric of one step across the profiles.
func (r *Report) row(name string, profiles []string, sc, step string, f func(results.Record) (float64, bool)) []string {
	return r.rowOf(name, profiles, sc, step, f, false)
}

// rowOf is row, of a figure of the bench's own where bench is set
// (results.Metric.Bench): shown where the point measured the bench too.
func (r *Report) rowOf(name string, profiles []string, sc, step string, f func(results.Record) (float64, bool), bench bool) []string {
	row := []string{name}
	for _, p := range profiles {
		switch st := r.metric(p, sc, step, f, bench); {
		case st.N > 0:
			row = append(row, cell(st))
		case r.notApplicable(p, sc, step) != "":
			row = append(row, "n/a")
		case r.benchLimited(p, sc, step) != "":
			row = append(row, r.benchLimited(p, sc, step))
		default:
			row = append(row, cell(st))
		}
	}
	return row
}

// notApplicable is why a point was not measured (the profile's server does
// not serve the scenario's protocol), or "".
func (r *Report) notApplicable(profile, sc, step string) string {
	for _, rec := range r.Points(profile, sc, step) {
		if rec.NotApplicable != "" {
			return rec.NotApplicable
		}
	}
	return ""
}

// benchLimited is the cell of a point a repetition of which measured the
// bench: "failed" where its requests failed, "bench" where a load
// generator set the pace; "" where none did.
func (r *Report) benchLimited(profile, sc, step string) string {
	for _, rec := range r.Points(profile, sc, step) {
		if why, failures := results.BenchLimit(rec, r.Manifest.Machine); why != "" {
			if failures {
				return "failed"
			}
			return "bench"
		}
	}
	return ""
}

// benchSection lists the points that measured the bench, not the server,
// with why: their figures are left out of every table, chart and claim.
// benchFigures names, for the bench section, the run's figures of the
// bench itself (results.Metric.Bench), which a point that measured the
// bench is shown and judged on: "" where its kinds have none.
func (r *Report) benchFigures() string {
	var labels []string
	for _, sc := range r.Manifest.Scenarios {
		for _, m := range results.MetricsOf(sc.Kind) {
			if m.Bench && !slices.Contains(labels, m.Label) {
				labels = append(labels, m.Label)
			}
		}
	}
	if len(labels) == 0 {
		return ""
	}
	return ", or on the bench itself (" + strings.Join(labels, "; ") + "), which the tables show there too"
}

func (r *Report) benchSection() (Section, bool) {
	bad := results.BenchLimited(r.Records, r.Manifest.Machine)
	if len(bad) == 0 {
		return Section{}, false
	}
	s := Section{Title: "Points that measured the bench, not the server"}
	s.Text = append(s.Text, fmt.Sprintf("%s measured the bench: more than %s%% of their requests failed, or a load generator used more than %s%% of its CPUs, or, with CPUs of its own, waited for them with work ready more than %s%% of the window, or its link carried more than %s%% of the bandwidth the machines block states for it (load_generator_link_mbps)%s. Their figures say nothing about the server: the tables show \"bench\" (\"failed\" where requests failed) for the whole point, the charts leave them out and no claim is judged on them but those on failures or on the server's state (memory, processes)%s. `wptest run` exits 6 for such a run.", results.Plural(len(bad), "point"), results.Num(results.MaxFailedPct), results.Num(results.MaxLoadPct), results.Num(results.MaxLoadWaitPct), results.Num(results.MaxLinkPct), r.linkJudged(), r.benchFigures()))
	t := Table{Head: []string{"point", "why"}}
	for _, b := range bad {
		k, why, _ := strings.Cut(b, ": ")
		t.Rows = append(t.Rows, []string{k, why})
	}
	s.Tables = append(s.Tables, t)
	return s, true
}

// linkJudged says, where the run stated no bandwidth for the load
// generators' links, that no point was judged on them.
func (r *Report) linkJudged() string {
	if mi := r.Manifest.Machine; mi == nil || (mi.LoadGenLinkMbps == 0 && !mi.LoadLocal) {
		return " (none was stated for this run: no point was judged on its link)"
	}
	return ""
}

// notMeasured lists, once each, why points were left out (the "n/a" cells).
func (r *Report) notMeasured() []string {
	var out []string
	for _, rec := range r.Records {
		if rec.NotApplicable != "" && !slices.Contains(out, rec.NotApplicable) {
			out = append(out, rec.NotApplicable)
		}
	}
	return out
}

func (r *Report) document() *document {
	m := r.Manifest
	d := &document{Title: fmt.Sprintf("wptest: %s", m.Experiment)}
	done := len(r.Records)
	status := "complete"
	if !m.Complete {
		status = fmt.Sprintf("INCOMPLETE: %d of %d points measured", done, m.Points)
	}
	d.Intro = append(d.Intro, m.Description,
		fmt.Sprintf("Run %s, %s (%s, %s, profiles interleaved). Medians over the repetitions; (min–max) where they differ, ⚠ where they spread over more than %d%% of the median.", m.ID, status, results.Plural(m.Points, "point"), results.Plural(m.Repetitions, "repetition"), SpreadMark))
	if m.Machine != nil && m.Machine.LoadLocal {
		d.Intro = append(d.Intro, "The load generator ran on the server itself: compare CPU per request (the server's own processes: web server, PHP, database), not requests per second, which the load generator's share of the same CPUs limits.")
	}
	if s, ok := r.claimsSection(); ok {
		d.Sections = append(d.Sections, s) // the report opens with it
	}
	if s, ok := r.inShort(); ok {
		d.Sections = append(d.Sections, s) // then the headline figures and chart
	}
	if s, ok := r.benchSection(); ok {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, r.setup())
	if s, ok := r.baselineSection(); ok {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, r.kindSections(false)...)
	if s, ok := r.costSection(); ok {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, r.kindSections(true)...)
	if s, ok := r.ratioSection(); ok {
		d.Sections = append(d.Sections, s)
	}
	d.Sections = append(d.Sections, r.noiseSection())
	d.Sections = append(d.Sections, r.manifestSection())
	b, _ := json.MarshalIndent(m, "", "  ")
	d.Manifest = string(redact.URLsJSON(b)) // runs recorded before wptest redacted them
	return d
}

func (r *Report) setup() Section {
	m := r.Manifest
	s := Section{ID: "setup", Title: "The setup"}
	if mi := m.Machine; mi != nil {
		s.Text = append(s.Text, fmt.Sprintf("Server %s: %s (%s, %s), kernel %s, %d CPUs (%s), %s MiB RAM. Target: %s.",
			mi.Host, mi.OS, mi.Platform, mi.Arch, mi.Kernel, mi.CPUs, mi.CPUModel, commas(fmt.Sprint(mi.MemKB/1024)), m.Target))
	}
	if len(m.LoadMachines) > 1 {
		s.Text = append(s.Text, loadMachinesText(m.LoadMachines)...)
	} else if lm := m.LoadMachine; lm != nil {
		s.Text = append(s.Text, loadMachineText(*lm))
	} else if mi := m.Machine; mi != nil && mi.LoadHost != "" {
		s.Text = append(s.Text, fmt.Sprintf("Load generator: %s.", mi.LoadHost))
	}
	if f := m.Fixture; f != nil {
		pin := "not pinned"
		if f.Pinned != "" {
			if f.Pinned == f.Root {
				pin = "equals the pinned root"
			} else {
				pin = "DIFFERS from the pinned root " + f.Pinned
			}
		}
		ver := "not verified"
		if f.Verified != "" {
			ver = "verified on the server"
			if f.Verified != f.Root {
				ver = "MISMATCH on the server: " + f.Verified
			}
		}
		s.Text = append(s.Text, fmt.Sprintf("Fixture %s, seed %d: root `%s` (%s; %s, %s fetched over HTTP); pixels `%s`.",
			f.Profile, f.Seed, f.Root, pin, ver, results.Plural(f.HTTPPages, "page"), f.Pixels))
		// What the seeded site differs in from the fixture's pins (core
		// version, archives the lock lacks, plugins not installed): outside
		// the root, so said here.
		if len(f.Deviations) > 0 {
			s.Text = append(s.Text, "Site deviations from the fixture's pins: "+strings.Join(f.Deviations, "; ")+".")
		}
	}
	t := Table{Caption: "Columns", Head: []string{"", "profile", "server", "deviations"}}
	for _, c := range m.Columns {
		prof := profileText(c)
		if !c.Enabled {
			t.Rows = append(t.Rows, []string{c.Label, prof, "left out", c.Reason})
			continue
		}
		hm := m.Hosts[c.ID]
		if hm == nil {
			t.Rows = append(t.Rows, []string{c.Label, prof, "not applied", ""})
			continue
		}
		t.Rows = append(t.Rows, []string{c.Label, prof, serverText(hm), strings.Join(hm.Deviations, "; ")})
	}
	s.Tables = append(s.Tables, t)
	for _, c := range m.Columns {
		if d := m.Drift[c.ID]; len(d) > 0 {
			s.Text = append(s.Text, fmt.Sprintf("%s was measured on a server changed by hand since its apply (run --accept-drift): %s.", c.Label, strings.Join(d, "; ")))
		}
	}
	if na := r.notMeasured(); len(na) > 0 {
		s.Text = append(s.Text, "n/a in the tables: not measured, because the server did not serve the scenario's protocol: "+strings.Join(na, "; ")+".")
	}
	return s
}

// profileText is a column's profile with the variables the experiment
// gave it (the ports are every column's): "tuned-apache,
// max_request_workers = 400".
func profileText(c results.Column) string {
	parts := []string{c.Profile}
	for _, k := range slices.Sorted(maps.Keys(c.Vars)) {
		if k != "http_port" && k != "https_port" {
			parts = append(parts, k+" = "+c.Vars[k])
		}
	}
	return strings.Join(parts, ", ")
}

// serverText is what the profile says the report shows for it (the facts
// its server block names, in order), skipping what the host lacks.
func serverText(hm *hostrecord.Manifest) string {
	if hm.Server == nil {
		return "–"
	}
	var vs []string
	for _, f := range hm.Server.Shows {
		if v := hm.Fact(f); v != "" && v != "not installed" {
			vs = append(vs, shortVersion(v))
		}
	}
	if len(vs) == 0 {
		return "–"
	}
	return strings.Join(vs, "; ")
}

func shortVersion(v string) string {
	if len(v) > 60 {
		return v[:60] + "…"
	}
	return v
}

// Amount is what a step measures: a time window or a number of requests.
func Amount(sc results.Scenario) string {
	if sc.Duration == 0 && sc.Requests > 0 {
		return fmt.Sprintf("%d requests", sc.Requests)
	}
	return sc.Duration.String()
}

func gzipNote(sc results.Scenario) string {
	if sc.Gzip {
		return ", Accept-Encoding: gzip as a browser sends it"
	}
	return ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// costSection is the post's "What each request costs the server".
func (r *Report) costSection() (Section, bool) {
	s := Section{ID: "cost", Title: "What each request costs the server",
		Text: []string{r.CPUScope().Why}}
	t := Table{Caption: "Server CPU per request (ms)", Head: r.Head("point", r.Columns)}
	for _, sc := range r.perRequestScenarios() {
		for _, st := range sc.Steps() {
			t.Rows = append(t.Rows, r.row(sc.Name+" "+st, r.Columns, sc.Name, st, r.ServerCPUPerReq))
		}
	}
	if len(t.Rows) == 0 {
		return s, false
	}
	s.Tables = append(s.Tables, t)
	return s, true
}

// ratioSection: every column against the first, on the medians.
func (r *Report) ratioSection() (Section, bool) {
	if len(r.Columns) < 2 {
		return Section{}, false
	}
	base := r.Columns[0]
	s := Section{ID: "ratios", Title: "Ratios between profiles",
		Text: []string{fmt.Sprintf("Each column's median against that of %s (CPU: how many times its cost; throughput: how many times its rate), and in brackets the lowest and highest of each repetition's own ratio (the columns of a repetition are measured one after another).", r.Labels[base])}}
	others := r.Columns[1:]
	t := Table{Caption: "Against " + r.Labels[base], Head: r.Head("metric", others)}
	add := func(name, sc, st string, f func(results.Record) (float64, bool), inverse bool) {
		b := r.Metric(base, sc, st, f)
		row := []string{name}
		any := false
		for _, p := range others {
			o := r.Metric(p, sc, st, f)
			if b.N == 0 || o.N == 0 || o.Med == 0 || b.Med == 0 {
				row = append(row, "–")
				continue
			}
			any = true
			num, den, who := p, base, ""
			if inverse {
				num, den, who = base, p, r.Labels[base]+" is "
			}
			row = append(row, who+ratioRange(r.Metric(num, sc, st, f).Med/r.Metric(den, sc, st, f).Med, r.repRatios(num, den, sc, st, f)))
		}
		if any {
			t.Rows = append(t.Rows, row)
		}
	}
	for _, sc := range r.perRequestScenarios() {
		for _, st := range sc.Steps() {
			add(fmt.Sprintf("%s %s: CPU per request, %s ÷ column", sc.Name, st, base), sc.Name, st, r.ServerCPUPerReq, true)
			add(fmt.Sprintf("%s %s: web server + PHP CPU per request, %s ÷ column", sc.Name, st, base), sc.Name, st, fig(sc.Kind, "web_php_cpu_ms").Value, true)
			add(fmt.Sprintf("%s %s: requests/s, column ÷ %s", sc.Name, st, base), sc.Name, st, fig(sc.Kind, "rps").Value, false)
		}
	}
	if len(t.Rows) == 0 {
		return s, false
	}
	s.Tables = append(s.Tables, t)
	return s, true
}

// noiseSection says how much the repetitions disagree.
func (r *Report) noiseSection() Section {
	s := Section{ID: "noise", Title: "Repetitions: how much the numbers move",
		Text: []string{fmt.Sprintf("Each point ran %s, profiles interleaved. Spread = (max − min) ÷ median.", results.Plural(r.Manifest.Repetitions, "time"))}}
	t := Table{Caption: "Min / median / max over repetitions", Head: []string{"point", "profile", "metric", "n", "min", "median", "max", "spread"}}
	for _, sc := range r.Manifest.Scenarios {
		var fs []results.Metric
		for _, m := range results.MetricsOf(sc.Kind) {
			if m.Noise {
				fs = append(fs, m)
			}
		}
		for _, st := range sc.Steps() {
			for _, p := range r.ColumnsOf(sc) {
				for _, m := range fs {
					v := r.Metric(p, sc.Name, st, m.Of(r.Manifest.Machine))
					if v.N == 0 {
						continue
					}
					t.Rows = append(t.Rows, []string{sc.Name + " " + st, r.Labels[p], m.Label, fmt.Sprint(v.N), num(v.Min), num(v.Med), num(v.Max), fmt.Sprintf("%.0f%%", v.Spread())})
				}
			}
		}
	}
	s.Tables = append(s.Tables, t)
	return s
}

func (r *Report) manifestSection() Section {
	m := r.Manifest
	s := Section{ID: "manifest", Title: "Run manifest"}
	t := Table{Head: []string{"", ""}}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("run", m.ID)
	add("experiment", m.File+" ("+m.Experiment+")")
	add("experiment sha256", m.ExperimentHash)
	add("plan sha256", m.PlanHash)
	var vars []string
	for _, k := range slices.Sorted(maps.Keys(m.Vars)) {
		vars = append(vars, k+"="+redact.URLs(m.Vars[k]))
	}
	add("variables", strings.Join(vars, " "))
	if f := m.Fixture; f != nil {
		add("fixture", fmt.Sprintf("%s seed %d", f.Profile, f.Seed))
		add("fixture root sha256", f.Root)
		add("fixture verified root", f.Verified)
		add("fixture pixels sha256", f.Pixels)
	}
	add("tool", m.Tool+" ("+m.GoVersion+")")
	add("target", m.Target)
	for _, mc := range m.Machines {
		desc := mc.Driver
		if mc.ServerType != "" {
			desc += " " + mc.ServerType
		}
		if mc.Image != "" || mc.ImageID != 0 {
			desc += fmt.Sprintf(" image %s (%d)", mc.Image, mc.ImageID)
		}
		if mc.Location != "" {
			desc += " in " + mc.Location
		}
		add("machine "+mc.Name+" ("+string(mc.Role)+")", desc)
	}
	add("start", m.Start)
	add("end", m.End)
	for i, se := range m.Sessions {
		kind := "first"
		if se.Resumed {
			kind = "resumed"
		}
		msg := fmt.Sprintf("%s: %s → %s, %s measured", kind, se.Start, se.End, results.Plural(len(se.Measured), "point"))
		if se.Error != "" {
			msg += "; stopped: " + firstLine(se.Error)
		}
		add(fmt.Sprintf("session %d", i+1), msg)
	}
	for _, p := range r.Columns {
		if hm := m.Hosts[p]; hm != nil {
			add("host manifest "+p, fmt.Sprintf("profile hash %s, platform %s, %s, %s", short(hm.ProfileHash), hm.Platform, results.Plural(len(hm.Checks), "check"), results.Plural(len(hm.Deviations), "deviation")))
		}
	}
	s.Tables = append(s.Tables, t)
	s.Text = append(s.Text, "The whole manifest (manifest.json) follows.")
	return s
}

func short(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// repRatios are each repetition's own ratio of column num's figure to
// den's at a point, over the repetitions both have.
func (r *Report) repRatios(num, den, scenario, step string, f func(results.Record) (float64, bool)) []float64 {
	byRep := map[int]float64{}
	for _, rec := range r.Points(den, scenario, step) {
		if v, ok := f(rec); ok && v != 0 {
			byRep[rec.Rep] = v
		}
	}
	var out []float64
	for _, rec := range r.Points(num, scenario, step) {
		if d, ok := byRep[rec.Rep]; ok {
			if v, ok := f(rec); ok {
				out = append(out, v/d)
			}
		}
	}
	return out
}

// ratioRange is a ratio of medians with the range of the repetitions' own
// ratios where they differ ("1.50x (1.35–1.65)"), marked as a figure is
// where they spread over more than SpreadMark.
func ratioRange(med float64, each []float64) string {
	c := num(med) + "x"
	if len(each) < 2 {
		return c
	}
	lo, hi := slices.Min(each), slices.Max(each)
	if hi == lo {
		return c
	}
	c += " (" + num(lo) + "–" + num(hi) + ")"
	if marked(100 * (hi - lo) / med) {
		c += " ⚠"
	}
	return c
}

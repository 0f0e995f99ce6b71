package provision

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/hostrecord"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Event is one progress message: "[host] op: msg".
type Event struct {
	Host string
	Op   string
	Msg  string
}

// Progress receives events as apply and plan go; nil discards them.
type Progress func(Event)

// Report is what offline plan, plan and apply return (and print with -o json).
type Report struct {
	Mode       string      `json:"mode"` // "offline", "plan" or "apply"
	Profile    string      `json:"profile"`
	Hash       string      `json:"hash"`
	Platform   string      `json:"platform"`
	Host       string      `json:"host,omitempty"`
	Variables  []VarReport `json:"variables"`
	Deviations []string    `json:"deviations"`
	// DeviationRules are the facts whose output decides a deviation on
	// the host (Fact.ExpectRegex): listed in every plan, applied after
	// the facts are read.
	DeviationRules []*Fact        `json:"deviation_rules,omitempty"`
	Blocked        []string       `json:"blocked,omitempty"`
	Ops            []*OpReport    `json:"ops"`
	Notified       []Notification `json:"notified,omitempty"`
	Checks         []*CheckReport `json:"checks"`
	Facts          []*FactReport  `json:"facts,omitempty"`
	Site           *Site          `json:"site,omitempty"`
	Groups         []ProcessGroup `json:"process_groups,omitempty"`
	// Teardown: what the host runs when a run's machines go down and it
	// stays (teardown blocks).
	Teardown []string `json:"teardown,omitempty"`
	Server   *Server  `json:"server,omitempty"`
	// Retired are the services of earlier profiles this apply made sure
	// are stopped (Rendered.Retire).
	Retired []Service `json:"retired_services,omitempty"`
	// Written and Watch are what the host manifest's drift record keeps:
	// the files the profile's ops write, and those its watch blocks name.
	Written []Written `json:"written,omitempty"`
	Watch   []Watch   `json:"watch,omitempty"`
	Changes int       `json:"changes"`
	Error   string    `json:"error,omitempty"`
	ops     map[string]*OpReport
}

// VarReport is one variable's final value (sensitive ones hidden): the
// host manifest's type, which records it as the report says it.
type VarReport = hostrecord.Variable

// OpReport is one op: its rendered spec and, with a host, what Check found.
type OpReport struct {
	ID        string         `json:"id"`
	Kind      string         `json:"kind"`
	DependsOn []string       `json:"depends_on,omitempty"`
	Notify    []string       `json:"notify,omitempty"`
	Spec      map[string]any `json:"spec"`
	Change    *Change        `json:"change,omitempty"`
	Applied   bool           `json:"applied,omitempty"`
	Error     string         `json:"error,omitempty"`
}

// Notification is a reload or restart run at the end of apply.
type Notification struct {
	Service string   `json:"service"`
	Action  string   `json:"action"`
	By      []string `json:"by"`
	Error   string   `json:"error,omitempty"`
}

// CheckReport is one check: its spec (HTTPCheck's or CommandCheck's
// fields, by their JSON names, as output shows them) and, after apply,
// whether it passed.
type CheckReport struct {
	ID      string         `json:"id"`
	HTTP    map[string]any `json:"http,omitempty"`
	Command map[string]any `json:"command,omitempty"`
	Timeout string         `json:"timeout"`
	Ran     bool           `json:"ran"`
	Passed  bool           `json:"passed"`
	Error   string         `json:"error,omitempty"`
}

// FactReport is one fact's output after apply.
type FactReport struct {
	ID     string `json:"id"`
	Run    string `json:"run"`
	Output string `json:"output"`
	Error  string `json:"error,omitempty"`
}

// report is the report every mode starts from: everything the profile
// says, as output shows it. Each field that came from a sensitive value
// (fieldMarks) shows as its marks say; every string also goes through
// r.redact (the sensitive variables' values, a URL's userinfo). The site,
// process groups, teardown and server are shown as they are: they refuse
// sensitive values (the host manifest records them).
func (r *Rendered) report(mode, hostName string) *Report {
	rep := &Report{Mode: mode, Profile: r.Profile.Name, Hash: r.Profile.Hash, Platform: r.Platform, Host: hostName,
		Deviations: r.redactAll(r.Deviations), Blocked: r.redactAll(r.Blocked), ops: map[string]*OpReport{},
		Site: r.Site, Groups: r.Groups, Teardown: r.Teardown, Server: r.Server, Retired: r.retired,
		Written: r.Written(), Watch: r.Watch}
	for _, f := range r.Facts {
		if f.ExpectRegex != "" {
			rep.DeviationRules = append(rep.DeviationRules, f.shown(r.redact))
		}
	}
	for _, v := range r.Profile.Variables {
		vr := VarReport{Name: v.Name, Sensitive: v.Sensitive, Value: "(sensitive)"}
		if !v.Sensitive {
			vr.Value = ctyToGo(v.On(r.Platform))
			if s, ok := vr.Value.(string); ok {
				vr.Value = r.redact(s) // a URL's userinfo, a secret spliced in
			}
		}
		rep.Variables = append(rep.Variables, vr)
	}
	for _, op := range r.Ops {
		s := op.(specer)
		b := s.base()
		spec := b.marks.showFields(s.spec(), r.redact) // sensitive values never reach a plan
		or := &OpReport{ID: b.id, Kind: b.kind, DependsOn: b.dependsOn, Spec: spec}
		for _, n := range r.notices[b.id] {
			or.Notify = append(or.Notify, n.action+" "+n.service)
		}
		rep.Ops = append(rep.Ops, or)
		rep.ops[b.id] = or
	}
	for _, c := range r.Checks {
		rep.Checks = append(rep.Checks, c.report(r.redact))
	}
	return rep
}

// redactAll is r.redact of each of ss.
func (r *Rendered) redactAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = r.redact(s)
	}
	return out
}

// text hides in s, text about a block whose marks are fm (an op's
// change or error, a check's failure, a fact's output), the secrets of
// its marked parts and the backstop's.
func (r *Rendered) text(fm *fieldMarks, s string) string { return textFor(s, fm.secrets(), r.redact) }

// opText is r.text for op.
func (r *Rendered) opText(op Op, s string) string {
	if sp, ok := op.(specer); ok {
		return r.text(sp.base().marks, s)
	}
	return r.redact(s)
}

// shownChange is c as output shows it, details hidden as op's text.
func (r *Rendered) shownChange(op Op, c Change) *Change {
	sc := c
	sc.Details = nil
	for _, d := range c.Details {
		sc.Details = append(sc.Details, r.opText(op, d))
	}
	return &sc
}

// shownErr is an error as output shows it: its text with the secrets
// hidden, while errors.Is and errors.As still see the error it wraps.
type shownErr struct {
	msg string
	err error
}

func (e *shownErr) Error() string { return e.msg }
func (e *shownErr) Unwrap() error { return e.err }

// opErr is err as output shows it, its text hidden as op's.
func (r *Rendered) opErr(op Op, err error) error {
	return &shownErr{msg: r.opText(op, err.Error()), err: err}
}

func ctyToGo(v cty.Value) any {
	if v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		return v.AsString()
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return v.GoString()
	}
	return jsonRaw(b)
}

type jsonRaw []byte

func (j jsonRaw) MarshalJSON() ([]byte, error) { return j, nil }
func (j jsonRaw) String() string               { return string(j) }

// Offline renders the ops without a host: full specs (file bodies
// included), no facts.
func (r *Rendered) Offline() *Report { return r.report("offline", "") }

// Plan runs Check on every op against h and changes nothing.
func (r *Rendered) Plan(ctx context.Context, h host.Host, progress Progress) (*Report, error) {
	rep := r.report("plan", h.Name())
	emit := emitter(h, progress)
	ahead := newAheadHost(h)
	for i, op := range r.Ops {
		or := rep.ops[op.ID()]
		ahead.readFrom(ctx, r.Ops[i:])
		c, err := op.Check(ctx, ahead)
		if err != nil {
			err = r.opErr(op, err)
			or.Error = err.Error()
			err = exitcode.With(exitcode.Provision, fmt.Errorf("check %s on %s: %w", op.ID(), h.Name(), err))
			rep.Error = err.Error()
			return rep, err
		}
		or.Change = r.shownChange(op, c)
		if c.Needed {
			rep.Changes++
			emit(op.ID(), "would "+c.Action+detailSuffix(*or.Change))
		}
	}
	return rep, nil
}

func detailSuffix(c Change) string {
	if len(c.Details) == 0 {
		return ""
	}
	return " (" + strings.Join(c.Details, "; ") + ")"
}

func emitter(h host.Host, p Progress) func(op, msg string) {
	return func(op, msg string) {
		if p != nil {
			p(Event{Host: h.Name(), Op: op, Msg: msg})
		}
	}
}

// Apply checks and applies every op in order, then runs the notified
// reloads and restarts once each, then the checks, then reads the facts.
// It stops at the first failing op (exit code 4), naming host and op; the
// ops are idempotent, so running Apply again continues from there.
func (r *Rendered) Apply(ctx context.Context, h host.Host, progress Progress) (*Report, error) {
	rep := r.report("apply", h.Name())
	if len(r.Blocked) > 0 {
		err := exitcode.With(exitcode.Config, fmt.Errorf("profile %s cannot be applied on %s: %s", r.Profile.Name, h.Name(), strings.Join(r.Blocked, "; ")))
		rep.Error = err.Error()
		return rep, err
	}
	emit := emitter(h, progress)
	fail := func(f *opFailure) (*Report, error) {
		if f.or != nil {
			f.or.Error = f.err.Error()
		}
		err := exitcode.With(exitcode.Provision, fmt.Errorf("%s on %s: %w", f.what, h.Name(), f.err))
		rep.Error = err.Error()
		return rep, err
	}
	changed, touched, f := r.applyOps(ctx, h, rep, emit)
	if f != nil {
		return fail(f)
	}
	// The server's services as this host runs them (its init is known now).
	r.fillServer()
	if f := r.notify(ctx, h, rep, r.pendingNotices(changed, touched), emit); f != nil {
		return fail(f)
	}
	if failed := r.runChecks(ctx, h, rep, emit); len(failed) > 0 {
		err := exitcode.With(exitcode.Provision, fmt.Errorf("checks failed on %s:\n  %s", h.Name(), strings.Join(failed, "\n  ")))
		rep.Error = err.Error()
		return rep, err
	}
	r.readFacts(ctx, h, rep)
	emit("apply", fmt.Sprintf("done: %d changed, %d checks passed", rep.Changes, len(r.Checks)))
	return rep, nil
}

// opFailure is a step of Apply that failed: the op's report (if any), what
// was being done and the error.
type opFailure struct {
	or   *OpReport
	what string
	err  error
}

// applyOps checks and applies each op in order, until one fails. It
// returns the ops it changed and touched: where in the apply a service was
// started or stopped. A change before that is already in effect; one after
// it (a PHP extension installed after php-fpm started) still needs the
// restart.
func (r *Rendered) applyOps(ctx context.Context, h host.Host, rep *Report, emit func(op, msg string)) (changed map[string]bool, touched map[string]int, f *opFailure) {
	changed, touched = map[string]bool{}, map[string]int{}
	ahead := newAheadHost(h) // checks read ahead in batches (prefetch.go)
	for i, op := range r.Ops {
		id := op.ID()
		or := rep.ops[id]
		emit(id, "checking")
		ahead.readFrom(ctx, r.Ops[i:])
		c, err := op.Check(ctx, ahead)
		if err != nil {
			return nil, nil, &opFailure{or, "check " + id, r.opErr(op, err)}
		}
		or.Change = r.shownChange(op, c)
		if !c.Needed {
			emit(id, "ok")
			continue
		}
		emit(id, c.Action+detailSuffix(*or.Change))
		ahead.drop() // the host changes: what was read ahead may not hold
		if err := op.Apply(ctx, h, c); err != nil {
			return nil, nil, &opFailure{or, "apply " + id, r.opErr(op, err)}
		}
		or.Applied = true
		rep.Changes++
		changed[id] = true
		if _, ok := op.(*ServiceOp); ok {
			touched[id] = i
		}
	}
	return changed, touched, nil
}

// pendingNotice is a reload or restart a service is due, and the ops whose
// changes asked for it.
type pendingNotice struct {
	action string
	by     []string
}

// pendingNotices are the notifications the changed ops ask for: once per
// service, restart wins over reload, in op order; none for a change made
// before the service was (re)started in this apply.
func (r *Rendered) pendingNotices(changed map[string]bool, touched map[string]int) map[string]*pendingNotice {
	pending := map[string]*pendingNotice{}
	for i, op := range r.Ops {
		if !changed[op.ID()] {
			continue
		}
		for _, n := range r.notices[op.ID()] {
			if at, ok := touched[n.service]; ok && i < at {
				continue
			}
			p := pending[n.service]
			if p == nil {
				p = &pendingNotice{action: n.action}
				pending[n.service] = p
			}
			if n.action == "restart" {
				p.action = "restart"
			}
			if !slices.Contains(p.by, op.ID()) {
				p.by = append(p.by, op.ID())
			}
		}
	}
	return pending
}

// notify reloads or restarts each running service that is due, in op
// order, until one fails.
func (r *Rendered) notify(ctx context.Context, h host.Host, rep *Report, pending map[string]*pendingNotice, emit func(op, msg string)) *opFailure {
	for _, op := range r.Ops {
		s, ok := op.(*ServiceOp)
		p := pending[op.ID()]
		if !ok || p == nil || s.State != "running" {
			continue
		}
		emit(s.id, p.action+" (changed: "+strings.Join(p.by, ", ")+")")
		n := Notification{Service: s.id, Action: p.action, By: p.by}
		if err := s.Notify(ctx, h, p.action); err != nil {
			err = r.opErr(s, err)
			n.Error = err.Error()
			rep.Notified = append(rep.Notified, n)
			return &opFailure{rep.ops[s.id], p.action + " " + s.id, err}
		}
		rep.Notified = append(rep.Notified, n)
	}
	return nil
}

// runChecks runs every check (each waits for its answer) and returns the
// failures, "id: error".
func (r *Rendered) runChecks(ctx context.Context, h host.Host, rep *Report, emit func(op, msg string)) []string {
	var failed []string
	for i, c := range r.Checks {
		cr := rep.Checks[i]
		emit(c.ID, "checking")
		err := c.Wait(ctx, h)
		cr.Ran = true
		if err != nil {
			msg := r.text(c.marks, err.Error())
			cr.Error = msg
			failed = append(failed, c.ID+": "+msg)
			emit(c.ID, "FAILED: "+msg)
			continue
		}
		cr.Passed = true
		emit(c.ID, "passed")
	}
	return failed
}

// readFacts runs each fact's command and records its output (stdout, else
// stderr) and error. They run in one batch (a command each, read-only);
// if the batch fails, one by one.
func (r *Rendered) readFacts(ctx context.Context, h host.Host, rep *Report) {
	cmds := make([]host.Cmd, len(r.Facts))
	for i, f := range r.Facts {
		cmds[i] = host.Cmd{Script: f.Run, Label: f.ID}
	}
	var answers []host.Answer
	if len(cmds) > 1 {
		answers, _ = host.RunBatch(ctx, h, "facts of the profile", readAheadTimeout, cmds)
	}
	for i, f := range r.Facts {
		fr := &FactReport{ID: f.ID, Run: r.redact(f.marks.showString("run", f.Run))}
		var res host.Result
		var err error
		if answers != nil {
			res, err = answers[i].Result, answers[i].Err
		} else {
			res, err = h.Run(ctx, cmds[i])
		}
		out := strings.TrimSpace(string(res.Stdout))
		if out == "" {
			out = strings.TrimSpace(string(res.Stderr))
		}
		fr.Output = r.text(f.marks, out)
		if err != nil {
			fr.Error = r.text(f.marks, err.Error())
		}
		if d := f.deviation(out, func(s string) string { return r.text(f.marks, s) }); d != "" {
			rep.Deviations = append(rep.Deviations, r.redact(d))
		}
		rep.Facts = append(rep.Facts, fr)
	}
}

// WriteText prints the report for people: offline plans show every op's
// spec and full file bodies; live plans and applies show what changed.
func (rep *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	p := ew.printf
	rep.writeHeader(p)
	p("ops:\n")
	for i, o := range rep.Ops {
		rep.writeOp(p, i, o)
	}
	for _, n := range rep.Notified {
		st := "done"
		if n.Error != "" {
			st = "FAILED: " + n.Error
		}
		p("notified: %s %s (by %s): %s\n", n.Action, n.Service, strings.Join(n.By, ", "), st)
	}
	rep.writeChecks(p)
	for _, f := range rep.Facts {
		p("fact %s: %s\n", f.ID, f.Output)
	}
	rep.writeServer(p)
	for _, s := range rep.Retired {
		p("retired: %s (%s)\n", s.Name, s.Label)
	}
	rep.writeCounts(p)
	return ew.err
}

// writeCounts prints the last line: what changed (or would) and what did
// not, a plan's as Terraform ends one ("Plan: 3 to add, 1 to change, 0 to
// remove, 2 to run, 12 unchanged."); after a failure also which op failed
// and which ops did not run, so stdout says what was done and what was
// not, as the error does.
func (rep *Report) writeCounts(p printer) {
	if rep.Mode == "offline" {
		t := tally{}
		for _, o := range rep.Ops {
			t[offlineEffect(o)]++
		}
		p("Plan: %s (offline: what each op does on a fresh host; --target reads what a host needs).\n", t)
		return
	}
	unchanged, failed := 0, 0
	var notRun []int
	t := tally{}
	for i, o := range rep.Ops {
		switch {
		case o.Error != "":
			failed = i + 1
		case o.Change == nil:
			notRun = append(notRun, i+1)
		case !o.Change.Needed:
			unchanged++
		default:
			t[effectOf(o.Change.Action)]++
		}
	}
	counts := fmt.Sprintf("%d changed, %d unchanged", rep.Changes, unchanged)
	if rep.Mode == "plan" {
		counts = fmt.Sprintf("%s, %d unchanged", t, unchanged)
	}
	switch {
	case failed > 0:
		p("%s FAILED at op %d (%s): %s, 1 failed, %d not run%s\n", rep.Mode, failed, rep.Ops[failed-1].ID, counts, len(notRun), opRange(notRun))
	case rep.Error != "":
		first, _, _ := strings.Cut(rep.Error, "\n")
		p("%s FAILED: %s; %s, %d not run%s\n", rep.Mode, first, counts, len(notRun), opRange(notRun))
	case rep.Mode == "plan":
		p("Plan: %s.\n", counts)
	default:
		p("%s\n", counts)
	}
}

// An op's effect, as a plan's summary counts it.
const (
	toAdd    = "to add"
	toChange = "to change"
	toRemove = "to remove"
	toRun    = "to run"
)

// tally counts ops by effect; it prints as "3 to add, 1 to change, 0 to
// remove, 2 to run".
type tally map[string]int

func (t tally) String() string {
	return fmt.Sprintf("%d %s, %d %s, %d %s, %d %s", t[toAdd], toAdd, t[toChange], toChange, t[toRemove], toRemove, t[toRun], toRun)
}

// effectOf is what a change found on a host does: a thing made, one
// removed, a command run, or one changed (updated, replaced, started...).
func effectOf(action string) string {
	switch action {
	case "create", "install":
		return toAdd
	case "remove":
		return toRemove
	case "run":
		return toRun
	}
	return toChange
}

// offlineEffect is what op o does on a fresh host, from its kind and spec:
// files, directories, links, users and packages are added (a package
// declared absent removed), a service started or stopped, a command run.
func offlineEffect(o *OpReport) string {
	switch o.Kind {
	case "command":
		return toRun
	case "service":
		return toChange
	case "package":
		if o.Spec["state"] == "absent" {
			return toRemove
		}
	}
	return toAdd
}

// opRange names ops by number: " (ops 15-38)", " (ops 3, 5)", " (op 7)";
// "" for none.
func opRange(ns []int) string {
	switch {
	case len(ns) == 0:
		return ""
	case len(ns) == 1:
		return fmt.Sprintf(" (op %d)", ns[0])
	case ns[len(ns)-1]-ns[0] == len(ns)-1:
		return fmt.Sprintf(" (ops %d-%d)", ns[0], ns[len(ns)-1])
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return " (ops " + strings.Join(parts, ", ") + ")"
}

// printer is errWriter.printf: WriteText's parts print through it.
type printer func(format string, args ...any)

// writeHeader prints the profile, host and mode line, the variables, the
// platform's deviations and what blocks the profile.
func (rep *Report) writeHeader(p printer) {
	p("profile %s (%s) on %s", rep.Profile, rep.Hash, rep.Platform)
	if rep.Host != "" {
		p(", host %s", rep.Host)
	}
	p(" [%s]\n", rep.Mode)
	if len(rep.Variables) > 0 {
		p("variables:\n")
		for _, v := range rep.Variables {
			p("  %s = %v\n", v.Name, fmtVal(v.Value))
		}
	}
	for _, d := range rep.Deviations {
		p("deviation: %s\n", d)
	}
	if rep.Mode != "apply" {
		for _, f := range rep.DeviationRules {
			p("deviation unless %s matches %s: %s\n", f.ID, f.ExpectRegex, f.DeviationText())
		}
	}
	for _, b := range rep.Blocked {
		p("BLOCKED: %s\n", b)
	}
}

// writeOp prints op i: its change or failure, and offline its spec.
func (rep *Report) writeOp(p printer, i int, o *OpReport) {
	mark := " "
	status := ""
	if o.Change != nil {
		if o.Change.Needed {
			mark = "~"
			status = ": " + o.Change.Action + detailSuffix(*o.Change)
			if rep.Mode == "apply" && !o.Applied {
				status += " (not applied)"
			}
		} else {
			status = ": ok"
		}
	}
	if o.Error != "" {
		mark, status = "!", ": FAILED: "+o.Error
	} else if o.Change == nil && rep.Mode != "offline" {
		status = ": not run"
	}
	p("%s %2d. %s%s\n", mark, i+1, o.ID, status)
	if rep.Mode == "offline" {
		writeOpSpec(p, o)
	}
}

// maxShownContent is the largest file content a plan shows line by line:
// four times the largest text a profile writes (the compression probes'
// 15 KB), so a script or a configuration is always shown.
const maxShownContent = 64 << 10

// writeOpSpec prints an op's dependencies, notices, spec and content.
func writeOpSpec(p printer, o *OpReport) {
	if len(o.DependsOn) > 0 {
		p("       depends_on: %s\n", strings.Join(o.DependsOn, ", "))
	}
	if len(o.Notify) > 0 {
		p("       notify: %s\n", strings.Join(o.Notify, ", "))
	}
	keys := make([]string, 0, len(o.Spec))
	for k := range o.Spec {
		if k != "content" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		writeSpecField(p, k, o.Spec[k])
	}
	if c, ok := o.Spec["content"].(string); ok && len(c) > maxShownContent {
		// A download-sized file (the site's 1 MB file) is its size and
		// sha256 above: its lines would bury the plan. -o json has them.
		p("       --- content: %d bytes, not shown (its sha256 is above; plan -o json has it) ---\n", len(c))
	} else if ok {
		p("       --- content ---\n")
		for _, line := range strings.SplitAfter(c, "\n") {
			if line != "" {
				p("       | %s", strings.TrimSuffix(line, "\n")+"\n")
			}
		}
		if c != "" && !strings.HasSuffix(c, "\n") {
			p("       (no newline at end)\n")
		}
	}
}

// writeSpecField prints one field of an op's spec; a script (a string of
// several lines) as its lines, indented under the field's name, as the
// content of a file is, not as one quoted line of escapes.
func writeSpecField(p printer, k string, v any) {
	s, ok := v.(string)
	if !ok || !strings.Contains(strings.TrimRight(s, "\n"), "\n") {
		p("       %s: %v\n", k, fmtVal(v))
		return
	}
	p("       %s: |\n", k)
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		p("       | %s\n", line)
	}
}

// writeChecks prints each check, what it does and, if it ran, its result.
func (rep *Report) writeChecks(p printer) {
	p("checks:\n")
	for _, c := range rep.Checks {
		st := ""
		switch {
		case c.Ran && c.Passed:
			st = ": passed"
		case c.Ran:
			st = ": FAILED: " + c.Error
		case rep.Mode == "apply":
			st = ": not run"
		}
		what := ""
		if c.HTTP != nil {
			what = fmt.Sprintf("%v %v (%v) expect %v", c.HTTP["method"], c.HTTP["url"], c.HTTP["protocol"], c.HTTP["expect_status"])
		} else {
			what = fmt.Sprintf("run %v", c.Command["run"])
		}
		p("  %s [%s]%s\n", c.ID, what, st)
	}
}

// writeServer prints what the profile says of itself: its site, process
// groups and server.
func (rep *Report) writeServer(p printer) {
	if s := rep.Site; s != nil {
		p("site: docroot %s, owner %s:%s, php %s, rewrite %s", s.Docroot, s.Owner, s.Group, s.PHP, s.Rewrite)
		if s.Database != "" {
			p(", database credentials in %s", s.Database)
		}
		for _, c := range s.Refresh {
			p(", after seeding: %s", c)
		}
		p("\n")
	}
	for _, g := range rep.Groups {
		p("process group %s: exe %s", g.Name, strings.Join(g.Exe, " "))
		if len(g.Users) > 0 {
			p(", users %s", strings.Join(g.Users, " "))
		}
		p("\n")
	}
	for _, c := range rep.Teardown {
		p("teardown (wptest down, on a machine that stays): %s\n", c)
	}
	for _, w := range rep.Watch {
		p("watch %s (drift since the apply): %s\n", w.Name, strings.Join(w.Paths, " "))
	}
	sv := rep.Server
	if sv == nil {
		return
	}
	var names []string
	for _, s := range sv.Services {
		names = append(names, s.Name)
	}
	p("server: services %s", strings.Join(names, " "))
	if sv.Status != nil {
		p(", status page %s (%s)", sv.Status.URL, sv.Status.Format)
	}
	if sv.WorkerLimit > 0 {
		p(", worker limit %d", sv.WorkerLimit)
	}
	if len(sv.Protocols) > 0 {
		p(", protocols %s", strings.Join(sv.Protocols, " "))
	}
	if len(sv.Shows) > 0 {
		p(", report shows %s", strings.Join(sv.Shows, " "))
	}
	p("\n")
}

func fmtVal(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

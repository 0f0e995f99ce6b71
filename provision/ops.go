package provision

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/host"
)

// Op is one step of a profile (pyinfra's model): Check reads facts from the
// host and says what would change, changing nothing; Apply does exactly
// that change.
type Op interface {
	ID() string
	Check(ctx context.Context, h host.Host) (Change, error)
	Apply(ctx context.Context, h host.Host, c Change) error
}

// Change is what Check found: whether anything must be done, a one-word
// action and human-readable details (what differs).
type Change struct {
	Needed  bool     `json:"needed"`
	Action  string   `json:"action"`
	Details []string `json:"details,omitempty"`
	state   any
}

func noChange() Change { return Change{Action: "none"} }

// opBase holds what every op has.
type opBase struct {
	id        string
	kind      string
	dependsOn []string
	notify    []string // service op ids
	index     int      // position in the profile, for stable ordering
	// marks say which of its attributes came from a sensitive value.
	marks *fieldMarks
}

func (b *opBase) ID() string       { return b.id }
func (b *opBase) base() *opBase    { return b }
func (b *opBase) Kind() string     { return b.kind }
func (b *opBase) Deps() []string   { return b.dependsOn }
func (b *opBase) Notify() []string { return b.notify }

// spec is the op's rendered attributes, for plans (offline and live).
type specer interface {
	base() *opBase
	spec() map[string]any
}

// exitCode separates "ran and exited non-zero" from "could not run".
func exitCode(res host.Result, err error) (int, error) {
	var ee *host.ExitError
	if errors.As(err, &ee) {
		return ee.Code, nil
	}
	if err != nil {
		return -1, err
	}
	return res.Exit, nil
}

func run(ctx context.Context, h host.Host, label, script string) (host.Result, error) {
	return h.Run(ctx, host.Cmd{Script: script, Label: label})
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// ---- file ----

// FileOp writes a file's bytes, mode and owner.
type FileOp struct {
	opBase
	Path  string
	Body  []byte
	Mode  fs.FileMode
	Owner string
	Group string
	From  string // "template templates/x", "content" or "source templates/y"
}

type fileFacts struct {
	write, chmod, chown bool
	as                  string // who does it (actor)
}

func (f *FileOp) sum() string {
	s := sha256.Sum256(f.Body)
	return hex.EncodeToString(s[:])
}

func (f *FileOp) spec() map[string]any {
	m := map[string]any{"path": f.Path, "mode": fmt.Sprintf("%04o", f.Mode), "from": f.From,
		"sha256": f.sum(), "size": len(f.Body), "content": string(f.Body)}
	if f.Owner != "" {
		m["owner"] = f.Owner
	}
	if f.Group != "" {
		m["group"] = f.Group
	}
	return m
}

// statScript prints who holds p's directories (host.HolderScript) on its
// first line, then "absent", "link", "dir", "other" or "file MODE OWNER
// GROUP".
func statScript(p string) string {
	return host.HolderPrelude() + fmt.Sprintf(`p=%s; wptest_holder "$p"; if [ -L "$p" ]; then echo link; elif [ -d "$p" ]; then echo dir %s; elif [ -f "$p" ]; then echo file %s; elif [ -e "$p" ]; then echo other; else echo absent; fi`,
		host.Quote(p), `$(stat -c '%a %U %G' "$p")`, `$(stat -c '%a %U %G' "$p")`)
}

// actor is who does an op's work on path, given who holds its directories
// (holder, from statScript) and the owner the op gives it: the connecting
// user ("") where only root can change them; where a user holds them (the
// site user's home and docroot), that user, and only for what that user is
// to own (owner "": no owner required, as for a link): root never writes,
// chmods or chowns where another user can plant a link.
func actor(p, holder, owner string) (string, error) {
	switch {
	case holder == "root":
		return "", nil
	case strings.HasPrefix(holder, "unsafe: "):
		return "", fmt.Errorf("%s: refused: %s (root does not write where another user can plant a link)", p, strings.TrimPrefix(holder, "unsafe: "))
	case holder == "" || strings.ContainsAny(holder, " \t"):
		return "", fmt.Errorf("%s: unexpected holder %q", p, holder)
	case owner != "-" && owner != holder:
		if owner == "" {
			owner = "root"
		}
		return "", fmt.Errorf("%s: refused: its directory is %s's, so it is written as %s, who cannot make it %s's (give it owner = %q, or put it elsewhere)", p, holder, holder, owner, holder)
	}
	return holder, nil
}

// asDetail says in a change's details that the op runs as a user.
func asDetail(as string) []string {
	if as == "" {
		return nil
	}
	return []string{"as " + as + " (the directory is " + as + "'s)"}
}

// runAs runs script as user as (host.RunAs; "" the connecting user).
func runAs(ctx context.Context, h host.Host, label, as, script string) (host.Result, error) {
	if as == "" {
		return run(ctx, h, label, script)
	}
	return host.RunAs(ctx, h, as, "", host.Cmd{Script: script, Label: label + " (as " + as + ")"})
}

type statInfo struct {
	kind         string
	mode         fs.FileMode
	owner, group string
}

func parseStat(line string) (statInfo, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return statInfo{}, fmt.Errorf("empty stat output")
	}
	si := statInfo{kind: f[0]}
	if (si.kind == "file" || si.kind == "dir") && len(f) == 4 {
		m, err := strconv.ParseUint(f[1], 8, 32)
		if err != nil {
			return si, fmt.Errorf("stat mode %q: %v", f[1], err)
		}
		si.mode, si.owner, si.group = fs.FileMode(m), f[2], f[3]
	}
	return si, nil
}

func (f *FileOp) Check(ctx context.Context, h host.Host) (Change, error) {
	res, err := run(ctx, h, f.id, statScript(f.Path)+`; if [ -f "$p" ] && [ ! -L "$p" ]; then sha256sum < "$p"; fi`)
	if err != nil {
		return Change{}, fmt.Errorf("read %s: %w", f.Path, err)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if len(lines) < 2 {
		return Change{}, fmt.Errorf("read %s: unexpected output %q", f.Path, res.Stdout)
	}
	as, err := actor(f.Path, lines[0], f.Owner)
	if err != nil {
		return Change{}, err
	}
	lines = lines[1:]
	si, err := parseStat(lines[0])
	if err != nil {
		return Change{}, err
	}
	want := f.sum()
	// A body computed from a secret: its digest and size are too (a
	// digest of a short secret is the secret).
	secret := f.marks.marked("content")
	switch si.kind {
	case "absent", "link":
		what := "create"
		if si.kind == "link" {
			what = "replace symlink"
		}
		d := fmt.Sprintf("%s: %d bytes, sha256 %s, mode %04o", what, len(f.Body), short(want), f.Mode)
		if secret {
			d = fmt.Sprintf("%s: %s, mode %04o", what, Redacted, f.Mode)
		}
		return Change{Needed: true, Action: "create", state: fileFacts{write: true, as: as},
			Details: append([]string{d}, asDetail(as)...)}, nil
	case "file":
	default:
		return Change{}, fmt.Errorf("%s exists and is not a regular file (%s)", f.Path, si.kind)
	}
	ff := fileFacts{as: as}
	var details []string
	have := ""
	if len(lines) > 1 {
		have, _, _ = strings.Cut(lines[1], " ")
	}
	if have != want {
		ff.write = true
		if secret {
			details = append(details, "content: changes, "+Redacted)
		} else {
			details = append(details, fmt.Sprintf("content: sha256 %s -> %s (%d bytes)", short(have), short(want), len(f.Body)))
		}
	}
	if si.mode != f.Mode {
		ff.chmod = true
		details = append(details, fmt.Sprintf("mode: %04o -> %04o", si.mode, f.Mode))
	}
	if f.Owner != "" && si.owner != f.Owner || f.Group != "" && si.group != f.Group {
		ff.chown = true
		details = append(details, fmt.Sprintf("owner: %s:%s -> %s:%s", si.owner, si.group, or(f.Owner, si.owner), or(f.Group, si.group)))
	}
	if len(details) == 0 {
		return noChange(), nil
	}
	return Change{Needed: true, Action: "update", Details: append(details, asDetail(as)...), state: ff}, nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func chownSpec(owner, group string) string {
	if group == "" {
		return owner
	}
	return owner + ":" + group
}

// Apply writes the file (a temp file renamed over it: a link there is
// replaced, never followed) or changes its mode and owner, as the actor
// Check found: in a directory a user holds, as that user.
func (f *FileOp) Apply(ctx context.Context, h host.Host, c Change) error {
	ff, _ := c.state.(fileFacts)
	if ff.write {
		if _, err := runAs(ctx, h, f.id, ff.as, "mkdir -p "+host.Quote(path.Dir(f.Path))); err != nil {
			return err
		}
		if ff.as != "" {
			return host.PutAs(ctx, h, ff.as, f.Group, f.Path, bytes.NewReader(f.Body), f.Mode)
		}
		return h.Put(ctx, f.Path, bytes.NewReader(f.Body), host.PutOptions{Mode: f.Mode, Owner: f.Owner, Group: f.Group})
	}
	var script []string
	if ff.chmod {
		script = append(script, fmt.Sprintf("chmod %04o %s", f.Mode, host.Quote(f.Path)))
	}
	if ff.chown {
		script = append(script, fmt.Sprintf("chown -h %s %s", host.Quote(chownSpec(f.Owner, f.Group)), host.Quote(f.Path)))
	}
	_, err := runAs(ctx, h, f.id, ff.as, strings.Join(script, " && "))
	return err
}

// ---- directory ----

// DirOp makes a directory with a mode and owner.
type DirOp struct {
	opBase
	Path         string
	Mode         fs.FileMode
	Owner, Group string
}

func (d *DirOp) spec() map[string]any {
	m := map[string]any{"path": d.Path, "mode": fmt.Sprintf("%04o", d.Mode)}
	if d.Owner != "" {
		m["owner"] = d.Owner
	}
	if d.Group != "" {
		m["group"] = d.Group
	}
	return m
}

func (d *DirOp) Check(ctx context.Context, h host.Host) (Change, error) {
	res, err := run(ctx, h, d.id, statScript(d.Path))
	if err != nil {
		return Change{}, fmt.Errorf("read %s: %w", d.Path, err)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if len(lines) != 2 {
		return Change{}, fmt.Errorf("read %s: unexpected output %q", d.Path, res.Stdout)
	}
	as, err := actor(d.Path, lines[0], d.Owner)
	if err != nil {
		return Change{}, err
	}
	si, err := parseStat(lines[1])
	if err != nil {
		return Change{}, err
	}
	switch si.kind {
	case "absent":
		return Change{Needed: true, Action: "create", Details: append([]string{fmt.Sprintf("mkdir, mode %04o", d.Mode)}, asDetail(as)...), state: as}, nil
	case "dir":
	default:
		return Change{}, fmt.Errorf("%s exists and is not a directory (%s)", d.Path, si.kind)
	}
	var details []string
	if si.mode != d.Mode {
		details = append(details, fmt.Sprintf("mode: %04o -> %04o", si.mode, d.Mode))
	}
	if d.Owner != "" && si.owner != d.Owner || d.Group != "" && si.group != d.Group {
		details = append(details, fmt.Sprintf("owner: %s:%s -> %s:%s", si.owner, si.group, or(d.Owner, si.owner), or(d.Group, si.group)))
	}
	if len(details) == 0 {
		return noChange(), nil
	}
	return Change{Needed: true, Action: "update", Details: append(details, asDetail(as)...), state: as}, nil
}

// Apply makes the directory and sets its mode and owner, as the actor
// Check found (chown -h: a link put there meanwhile is not followed).
func (d *DirOp) Apply(ctx context.Context, h host.Host, c Change) error {
	as, _ := c.state.(string)
	q := host.Quote(d.Path)
	script := fmt.Sprintf("mkdir -p %s && chmod %04o %s", q, d.Mode, q)
	if d.Owner != "" || d.Group != "" {
		script += fmt.Sprintf(" && chown -h %s %s", host.Quote(chownSpec(d.Owner, d.Group)), q)
	}
	_, err := runAs(ctx, h, d.id, as, script)
	return err
}

// ---- link ----

// LinkOp makes a symlink.
type LinkOp struct {
	opBase
	Path, Target string
}

func (l *LinkOp) spec() map[string]any { return map[string]any{"path": l.Path, "target": l.Target} }

func (l *LinkOp) Check(ctx context.Context, h host.Host) (Change, error) {
	q := host.Quote(l.Path)
	res, err := run(ctx, h, l.id, host.HolderScript(l.Path)+fmt.Sprintf("\nif [ -L %s ]; then echo link; readlink %s; elif [ -d %s ]; then echo dir; elif [ -e %s ]; then echo other; else echo absent; fi", q, q, q, q))
	if err != nil {
		return Change{}, fmt.Errorf("read %s: %w", l.Path, err)
	}
	lines := strings.SplitN(strings.TrimRight(string(res.Stdout), "\n"), "\n", 3)
	if len(lines) < 2 {
		return Change{}, fmt.Errorf("read %s: unexpected output %q", l.Path, res.Stdout)
	}
	// A link has no owner of its own to give: whoever holds the directory makes it.
	as, err := actor(l.Path, lines[0], "-")
	if err != nil {
		return Change{}, err
	}
	lines = lines[1:]
	switch lines[0] {
	case "absent":
		return Change{Needed: true, Action: "create", Details: append([]string{"-> " + l.Target}, asDetail(as)...), state: as}, nil
	case "other":
		return Change{Needed: true, Action: "replace", Details: append([]string{"file replaced by link -> " + l.Target}, asDetail(as)...), state: as}, nil
	case "link":
		if len(lines) > 1 && lines[1] == l.Target {
			return noChange(), nil
		}
		have := ""
		if len(lines) > 1 {
			have = lines[1]
		}
		return Change{Needed: true, Action: "update", Details: append([]string{fmt.Sprintf("-> %s (was -> %s)", l.Target, have)}, asDetail(as)...), state: as}, nil
	}
	return Change{}, fmt.Errorf("%s exists and is a directory", l.Path)
}

func (l *LinkOp) Apply(ctx context.Context, h host.Host, c Change) error {
	as, _ := c.state.(string)
	_, err := runAs(ctx, h, l.id, as, fmt.Sprintf("mkdir -p %s && ln -sfn %s %s", host.Quote(path.Dir(l.Path)), host.Quote(l.Target), host.Quote(l.Path)))
	return err
}

// ---- package ----

// PackageOp installs (or removes) packages with the platform's manager.
type PackageOp struct {
	opBase
	Names   []string
	Absent  bool
	Manager string // "apt" or "dnf"
}

func (p *PackageOp) spec() map[string]any {
	state := "present"
	if p.Absent {
		state = "absent"
	}
	return map[string]any{"names": p.Names, "state": state, "manager": p.Manager}
}

func (p *PackageOp) installed(ctx context.Context, h host.Host) (map[string]bool, error) {
	var qs []string
	for _, n := range p.Names {
		qs = append(qs, host.Quote(n))
	}
	var script string
	if p.Manager == "apt" {
		script = `dpkg-query -W -f='${Package} ${db:Status-Status}\n' ` + strings.Join(qs, " ") + ` 2>/dev/null; true`
	} else {
		script = `rpm -q --qf '%{NAME} installed\n' ` + strings.Join(qs, " ") + ` 2>/dev/null; true`
	}
	res, err := run(ctx, h, p.id, script)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		if n, st, ok := strings.Cut(strings.TrimSpace(line), " "); ok && st == "installed" {
			have[strings.SplitN(n, ":", 2)[0]] = true
		}
	}
	return have, nil
}

func (p *PackageOp) Check(ctx context.Context, h host.Host) (Change, error) {
	have, err := p.installed(ctx, h)
	if err != nil {
		return Change{}, err
	}
	var todo []string
	for _, n := range p.Names {
		if have[n] == p.Absent {
			todo = append(todo, n)
		}
	}
	if len(todo) == 0 {
		return noChange(), nil
	}
	action := "install"
	if p.Absent {
		action = "remove"
	}
	return Change{Needed: true, Action: action, Details: []string{strings.Join(todo, " ")}, state: todo}, nil
}

// aptLists updates apt's package lists when there are none or they are
// more than a day old.
const aptLists = `{ if ! ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || [ -n "$(find /var/lib/apt/lists -maxdepth 0 -mmin +1440)" ]; then apt-get -o DPkg::Lock::Timeout=600 -q update; fi; }`

func (p *PackageOp) Apply(ctx context.Context, h host.Host, c Change) error {
	todo, _ := c.state.([]string)
	var qs []string
	for _, n := range todo {
		qs = append(qs, host.Quote(n))
	}
	verb := "install"
	if p.Absent {
		verb = "remove"
	}
	var script string
	if p.Manager == "apt" {
		script = "DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q -y " + verb + " " + strings.Join(qs, " ")
		if !p.Absent {
			// A fresh image may have no package lists, or a day-old one
			// lists versions the mirror no longer has.
			script = aptLists + " && " + script
		}
	} else {
		script = "dnf -y " + verb + " " + strings.Join(qs, " ")
	}
	_, err := h.Run(ctx, host.Cmd{Script: script, Label: p.id, Timeout: 30 * time.Minute})
	return err
}

// ---- user ----

// UserOp makes a user and its supplementary groups.
type UserOp struct {
	opBase
	Name, Home, Shell string
	System            bool
	Groups            []string
}

func (u *UserOp) spec() map[string]any {
	m := map[string]any{"name": u.Name, "system": u.System, "groups": u.Groups}
	if u.Home != "" {
		m["home"] = u.Home
	}
	if u.Shell != "" {
		m["shell"] = u.Shell
	}
	return m
}

type userFacts struct {
	exists      bool
	home, shell bool
	groups      []string
}

func (u *UserOp) Check(ctx context.Context, h host.Host) (Change, error) {
	q := host.Quote(u.Name)
	res, err := run(ctx, h, u.id, fmt.Sprintf(`if getent passwd %s; then id -nG %s; fi; true`, q, q))
	if err != nil {
		return Change{}, err
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if lines[0] == "" {
		return Change{Needed: true, Action: "create", Details: []string{"useradd " + u.Name}, state: userFacts{}}, nil
	}
	f := strings.Split(lines[0], ":")
	if len(f) < 7 {
		return Change{}, fmt.Errorf("unexpected getent output %q", lines[0])
	}
	if err := u.notSystemAccount(f); err != nil {
		return Change{}, err
	}
	uf := userFacts{exists: true}
	var details []string
	if u.Home != "" && f[5] != u.Home {
		uf.home = true
		details = append(details, fmt.Sprintf("home: %s -> %s", f[5], u.Home))
	}
	if u.Shell != "" && f[6] != u.Shell {
		uf.shell = true
		details = append(details, fmt.Sprintf("shell: %s -> %s", f[6], u.Shell))
	}
	var have []string
	if len(lines) > 1 {
		have = strings.Fields(lines[1])
	}
	for _, g := range u.Groups {
		if !slices.Contains(have, g) {
			uf.groups = append(uf.groups, g)
		}
	}
	if len(uf.groups) > 0 {
		details = append(details, "add to groups: "+strings.Join(uf.groups, ","))
	}
	if len(details) == 0 {
		return noChange(), nil
	}
	return Change{Needed: true, Action: "update", Details: details, state: uf}, nil
}

// Accounts for people have uids from UID_MIN to UID_MAX (login.defs: 1000
// and 60000 on Debian and AlmaLinux); below are root and the system's own,
// above them nobody (65534) and other reserved ones.
const firstUserUID, lastUserUID = 1000, 60000

// notSystemAccount refuses to take over an existing system account (root,
// sshd, www-data, ...) for a user op that is not one: usermod would give it
// the op's home and shell (root's login shell nologin) and the profile its
// files (a site user's docroot, PHP running as it).
func (u *UserOp) notSystemAccount(passwd []string) error {
	if u.System {
		return nil
	}
	uid, err := strconv.Atoi(passwd[2])
	if err != nil {
		return fmt.Errorf("user %s: unexpected uid %q", u.Name, passwd[2])
	}
	if uid < firstUserUID || uid > lastUserUID {
		return fmt.Errorf("user %s exists on the host as a system account (uid %d): refusing to make it this profile's user (its home, shell and files would change); choose another name", u.Name, uid)
	}
	// A person's account (a login shell) made a service account: its owner
	// locked out, their files and keys the profile's.
	if shell := passwd[6]; u.Shell != "" && noLogin(u.Shell) && !noLogin(shell) {
		return fmt.Errorf("user %s exists on the host with the login shell %s: refusing to make it this profile's user (shell %s), which would lock its owner out and hand the profile their files; choose another name", u.Name, shell, u.Shell)
	}
	return nil
}

// noLogin says whether shell lets nobody log in.
func noLogin(shell string) bool {
	return strings.HasSuffix(shell, "/nologin") || strings.HasSuffix(shell, "/false")
}

func (u *UserOp) Apply(ctx context.Context, h host.Host, c Change) error {
	uf, _ := c.state.(userFacts)
	var args []string
	if !uf.exists {
		args = append(args, "useradd")
		if u.System {
			args = append(args, "--system")
		}
		if u.Home != "" {
			args = append(args, "--create-home", "--home-dir", host.Quote(u.Home))
		}
		if u.Shell != "" {
			args = append(args, "--shell", host.Quote(u.Shell))
		}
		if len(u.Groups) > 0 {
			args = append(args, "--groups", host.Quote(strings.Join(u.Groups, ",")))
		}
	} else {
		args = append(args, "usermod")
		if uf.home {
			args = append(args, "--home", host.Quote(u.Home))
		}
		if uf.shell {
			args = append(args, "--shell", host.Quote(u.Shell))
		}
		if len(uf.groups) > 0 {
			args = append(args, "--append", "--groups", host.Quote(strings.Join(uf.groups, ",")))
		}
	}
	args = append(args, host.Quote(u.Name))
	_, err := run(ctx, h, u.id, strings.Join(args, " "))
	return err
}

// ---- command ----

// CommandOp runs a command unless its guards say it is done.
type CommandOp struct {
	opBase
	Run     string
	Unless  string
	OnlyIf  string
	Creates string
	Stdin   string
	Timeout time.Duration
	// Bake: part of a machine image of the profile (Rendered.Bake).
	Bake bool
}

func (c *CommandOp) spec() map[string]any {
	m := map[string]any{"run": c.Run}
	if c.Unless != "" {
		m["unless"] = c.Unless
	}
	if c.OnlyIf != "" {
		m["only_if"] = c.OnlyIf
	}
	if c.Creates != "" {
		m["creates"] = c.Creates
	}
	if c.Stdin != "" {
		m["stdin"] = "(given, not shown)"
	}
	if c.Timeout != 0 {
		m["timeout"] = c.Timeout.String()
	}
	return m
}

func (c *CommandOp) guarded() bool { return c.Unless != "" || c.OnlyIf != "" || c.Creates != "" }

func (c *CommandOp) Check(ctx context.Context, h host.Host) (Change, error) {
	if c.Creates != "" {
		code, err := exitCode(run(ctx, h, c.id+" (creates)", "test -e "+host.Quote(c.Creates)))
		if err != nil {
			return Change{}, err
		}
		if code == 0 {
			return noChange(), nil
		}
	}
	if c.OnlyIf != "" {
		code, err := exitCode(run(ctx, h, c.id+" (only_if)", c.OnlyIf))
		if err != nil {
			return Change{}, err
		}
		if code != 0 {
			return noChange(), nil
		}
	}
	if c.Unless != "" {
		code, err := exitCode(run(ctx, h, c.id+" (unless)", c.Unless))
		if err != nil {
			return Change{}, err
		}
		if code == 0 {
			return noChange(), nil
		}
	}
	why := "guard says not done"
	if !c.guarded() {
		why = "no guard: runs on every apply"
	}
	return Change{Needed: true, Action: "run", Details: []string{why}}, nil
}

func (c *CommandOp) Apply(ctx context.Context, h host.Host, _ Change) error {
	cmd := host.Cmd{Script: c.Run, Label: c.id, Timeout: c.Timeout}
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	_, err := h.Run(ctx, cmd)
	return err
}

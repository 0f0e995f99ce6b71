package provision

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/host"
)

// Preflight is what a host is before a profile is applied to it, and what
// the profile will change about it, in one screen: platform, SELinux,
// firewalld, init system, free memory and disk. `wptest up` and `wptest
// run` print it before they change anything.
//
// What the profile will change about SELinux and firewalld is read from
// its own ops, by name: ops labelled selinux_* and firewalld_* (e.g.
// command.selinux_site_contexts). Their Check runs on the host, as a plan
// would (guards read state, change nothing), so the lines say which would
// run now.
type Preflight struct {
	Host     string     `json:"host"`
	Profile  string     `json:"profile"`
	Platform string     `json:"platform"` // the platform the profile was rendered for
	Facts    host.Facts `json:"facts"`
	// Memory in bytes, from /proc/meminfo (0: unknown).
	MemTotal     int64       `json:"mem_total"`
	MemAvailable int64       `json:"mem_available"`
	Disks        []DiskSpace `json:"disks"`
	SELinux      []OpPreview `json:"selinux_ops,omitempty"`
	Firewalld    []OpPreview `json:"firewalld_ops,omitempty"`
}

// DiskSpace is one filesystem holding paths the profile writes.
type DiskSpace struct {
	Mount string   `json:"mount"`
	Paths []string `json:"paths"`
	Free  int64    `json:"free"`  // bytes available to root's files
	Total int64    `json:"total"` // bytes
}

// OpPreview is one op's Check on the host: whether apply would run it.
type OpPreview struct {
	ID      string   `json:"id"`
	Change  bool     `json:"change"`
	Details []string `json:"details,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// Thresholds below which the preflight warns (it never refuses: a small
// test host is a choice).
const (
	lowMemory = 1 << 30 // MariaDB, PHP-FPM and a web server together
	lowDisk   = 2 << 30 // packages, WordPress and the fixture
)

// Preflight reads h (whose facts f the caller has read already) and checks
// the profile's SELinux and firewalld ops there. It changes nothing.
func (r *Rendered) Preflight(ctx context.Context, h host.Host, f host.Facts) (*Preflight, error) {
	p := &Preflight{Host: h.Name(), Profile: r.Profile.Name, Platform: r.Platform, Facts: f}
	paths := []string{"/", "/var/lib"} // the system and packages; MariaDB's data
	if r.Site != nil {
		paths = append(paths, r.Site.Docroot)
	}
	var sb strings.Builder
	sb.WriteString("awk '/^(MemTotal|MemAvailable):/ { print \"mem\", $1, $2 }' /proc/meminfo\n")
	for _, d := range paths {
		// The nearest directory that exists (the docroot may not yet).
		fmt.Fprintf(&sb, "q=%s; while [ ! -e \"$q\" ]; do q=$(dirname \"$q\"); done; df -Pk \"$q\" | awk -v p=%s 'NR == 2 { print \"disk\", p, $6, $4, $2 }'\n", host.Quote(d), host.Quote(d))
	}
	res, err := h.Run(ctx, host.Cmd{Script: sb.String(), Label: "preflight", Timeout: time.Minute})
	if err != nil {
		return nil, fmt.Errorf("preflight on %s: %w", h.Name(), err)
	}
	p.parse(res.Stdout)
	for _, op := range r.Ops {
		_, label, _ := strings.Cut(op.ID(), ".")
		var list *[]OpPreview
		switch {
		case strings.HasPrefix(label, "selinux_"):
			list = &p.SELinux
		case strings.HasPrefix(label, "firewalld_"):
			list = &p.Firewalld
		default:
			continue
		}
		pv := OpPreview{ID: op.ID()}
		c, err := op.Check(ctx, h)
		if err != nil {
			pv.Error = r.opText(op, err.Error())
		} else {
			pv.Change, pv.Details = c.Needed, r.shownChange(op, c).Details
		}
		*list = append(*list, pv)
	}
	return p, nil
}

func (p *Preflight) parse(out []byte) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 3 && f[0] == "mem":
			kb, _ := strconv.ParseInt(f[2], 10, 64)
			if f[1] == "MemTotal:" {
				p.MemTotal = kb << 10
			} else {
				p.MemAvailable = kb << 10
			}
		case len(f) == 5 && f[0] == "disk":
			free, _ := strconv.ParseInt(f[3], 10, 64)
			total, _ := strconv.ParseInt(f[4], 10, 64)
			merged := false
			for i := range p.Disks {
				if p.Disks[i].Mount == f[2] {
					p.Disks[i].Paths = append(p.Disks[i].Paths, f[1])
					merged = true
				}
			}
			if !merged {
				p.Disks = append(p.Disks, DiskSpace{Mount: f[2], Paths: []string{f[1]}, Free: free << 10, Total: total << 10})
			}
		}
	}
}

// WriteText prints the preflight for people: one line per item, what was
// found, then what the profile does about it.
func (p *Preflight) WriteText(w io.Writer) {
	f := p.Facts
	fmt.Fprintf(w, "preflight on %s: what the host is, and what profile %s will change\n", p.Host, p.Profile)
	plat := fmt.Sprintf("%s (%s %s, %s, %s)", f.Platform, f.OSID, f.OSVersion, f.Arch, f.PackageManager)
	if f.Platform == p.Platform {
		plat += ": the profile's " + p.Platform + " plan"
	} else {
		plat += ": but the profile was rendered for " + p.Platform
	}
	line(w, "platform", plat)

	se := f.SELinux
	switch {
	case f.SELinuxEnabled():
		se += ": stays " + f.SELinux + "; " + opsText(p.SELinux, "labels and booleans")
	case len(willRun(p.SELinux)) > 0:
		se += ": " + opsText(p.SELinux, "")
	default:
		se += ": nothing to label"
	}
	line(w, "SELinux", se)

	fw := f.Firewalld
	switch {
	case f.Firewalld == host.FirewalldRunning:
		fw += ": " + opsText(p.Firewalld, "the profile's ports")
	case len(willRun(p.Firewalld)) > 0:
		fw += ": " + opsText(p.Firewalld, "")
	default:
		fw += ": nothing to open"
	}
	line(w, "firewalld", fw)

	if f.Init == "systemd" {
		line(w, "init", "systemd: services are started and enabled with systemctl")
	} else {
		line(w, "init", f.Init+": no systemd; services are started by the profile's own commands and not enabled at boot")
	}

	mem := "unknown"
	if p.MemTotal > 0 {
		mem = fmt.Sprintf("%s available of %s", gib(p.MemAvailable), gib(p.MemTotal))
		if p.MemAvailable < lowMemory {
			mem += " (low: MariaDB, PHP and the web server may not all fit)"
		}
	}
	line(w, "memory", mem)

	if len(p.Disks) == 0 {
		line(w, "disk", "unknown")
	}
	for _, d := range p.Disks {
		s := fmt.Sprintf("%s free of %s on %s (%s)", gib(d.Free), gib(d.Total), d.Mount, strings.Join(d.Paths, ", "))
		if d.Free < lowDisk {
			s += " (low: packages, WordPress and the fixture need room)"
		}
		line(w, "disk", s)
	}
}

func line(w io.Writer, what, text string) { fmt.Fprintf(w, "  %-10s %s\n", what, text) }

func willRun(ops []OpPreview) []string {
	var ids []string
	for _, o := range ops {
		if o.Change {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

// opsText says what apply will do with ops: which will run, how many are
// done already, which could not be checked.
func opsText(ops []OpPreview, what string) string {
	if len(ops) == 0 {
		return "the profile changes nothing here"
	}
	var parts []string
	if run := willRun(ops); len(run) > 0 {
		parts = append(parts, "will run "+strings.Join(run, ", "))
	}
	done := 0
	for _, o := range ops {
		if !o.Change && o.Error == "" {
			done++
		}
		if o.Error != "" {
			parts = append(parts, "could not check "+o.ID+": "+firstLine(o.Error))
		}
	}
	if done > 0 {
		s := fmt.Sprintf("%d op(s) done already", done)
		if done == len(ops) && what != "" {
			s = what + " in place"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func gib(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

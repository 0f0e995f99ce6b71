package hostmanifest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/hostrecord"
	"github.com/wptest/wptest/internal/jsonstyle"
	"github.com/wptest/wptest/internal/termsafe"
)

// UnfinishedPath marks an apply in progress: the server stage writes it
// before it changes anything and removes it once the finished apply's host
// manifest is written (EndApply). Found there, what differs from the drift
// record may be that apply's own work, not a change by hand.
const UnfinishedPath = "/var/lib/wptest/apply-unfinished.json"

// Unfinished is what the mark says.
type Unfinished struct {
	Profile string `json:"profile"`
	Tool    string `json:"tool,omitempty"`
	// Services are those of the profile being applied: a part-applied
	// server may run them, so the next apply retires them (as it does the
	// live profile's) where it does not run them itself.
	Services []hostrecord.Service `json:"services,omitempty"`
	// ReadErr: the mark is there but could not be read (one line, said,
	// not trusted); not written to the mark.
	ReadErr string `json:"read_error,omitempty"`
}

// String is the mark in words, for drift lines and errors.
func (u *Unfinished) String() string {
	by := ""
	if u.Tool != "" {
		by = ", by " + u.Tool
	}
	if u.ReadErr != "" {
		by += "; its mark " + UnfinishedPath + " could not be read: " + u.ReadErr
	}
	return fmt.Sprintf("the last apply (profile %s%s) did not finish: it failed, was cut off or is still running, and may have left the server part-applied", u.Profile, by)
}

// Finish says how to finish the apply: with wptest up of its profile.
func (u *Unfinished) Finish() string {
	if u.Profile == "unknown" {
		return "apply its profile there with wptest up"
	}
	return "apply profile " + u.Profile + " there with wptest up"
}

// BeginApply marks h as being applied u (EndApply ends it); u's services
// once each.
func BeginApply(ctx context.Context, h host.Host, u Unfinished) error {
	seen := map[string]bool{}
	svcs := u.Services[:0:0]
	for _, s := range u.Services {
		if !seen[s.Name] {
			seen[s.Name] = true
			svcs = append(svcs, s)
		}
	}
	u.Services, u.ReadErr = svcs, ""
	jsonstyle.Lists(&u)
	b, err := json.Marshal(u)
	if err != nil {
		return err
	}
	if _, err := h.Run(ctx, host.Cmd{Script: "install -d -m 0755 /var/lib/wptest", Label: "apply mark"}); err != nil {
		return fmt.Errorf("apply mark on %s: %w", h.Name(), err)
	}
	if err := h.Put(ctx, UnfinishedPath, bytes.NewReader(append(b, '\n')), host.PutOptions{Mode: 0o644}); err != nil {
		return fmt.Errorf("write apply mark %s on %s: %w", UnfinishedPath, h.Name(), err)
	}
	return nil
}

// EndApply removes the mark: the apply finished and its host manifest is
// written.
func EndApply(ctx context.Context, h host.Host) error {
	if _, err := h.Run(ctx, host.Cmd{Script: "rm -f " + UnfinishedPath, Label: "apply mark"}); err != nil {
		return fmt.Errorf("remove apply mark %s on %s: %w", UnfinishedPath, h.Name(), err)
	}
	return nil
}

// maxMark bounds what is read of a mark (a profile's services: a few KB).
const maxMark = 1 << 20

// ReadUnfinished is the mark of a change on h that did not finish (nil:
// none: the last apply finished, or none was begun by a wptest that
// marks). A mark that cannot be read is still a mark (ReadErr says why).
func ReadUnfinished(ctx context.Context, h host.Host) *Unfinished {
	res, err := h.Run(ctx, host.Cmd{Script: "if [ -e " + UnfinishedPath + " ]; then head -c " + fmt.Sprint(maxMark) + " " + UnfinishedPath + "; else echo none; fi", Label: "apply mark"})
	if err != nil {
		return &Unfinished{Profile: "unknown", ReadErr: oneLine(err.Error())}
	}
	out := bytes.TrimSpace(res.Stdout)
	if string(out) == "none" {
		return nil
	}
	return parseUnfinished(out)
}

// parseUnfinished is a mark's content as it may be said: what it says
// reaches a terminal and a command line, so only a profile's name
// ("unknown" else) and one clean line of the tool's (none else) are kept.
// Its services are the host's record of what runs there, as the host
// manifest's are.
func parseUnfinished(b []byte) *Unfinished {
	u := Unfinished{Profile: "unknown"}
	var got Unfinished
	if err := json.Unmarshal(b, &got); err != nil {
		u.ReadErr = "not JSON"
		return &u
	}
	if profileName.MatchString(got.Profile) {
		u.Profile = got.Profile
	}
	if t := termsafe.Line(got.Tool); t == got.Tool && t != "" && len(t) <= 200 {
		u.Tool = t
	}
	u.Services = got.Services
	return &u
}

// oneLine is s as one clean line of at most 200 bytes.
func oneLine(s string) string {
	s = termsafe.Line(strings.Join(strings.Fields(s), " "))
	if len(s) > 200 {
		i := 200
		for i > 0 && !utf8.RuneStart(s[i]) {
			i-- // not inside a character
		}
		s = s[:i] + "…"
	}
	return s
}

// profileName is what a profile's name may be.
var profileName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

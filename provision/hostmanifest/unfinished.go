package hostmanifest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/hostrecord"
	"github.com/wptest/wptest/internal/termsafe"
)

// UnfinishedPath marks a change in progress: the server stage writes it
// before it changes anything and removes it once the finished apply's host
// manifest is written (EndApply); `wptest apply`, which writes no host
// manifest, leaves it. Found there, what differs from the drift record may
// be that change's own work, not a change by hand.
const UnfinishedPath = "/var/lib/wptest/apply-unfinished.json"

// Unfinished is what the mark says.
type Unfinished struct {
	Profile string `json:"profile"`
	Tool    string `json:"tool,omitempty"`
	// Via: "" the server stage (up, swap, run), which removes the mark when
	// it finishes; ViaApply: `wptest apply`, which never does.
	Via string `json:"via,omitempty"`
	// Services are those of the profile being applied: a part-applied
	// server may run them, so the next apply retires them (as it does the
	// live profile's) where it does not run them itself.
	Services []hostrecord.Service `json:"services,omitempty"`
	// ReadErr: the mark is there but could not be read (said, not trusted).
	ReadErr string `json:"-"`
}

// ViaApply is Unfinished.Via for `wptest apply`.
const ViaApply = "apply"

// String is the mark in words, for drift lines and errors.
func (u *Unfinished) String() string {
	by := ""
	if u.Tool != "" {
		by = ", by " + u.Tool
	}
	if u.ReadErr != "" {
		by += "; its mark " + UnfinishedPath + " could not be read: " + u.ReadErr
	}
	if u.Via == ViaApply {
		return fmt.Sprintf("the last change was wptest apply (profile %s%s), which keeps no host manifest nor drift record", u.Profile, by)
	}
	return fmt.Sprintf("the last apply (profile %s%s) did not finish: it failed, was cut off or is still running, and may have left the server part-applied", u.Profile, by)
}

// BeginApply marks h as being changed by u (EndApply ends it).
func BeginApply(ctx context.Context, h host.Host, u Unfinished) error {
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
		return &Unfinished{Profile: "unknown", ReadErr: err.Error()}
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
	if got.Via == ViaApply {
		u.Via = ViaApply
	}
	u.Services = got.Services
	return &u
}

// profileName is what a profile's name may be.
var profileName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

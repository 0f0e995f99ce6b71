package hostmanifest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/termsafe"
)

// UnfinishedPath marks an apply in progress: written before the server
// stage changes anything, removed once the host manifest of the finished
// apply is written (EndApply). Found there, the last apply failed or was cut
// off: what differs from its drift record is then, in part or in whole,
// that apply's own work, not a change by hand.
const UnfinishedPath = "/var/lib/wptest/apply-unfinished.json"

// Unfinished is what the mark says: the profile being applied, and by
// which wptest.
type Unfinished struct {
	Profile string `json:"profile"`
	Tool    string `json:"tool"`
}

// String is the mark in words, for drift lines and errors.
func (u *Unfinished) String() string {
	by := ""
	if u.Tool != "" {
		by = ", by " + u.Tool
	}
	return fmt.Sprintf("the last apply (profile %s%s) did not finish: it failed or was cut off, and left the server part-applied", u.Profile, by)
}

// BeginApply marks h as being applied u.Profile (EndApply ends it).
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

// ReadUnfinished is the mark of an apply on h that did not finish (nil:
// none: the last apply finished, or none was begun by a wptest that marks).
func ReadUnfinished(ctx context.Context, h host.Host) (*Unfinished, error) {
	res, err := h.Run(ctx, host.Cmd{Script: "if [ -e " + UnfinishedPath + " ]; then head -c 4096 " + UnfinishedPath + "; else echo none; fi", Label: "apply mark"})
	if err != nil {
		return nil, fmt.Errorf("read apply mark on %s: %w", h.Name(), err)
	}
	out := bytes.TrimSpace(res.Stdout)
	if string(out) == "none" {
		return nil, nil
	}
	return parseUnfinished(out), nil
}

// parseUnfinished is a mark's content as it may be said: a mark that does
// not parse is still a mark (the apply began), and what it says reaches a
// terminal and a command line, so only a profile's name ("unknown" else)
// and one line of the tool's (none else) are kept.
func parseUnfinished(b []byte) *Unfinished {
	u := Unfinished{Profile: "unknown"}
	var got Unfinished
	if json.Unmarshal(b, &got) == nil {
		if profileName.MatchString(got.Profile) {
			u.Profile = got.Profile
		}
		if t := termsafe.Line(got.Tool); t == got.Tool && t != "" && len(t) <= 200 {
			u.Tool = t
		}
	}
	return &u
}

// UpCommand is the command that finishes the apply.
func (u *Unfinished) UpCommand() string {
	if u.Profile == "unknown" {
		return "wptest up --profile <the profile>"
	}
	return "wptest up --profile " + u.Profile
}

// profileName is what a shipped profile's name may be.
var profileName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

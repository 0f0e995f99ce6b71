package testenv

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// CutLink takes the host's link to this machine down (its eth0, inside its
// network namespace): from here on nothing this machine sends reaches it
// and nothing comes back, as when a cable is pulled; the connections stay
// open on both sides until something times out. The host is removed as
// usual after the test.
func (h *BareHost) CutLink() error { return h.link("down") }

func (h *BareHost) link(state string) error {
	if out, err := exec.Command("ip", "-n", h.h.ID, "link", "set", "dev", "eth0", state).CombinedOutput(); err != nil {
		return fmt.Errorf("bare host %s: link %s: %v\n%s", h.Name, state, err, out)
	}
	return nil
}

// LimitSendTo caps what the host sends to peer at mbit Mbit/s (a token
// bucket filter on the link its route to peer takes, inside its network
// namespace: the set's own veth between them, not eth0): from peer, the
// host's link is that slow, and a load that needs more fills it.
func (h *BareHost) LimitSendTo(peer *BareHost, mbit int) error {
	out, err := exec.Command("ip", "-n", h.h.ID, "-o", "route", "get", peer.IP).CombinedOutput()
	f := strings.Fields(string(out))
	i := slices.Index(f, "dev")
	if err != nil || i < 0 || i+1 >= len(f) {
		return fmt.Errorf("bare host %s: its route to %s: %v\n%s", h.Name, peer.Name, err, out)
	}
	out, err = exec.Command("tc", "-n", h.h.ID, "qdisc", "replace", "dev", f[i+1], "root",
		"tbf", "rate", fmt.Sprintf("%dmbit", mbit), "burst", "32kbit", "latency", "400ms").CombinedOutput()
	if err != nil {
		return fmt.Errorf("bare host %s: limit its link to %s (%s) to %d Mbit/s: %v\n%s", h.Name, peer.Name, f[i+1], mbit, err, out)
	}
	return nil
}

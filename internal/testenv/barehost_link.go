package testenv

import (
	"fmt"
	"os/exec"
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

package stage

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wptest/wptest/host"
)

// Who answers the live profile's port on the host's loopback. With the
// server stopped, any user who can bind the port (the site user, who runs
// PHP, where it is 1024 or above or they hold the capability) could answer
// verify's sample with the site's own pages: the sample is fetched only
// from a listener of root's or of a system account (the profile's server:
// Apache's and nginx's are root's, Caddy's is caddy's) that is not the
// site user.

// sysUIDMax is Debian's and RHEL's last system account (login.defs'
// SYS_UID_MAX): a person's account, and the site user made by useradd,
// come after it.
const sysUIDMax = 999

// listenScript prints the kernel's TCP socket tables (IPv4, then IPv6,
// each with its header) and the site user's uid.
const listenScript = `cat /proc/net/tcp; echo v6; cat /proc/net/tcp6 2>/dev/null; echo "owner $(id -u -- "$1" 2>/dev/null)"`

// listener is a listening socket answering 127.0.0.1:port.
type listener struct {
	uid   int
	inode string // the socket's: the same listener before and after a fetch
}

// loopbackListeners parses listenScript's output: the listening sockets on
// port that a connection to 127.0.0.1 reaches (0.0.0.0, 127.0.0.1, ::,
// ::ffff:127.0.0.1), and the site user's uid (-1: none).
func loopbackListeners(out []byte, port int) ([]listener, int, error) {
	var ls []listener
	owner := -1
	v6 := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 1 && f[0] == "v6":
			v6 = true
			continue
		case len(f) >= 1 && f[0] == "owner":
			if len(f) == 2 {
				if n, err := strconv.Atoi(f[1]); err == nil {
					owner = n
				}
			}
			continue
		case len(f) < 8 || f[0] == "sl" || f[3] != "0A": // not a LISTEN socket
			continue
		}
		addr, p, ok := strings.Cut(f[1], ":")
		if !ok {
			return nil, 0, fmt.Errorf("/proc/net/tcp: local address %q", f[1])
		}
		n, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return nil, 0, fmt.Errorf("/proc/net/tcp: port %q", p)
		}
		if int(n) != port || !answersLoopback(addr, v6) {
			continue
		}
		uid, err := strconv.Atoi(f[7])
		if err != nil || len(f) < 10 {
			return nil, 0, fmt.Errorf("/proc/net/tcp: uid %q", f[7])
		}
		ls = append(ls, listener{uid: uid, inode: f[9]})
	}
	return ls, owner, sc.Err()
}

// answersLoopback: the kernel's hex address (each 32-bit word in the
// host's order: little-endian on x86-64 and arm64, big-endian taken too)
// is one a connection to 127.0.0.1 reaches: IPv4's any or loopback, IPv6's
// any, or either as an IPv4-mapped address.
func answersLoopback(hex string, v6 bool) bool {
	v4 := func(w string) bool { return w == "00000000" || w == "0100007F" || w == "7F000001" }
	if !v6 {
		return v4(hex)
	}
	if hex == strings.Repeat("0", 32) {
		return true
	}
	if len(hex) != 32 {
		return false
	}
	mapped := hex[:16] == strings.Repeat("0", 16) && (hex[16:24] == "FFFF0000" || hex[16:24] == "0000FFFF")
	return mapped && v4(hex[24:])
}

// loopbackServer says whether the profile's server, and only it, answers
// port on h's loopback: listeners is who does (their inodes: the same ones
// after the fetch, or a stranger may have come between), or why not (no
// listener at all: a user who bound the port without listening could
// start listening between this check and the fetch; a listener of
// another user than root or a system account other than the site user
// owner).
func loopbackServer(ctx context.Context, h host.Host, port int, owner string) (listeners []string, problem string, err error) {
	res, err := h.Run(ctx, host.Cmd{Script: "set -- " + host.Quote(owner) + "\n" + listenScript, Label: "who listens"})
	if err != nil {
		return nil, "", fmt.Errorf("who listens on port %d of %s: %w", port, h.Name(), err)
	}
	ls, ownerUID, err := loopbackListeners(res.Stdout, port)
	if err != nil {
		return nil, "", fmt.Errorf("who listens on port %d of %s: %w", port, h.Name(), err)
	}
	if ownerUID < 0 {
		return nil, fmt.Sprintf("the site user %s is not a user on the host: who may answer port %d is unknown; its pages were not fetched", owner, port), nil
	}
	if len(ls) == 0 {
		return nil, fmt.Sprintf("nothing listens on port %d of the host's loopback (the profile's server is not running); its pages were not fetched", port), nil
	}
	for _, l := range ls {
		if l.uid == 0 || (l.uid <= sysUIDMax && l.uid != ownerUID) {
			listeners = append(listeners, l.inode)
			continue
		}
		who := fmt.Sprintf("uid %d", l.uid)
		if l.uid == ownerUID {
			who = fmt.Sprintf("the site user %s (uid %d)", owner, l.uid)
		}
		return nil, fmt.Sprintf("port %d on the host's loopback is answered by a socket of %s, not by the profile's server (root's or a system account's): its pages were not fetched", port, who), nil
	}
	slices.Sort(listeners)
	return listeners, "", nil
}

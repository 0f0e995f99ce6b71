// Package subnet hands out the private /30 links (10.213.X.0/30) that join
// this machine to a network namespace: the netns machines driver's and the
// tests' namespaces draw from one pool, across processes.
package subnet

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"strings"
)

// Link is a claimed 10.213.X.0/30: this machine's end and the namespace's.
type Link struct {
	X       int    // the third octet
	Gateway string // 10.213.X.1, this machine's side
	Peer    string // 10.213.X.2, the namespace's side
	Lock    string // the lock file that holds the claim; Release removes it
}

// ServiceAddr is the one fixed address, on this machine, of what every
// namespace reaches here (the netns machines' apt-cacher-ng): each
// namespace routes it via its link's Gateway. Claim never hands out
// 10.213.0.0/30 (X is 3 to 252), so it is no link's address.
const ServiceAddr = "10.213.0.1"

// LockDir is where claims are held (a file per /30, made with O_EXCL).
var LockDir = "/run"

// LockPath is the lock file of 10.213.x.0/30.
func LockPath(x int) string { return fmt.Sprintf("%s/wptest-netns-10.213.%d.lock", LockDir, x) }

// Claim picks a free 10.213.X.0/30. Several processes claim at once, so the
// claim is a lock file created with O_EXCL, and the address must not be on
// any interface yet (something that takes no lock may hold it). It stays
// claimed until Release, also after this process exits: a machine of the
// netns driver outlives the command that made it.
func Claim() (Link, error) {
	for try := 0; try < 100; try++ {
		n, err := rand.Int(rand.Reader, big.NewInt(250))
		if err != nil {
			return Link{}, err
		}
		x := int(n.Int64()) + 3 // never 0: 10.213.0.x holds ServiceAddr
		lock := LockPath(x)
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			continue
		}
		f.Close()
		out, _ := exec.Command("ip", "-o", "addr", "show").Output()
		if strings.Contains(string(out), fmt.Sprintf(" 10.213.%d.", x)) {
			os.Remove(lock)
			continue
		}
		return Link{X: x, Gateway: fmt.Sprintf("10.213.%d.1", x), Peer: fmt.Sprintf("10.213.%d.2", x), Lock: lock}, nil
	}
	return Link{}, fmt.Errorf("no free 10.213.X.0/30 after 100 tries (stale %s/wptest-netns-*.lock files?)", LockDir)
}

// Release frees the claim (a missing lock counts as freed).
func (l Link) Release() error {
	if l.Lock == "" {
		return nil
	}
	if err := os.Remove(l.Lock); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

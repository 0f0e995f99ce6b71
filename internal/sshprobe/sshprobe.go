// Package sshprobe tells whether an SSH server answers on an address: how
// a freshly started sshd (a netns machine's, a test's) is waited for.
package sshprobe

import (
	"bytes"
	"net"
	"time"
)

// Banner reports whether addr answers with an SSH banner ("SSH-"), within
// a second to connect and two more to read.
func Banner(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 8)
	n, _ := c.Read(buf)
	return bytes.HasPrefix(buf[:n], []byte("SSH-"))
}

package stage

import (
	"fmt"
	"os"
	"syscall"
)

// pseudoFS are the Linux file systems whose "regular files" are the
// kernel's state, not bytes anyone wrote (/proc/self/environ holds the
// environment, tokens included): by their statfs magic numbers.
var pseudoFS = map[int64]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0x62656570: "configfs",
	0xde5e81e4: "efivarfs",
	0xcafe4a11: "bpf",
	0x6165676c: "pstore",
}

// onRealFileSystem refuses a file on one of pseudoFS.
func onRealFileSystem(fh *os.File) error {
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(fh.Fd()), &st); err != nil {
		return fmt.Errorf("statfs: %w", err)
	}
	if name, ok := pseudoFS[int64(st.Type)]; ok {
		return fmt.Errorf("on %s, the kernel's state rather than a file's bytes", name)
	}
	return nil
}

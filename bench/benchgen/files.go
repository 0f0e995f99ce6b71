package benchgen

import (
	"fmt"
	"os"
	"syscall"
)

// fileReserve is what a run needs open beyond its connections: the
// runtime's poller, standard streams, a log or a result file.
const fileReserve = 64

// ensureFiles makes room for conns more open connections in this process
// (each visitor holds one socket); what names them in an error. The soft RLIMIT_NOFILE is raised to the
// hard limit (Go does this at startup; a caller may have lowered it), and
// the hard limit itself where the host allows it (root with
// CAP_SYS_RESOURCE). A limit that stays too low is a clear error before
// anything is dialed: otherwise the visitors past it would fail to connect
// (EMFILE, counted as connect errors) and the run would measure the limit.
func ensureFiles(conns int, what string) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("read the open-file limit: %w", err)
	}
	need := uint64(openFiles() + conns + fileReserve)
	if lim.Cur >= need {
		return nil
	}
	if lim.Max >= need {
		up := syscall.Rlimit{Cur: lim.Max, Max: lim.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &up); err != nil {
			return fmt.Errorf("%s need %d open files: raise the open-file limit from %d to its hard limit %d: %w",
				what, need, lim.Cur, lim.Max, err)
		}
		return nil
	}
	up := syscall.Rlimit{Cur: need, Max: need}
	err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &up)
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s need %d open files, but this process may open only %d "+
		"(RLIMIT_NOFILE hard limit; raising it was refused: %v): raise it for the load generator "+
		"(as root: ulimit -Hn %d, LimitNOFILE= in a systemd unit, or nofile in /etc/security/limits.conf) "+
		"or ask for fewer connections", what, need, lim.Max, err, need)
}

// openFiles is how many files this process has open now (0 if /proc says nothing).
func openFiles() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(ents) - 1 // the directory being read
}

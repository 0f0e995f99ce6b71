package cloud

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/safefile"
)

// CloudInitDone is the default readiness probe: it waits for cloud-init to
// finish (exit 2 is "done, with recoverable errors", which still installed
// the keys) and succeeds at once on a machine without cloud-init.
const CloudInitDone = `if command -v cloud-init >/dev/null 2>&1; then cloud-init status --wait >/dev/null; rc=$?; [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]; else true; fi`

// WaitOptions configure WaitReady.
type WaitOptions struct {
	// Timeout bounds the whole wait (default 10 min: a CCX boots in about 1).
	Timeout time.Duration
	// Probe runs once connected; it must exit 0 (default CloudInitDone).
	Probe string
	// RetryHostKeyMismatch keeps retrying (never accepting) a host that
	// shows another key until Timeout: a VM may show a key before
	// cloud-init installed the injected one. The key is never accepted.
	RetryHostKeyMismatch bool
	Log                  io.Writer
}

// Target is how to reach m over SSH with the run's own pins and key.
func Target(runDir string, m Machine) (host.Target, host.Options) {
	port := m.Port
	if port == 0 {
		port = 22
	}
	user := m.User
	if user == "" {
		user = "root"
	}
	id := m.IdentityFile
	if id == "" {
		id = filepath.Join(runDir, ClientKeyFile)
	}
	return host.Target{Local: m.Local, User: user, Host: m.Address, Port: port}, host.Options{
		Name:           m.Name,
		KnownHostsFile: filepath.Join(runDir, KnownHostsFile),
		IdentityFile:   id,
	}
}

// Connect opens m as a host.Host, its host key pinned by the run's
// known_hosts (only the pinned key type is negotiated).
func Connect(ctx context.Context, runDir string, m Machine, log io.Writer) (host.Host, error) {
	t, o := Target(runDir, m)
	if err := runDirFiles(m, o); err != nil {
		return nil, err
	}
	o.Log = log
	return host.Open(ctx, t, o)
}

// runDirFiles checks the files of the run directory that host.Open reads
// (the run's known_hosts and, unless the machine names its own, the
// run's client key) as a run directory's files are read: a link, FIFO,
// device or a file over maxPinFile there is refused before SSH reads it (a
// FIFO would hang it, a link to /dev/zero exhaust its memory).
func runDirFiles(m Machine, o host.Options) error {
	if m.Local {
		return nil
	}
	ps := []string{o.KnownHostsFile}
	if m.IdentityFile == "" {
		ps = append(ps, o.IdentityFile)
	}
	for _, p := range ps {
		f, err := safefile.Open(p, os.O_RDONLY, 0)
		switch {
		case errors.Is(err, fs.ErrNotExist): // host.Open says what is missing
		case err != nil:
			return err
		default:
			fi, err := f.Stat()
			f.Close()
			if err != nil {
				return err
			}
			if fi.Size() > maxPinFile {
				return safefile.TooLarge(p, maxPinFile)
			}
		}
	}
	return nil
}

// maxPinFile bounds a run's known_hosts and client key: a line per
// machine, one key.
const maxPinFile = 1 << 20

// WaitReady waits until m accepts SSH with its pinned host key and the probe
// succeeds. A host key that is not the pinned one is never accepted: no
// authentication, no command reaches such a host.
func WaitReady(ctx context.Context, runDir string, m Machine, opt WaitOptions) error {
	if m.Local {
		return nil
	}
	if opt.Timeout == 0 {
		opt.Timeout = 10 * time.Minute
	}
	if opt.Probe == "" {
		opt.Probe = CloudInitDone
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	t, o := Target(runDir, m)
	if err := runDirFiles(m, o); err != nil {
		return err
	}
	o.Log = opt.Log
	o.WaitFor = opt.Timeout
	o.ConnectTimeout = 10 * time.Second
	o.RetryHostKeyMismatch = opt.RetryHostKeyMismatch
	h, err := host.Open(ctx, t, o)
	if err != nil {
		return ProvisionErr(fmt.Errorf("wait for ssh on %s: %w", m.Name, err))
	}
	defer h.Close()
	if _, err := h.Run(ctx, host.Cmd{Script: opt.Probe, Label: "ready", Timeout: opt.Timeout}); err != nil {
		return ProvisionErr(fmt.Errorf("wait for %s to be ready: %w", m.Name, err))
	}
	return nil
}

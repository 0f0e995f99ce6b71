package stage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
)

// AgentPath is where the agent stage installs wptest itself on a host: the
// profiles' HTTP/3 checks run `wptest h3probe` there, the sampler runs
// `wptest srvstat` from it, a load generator `wptest bench-job`.
const AgentPath = "/usr/local/lib/wptest/wptest"

// Agent is the agent stage: the wptest binary on the host at AgentPath,
// unless the same bytes are there already.
type Agent struct {
	// Exe is the binary to install; "" = Self, when this wptest runs on
	// the host's OS and arch (else nothing is installed, and the profile
	// checks that need it fail with their own message).
	Exe  string
	Self string // this executable
	Path string // where it goes; "" = AgentPath
}

func (s Agent) Run(ctx context.Context, st *State) error {
	if err := st.facts(ctx); err != nil {
		return err
	}
	exe := s.Exe
	if exe == "" {
		if runtime.GOOS != "linux" || st.Facts.GoArch() != runtime.GOARCH {
			st.Agent = fmt.Sprintf("not installed: this wptest is %s/%s, the host is linux/%s (pass --agent)", runtime.GOOS, runtime.GOARCH, st.Facts.Arch)
			st.logf("[%s] wptest agent: %s", st.Host.Name(), st.Agent)
			return nil
		}
		if exe = s.Self; exe == "" {
			return exitcode.With(exitcode.Provision, fmt.Errorf("find this executable: unknown"))
		}
	}
	path := s.Path
	if path == "" {
		path = AgentPath
	}
	msg, err := installAgent(ctx, st.Host, exe, path)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	st.Agent = msg
	st.logf("[%s] wptest agent: %s", st.Host.Name(), msg)
	return nil
}

func (Agent) Cleanup(context.Context, *State) error { return nil }

// InstallAgent puts exe on h at AgentPath unless the same bytes are there
// already, and says which it was.
func InstallAgent(ctx context.Context, h host.Host, exe string) (string, error) {
	return installAgent(ctx, h, exe, AgentPath)
}

func installAgent(ctx context.Context, h host.Host, exe, path string) (string, error) {
	b, err := os.ReadFile(exe)
	if err != nil {
		return "", fmt.Errorf("wptest agent: %w", err)
	}
	sum := sha256.Sum256(b)
	want := hex.EncodeToString(sum[:])
	res, err := h.Run(ctx, host.Cmd{Script: "sha256sum " + host.Quote(path) + " 2>/dev/null || true", Label: "agent"})
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(string(res.Stdout), want+" ") {
		return "up to date (sha256 " + want[:12] + ")", nil
	}
	if _, err := h.Run(ctx, host.Cmd{Script: "install -d -m 0755 " + host.Quote(filepath.Dir(path)), Label: "agent"}); err != nil {
		return "", err
	}
	if err := h.Put(ctx, path, bytes.NewReader(b), host.PutOptions{Mode: 0o755}); err != nil {
		return "", fmt.Errorf("install wptest on %s: %w", h.Name(), err)
	}
	return "installed (sha256 " + want[:12] + ")", nil
}

package provision

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/wptest/wptest/host"
)

// Reading ahead. An apply checks every op (about 45 in a shipped profile)
// to change a few, and each check is a command on the host: over SSH a
// session of its own, about 30 ms of the host's CPU before it reads
// anything, and a round trip. Until an op applies a change, nothing on the
// host changes between checks (they only read), so the checks of the ops
// ahead are run in one batch (host.RunBatch) and each op's Check is
// answered from it, once; an applied change drops what is left and the
// next op reads ahead again, a window that grows while nothing changes.
// Only the op kinds whose checks are ours and only read are read ahead
// (readAhead); a command op's guard (only_if, unless) and a service's
// status (the profile's own commands, maybe slow or hanging) run when
// their turn comes, as do a check's second and later commands. A batch
// that fails (a check that hangs past the batch's timeout, a full /tmp)
// ends reading ahead for the apply: the rest run one by one.

// readAhead marks an op kind whose Check's first command only reads and is
// known before it runs (what it runs depends on the op and the host's
// facts alone).
type readAhead interface{ readAhead() }

func (*FileOp) readAhead()    {}
func (*DirOp) readAhead()     {}
func (*LinkOp) readAhead()    {}
func (*PackageOp) readAhead() {}
func (*UserOp) readAhead()    {}

// How many ops ahead a batch reads: what a change drops was read for
// nothing (a check reads for about as long as a command costs to start),
// so the window starts small, doubles while the ops read ahead change
// nothing, and falls back to one op (no batch) at a change. An up that
// changes most ops reads little ahead; an apply that changes a few reads
// most of its checks in a few batches.
const (
	readAheadFirst = 4
	readAheadMax   = 32
)

// readAheadTimeout bounds a batch; past it the checks run one by one, each
// with its own timeout.
const readAheadTimeout = 2 * time.Minute

// errReadAhead is what the recording host answers: the check stops at its
// first command, which is all the batch needs.
var errReadAhead = errors.New("reading ahead: not run")

// aheadHost is h for an apply's checks: it answers a command the batch
// ran (same label and script) from the batch, once, runs any other on h,
// and reads h's facts once per apply.
type aheadHost struct {
	host.Host
	answers map[aheadKey][]host.Answer
	facts   *host.Facts
	window  int  // ops the next batch reads
	off     bool // a batch failed: no more for this apply
}

type aheadKey struct{ label, script string }

func newAheadHost(h host.Host) *aheadHost {
	return &aheadHost{Host: h, answers: map[aheadKey][]host.Answer{}, window: readAheadFirst}
}

func (a *aheadHost) Run(ctx context.Context, cmd host.Cmd) (host.Result, error) {
	k := aheadKey{cmd.Label, cmd.Script}
	if q := a.answers[k]; len(q) > 0 && cmd.Stdin == nil && cmd.Stdout == nil && cmd.Stderr == nil {
		a.answers[k] = q[1:]
		return q[0].Result, q[0].Err
	}
	return a.Host.Run(ctx, cmd)
}

// Facts are read once per apply: what the checks use of them (the init
// system) does not change while an apply runs.
func (a *aheadHost) Facts(ctx context.Context) (host.Facts, error) {
	if a.facts != nil {
		return *a.facts, nil
	}
	f, err := a.Host.Facts(ctx)
	if err != nil {
		return f, err
	}
	a.facts = &f
	return f, nil
}

// drop forgets what was read ahead: something on the host changed.
func (a *aheadHost) drop() {
	clear(a.answers)
	a.window = 1
}

// empty: nothing read ahead is left.
func (a *aheadHost) empty() bool {
	for _, q := range a.answers {
		if len(q) > 0 {
			return false
		}
	}
	return true
}

// readFrom reads ahead from ops[0] when nothing read is left and ops[0]
// is one to read ahead (another kind may well change the host: its check
// runs first, alone).
func (a *aheadHost) readFrom(ctx context.Context, ops []Op) {
	if _, ok := ops[0].(readAhead); ok && !a.off && a.empty() {
		a.read(ctx, ops)
	}
}

// read runs the first check command of each readAhead op in the window's
// worth of ops in one batch. A batch that fails leaves nothing read
// ahead: the checks then run one by one, as without it.
func (a *aheadHost) read(ctx context.Context, ops []Op) {
	var cmds []host.Cmd
	n := min(len(ops), a.window)
	a.window = min(2*a.window, readAheadMax)
	for _, op := range ops[:n] {
		if _, ok := op.(readAhead); !ok {
			continue
		}
		rec := &recordHost{Host: a.Host, facts: a.Facts}
		_, _ = op.Check(ctx, rec)
		if rec.cmd != nil && rec.cmd.Stdin == nil && rec.cmd.Stdout == nil && rec.cmd.Stderr == nil {
			cmds = append(cmds, *rec.cmd)
		}
	}
	if len(cmds) < 2 {
		return
	}
	answers, err := host.RunBatch(ctx, a.Host, "checks ahead ("+strconv.Itoa(len(cmds))+": "+cmds[0].Label+" ... "+cmds[len(cmds)-1].Label+")", readAheadTimeout, cmds)
	if err != nil {
		a.off = true
		return
	}
	for i, c := range cmds {
		k := aheadKey{c.Label, c.Script}
		a.answers[k] = append(a.answers[k], answers[i])
	}
}

// recordHost notes the first command a check runs and runs nothing.
type recordHost struct {
	host.Host
	facts func(context.Context) (host.Facts, error)
	cmd   *host.Cmd
}

func (r *recordHost) Run(_ context.Context, cmd host.Cmd) (host.Result, error) {
	if r.cmd == nil {
		r.cmd = &cmd
	}
	return host.Result{Exit: -1}, errReadAhead
}

func (r *recordHost) Facts(ctx context.Context) (host.Facts, error) { return r.facts(ctx) }

func (r *recordHost) Put(context.Context, string, io.Reader, host.PutOptions) error {
	return errReadAhead
}

func (r *recordHost) Get(context.Context, string) (io.ReadCloser, error) { return nil, errReadAhead }

func (r *recordHost) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, errReadAhead
}

package host

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Answer is what one command of a batch left, as Run would have returned
// it: Err is an *ExitError for a non-zero exit.
type Answer struct {
	Result Result
	Err    error
}

// RunBatch runs cmds one after another in a single command on h and
// returns each one's answer. A command costs a session of its own (over
// SSH about 30 ms of the host's CPU before it does anything, and a round
// trip); a batch of N costs one. It is for commands that only read (an
// op's check, a fact): each runs in a subshell of its own with no stdin,
// so none sees another's variables, exit or redirections, but they share
// the batch's timeout. Commands with Stdin or their own Stdout/Stderr
// writers are refused. err means the batch as a whole did not run or its
// answer could not be read: the caller runs the commands one by one.
func RunBatch(ctx context.Context, h Host, label string, timeout time.Duration, cmds []Cmd) ([]Answer, error) {
	var b strings.Builder
	secret := false
	// The outputs wait in a root-only temp dir, removed at the end, and on
	// TERM (timeout's, over SSH; a local timeout's KILL leaves it).
	b.WriteString("wptest_batch=$(mktemp -d) || exit 1\ntrap 'rm -rf -- \"$wptest_batch\"' EXIT\ntrap 'exit 143' TERM HUP INT\nwptest_batch_x=\n")
	var files []string
	for i, c := range cmds {
		if c.Stdin != nil || c.Stdout != nil || c.Stderr != nil {
			return nil, fmt.Errorf("batch %s: command %d (%s) has its own streams", label, i, labelOf(c))
		}
		if err := checkScript(c.Script); err != nil {
			return nil, fmt.Errorf("batch %s: %s: %w", label, labelOf(c), err)
		}
		secret = secret || c.SecretStdout
		// The script on lines of its own: a comment on its last line
		// does not swallow the closing parenthesis.
		// Each output ends in a byte the batch adds after it: where it
		// cannot be written (a full /tmp), the output may be cut short,
		// and the batch fails rather than answer with it.
		fmt.Fprintf(&b, "(\nunset wptest_batch wptest_batch_x\n%s\n) </dev/null >\"$wptest_batch/o%[2]d\" 2>\"$wptest_batch/e%[2]d\"; wptest_batch_x=\"$wptest_batch_x $?\"\n"+
			"printf . >>\"$wptest_batch/o%[2]d\" && printf . >>\"$wptest_batch/e%[2]d\" || exit 1\n", c.Script, i)
		files = append(files, "o"+strconv.Itoa(i), "e"+strconv.Itoa(i))
	}
	b.WriteString("echo \"wptest-batch$wptest_batch_x\"\n")
	if len(files) > 0 {
		fs := strings.Join(files, " ")
		b.WriteString("cd \"$wptest_batch\" && stat -c %s " + fs + " && cat " + fs + "\n")
	}
	res, err := h.Run(ctx, Cmd{Script: b.String(), Label: label, Timeout: timeout, SecretStdout: secret})
	if err != nil {
		return nil, err
	}
	return parseBatch(h.Name(), cmds, res.Stdout)
}

// parseBatch reads RunBatch's answer: "wptest-batch" and each exit code on
// a line, each stdout's and stderr's size on a line of its own, then their
// bytes in that order, each ending in the batch's ".".
func parseBatch(hostName string, cmds []Cmd, out []byte) ([]Answer, error) {
	bad := func(why string) ([]Answer, error) {
		return nil, fmt.Errorf("[%s] batch answer unreadable: %s", hostName, why)
	}
	line := func() (string, bool) {
		i := bytes.IndexByte(out, '\n')
		if i < 0 {
			return "", false
		}
		l := string(out[:i])
		out = out[i+1:]
		return l, true
	}
	head, ok := line()
	f := strings.Fields(head)
	if !ok || len(f) != len(cmds)+1 || f[0] != "wptest-batch" {
		return bad(fmt.Sprintf("first line %q for %d commands", head, len(cmds)))
	}
	sizes := make([]int, 2*len(cmds))
	for i := range sizes {
		l, ok := line()
		n, err := strconv.Atoi(l)
		if !ok || err != nil || n < 1 {
			return bad(fmt.Sprintf("size %q", l))
		}
		sizes[i] = n
	}
	total := 0
	for _, n := range sizes {
		total += n
	}
	if total != len(out) {
		return bad(fmt.Sprintf("%d bytes of output for sizes adding up to %d", len(out), total))
	}
	answers := make([]Answer, len(cmds))
	for i, c := range cmds {
		code, err := strconv.Atoi(f[i+1])
		if err != nil {
			return bad(fmt.Sprintf("exit code %q", f[i+1]))
		}
		stdout, stderr := out[:sizes[2*i]], out[sizes[2*i]:sizes[2*i]+sizes[2*i+1]]
		out = out[sizes[2*i]+sizes[2*i+1]:]
		if stdout[len(stdout)-1] != '.' || stderr[len(stderr)-1] != '.' {
			return bad(fmt.Sprintf("%s's output does not end in the batch's mark", labelOf(c)))
		}
		stdout, stderr = stdout[:len(stdout)-1], stderr[:len(stderr)-1]
		res := Result{Exit: code, Stdout: stdout, Stderr: stderr}
		answers[i].Result = res
		if code != 0 {
			answers[i].Err = &ExitError{Host: hostName, Label: c.Label, Code: code, Stderr: stderr, Stdout: errStdout(c, res)}
		}
	}
	return answers, nil
}

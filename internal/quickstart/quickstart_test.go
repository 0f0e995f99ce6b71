package quickstart

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/testenv"
)

// The README's blocks this package runs, by their fence info strings: the
// quick start with internet, then its offline variant.
const (
	onlineBlock  = "sh quickstart"
	offlineBlock = "sh quickstart-offline"
)

// repoRoot is the checkout: two directories above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// codeBlock is the body of the one fenced block whose info string is
// info exactly; "" when there is none.
func codeBlock(md, info string) string {
	var body []string
	in, found := false, false
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && strings.TrimSpace(line) == "```"+info:
			in, found = true, true
		case in && strings.TrimSpace(line) == "```":
			in = false
		case in:
			body = append(body, line)
		}
	}
	if !found {
		return ""
	}
	return strings.Join(body, "\n")
}

// commands splits a shell block into its commands as a reader types them:
// a line ending in a backslash continues on the next; blank lines and
// comments are not commands.
func commands(block string) []string {
	var cmds []string
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(cont)
			continue
		}
		cur.WriteString(line)
		c := strings.TrimSpace(cur.String())
		cur.Reset()
		if c != "" && !strings.HasPrefix(c, "#") {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// measures reports whether cmd is a run that would measure on this
// machine (and change it): the test runs it with --plan.
func measures(cmd string) bool {
	return strings.Contains(cmd, "wptest run ") && strings.Contains(cmd, "--target local") && !strings.Contains(cmd, "--plan")
}

// TestQuickStartBlocks: the README has both blocks, and they are the
// quick start the test below runs: build, then the main job on this
// machine, the offline one with the mod_ruid2 copy the prose names.
func TestQuickStartBlocks(t *testing.T) {
	md := readme(t)
	for _, tc := range []struct {
		info string
		want []string // substrings of the block's last command
	}{
		{onlineBlock, []string{"./bin/wptest run experiments/quick.hcl", "--target local"}},
		{offlineBlock, []string{"./bin/wptest run experiments/quick.hcl", "--target local", "-var ruid2_source_url=file://$RUID2"}},
	} {
		cmds := commands(codeBlock(md, tc.info))
		if len(cmds) < 2 {
			t.Errorf("README.md: block ```%s has %d commands, want make build and a run", tc.info, len(cmds))
			continue
		}
		if cmds[0] != "make build" {
			t.Errorf("README.md: block ```%s starts with %q, want make build", tc.info, cmds[0])
		}
		last := cmds[len(cmds)-1]
		for _, w := range tc.want {
			if !strings.Contains(last, w) {
				t.Errorf("README.md: block ```%s ends with %q, which lacks %q", tc.info, last, w)
			}
		}
		if !measures(last) {
			t.Errorf("README.md: block ```%s ends with %q, not a run on this machine", tc.info, last)
		}
	}
	if got := commands("a \\\n  b\n\n# note\nc"); strings.Join(got, "|") != "a   b|c" {
		t.Errorf("commands: %q", got)
	}
}

// TestQuickStartRuns runs the README's quick start as written, in the
// checkout, in order: the block with internet, then the offline one (with
// RUID2 the copy of mod_ruid2.c beside the checkout, as its prose asks).
// A run that would measure on this machine gets --plan, so every command
// runs without installing servers (the main job in full, with the same
// flags, is experiment.TestQuickLocalKillResume's). It fails on the first
// command that does not exit 0.
func TestQuickStartRuns(t *testing.T) {
	testenv.Integration(t) // it builds wptest with make
	testenv.NeedBinary(t, "make")
	testenv.NeedBinary(t, "go")
	ruid2 := testenv.Ruid2Source(t)
	root, md := repoRoot(t), readme(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, info := range []string{onlineBlock, offlineBlock} {
		cmds := commands(codeBlock(md, info))
		if len(cmds) == 0 {
			t.Fatalf("README.md has no ```%s block", info)
		}
		for _, c := range cmds {
			run := c
			if measures(c) {
				run += " --plan"
			}
			cmd := exec.CommandContext(ctx, "/bin/sh", "-ec", run)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "RUID2="+ruid2)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("README.md ```%s: %q (run as %q in %s): %v\n%s", info, c, run, root, err, tail(string(out), 30))
			}
			t.Logf("```%s: %s: ok", info, run)
		}
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// mdLink is a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks: every relative link in README.md and docs/*.md leads to a
// file or directory of the checkout, and a #fragment to a heading of the
// Markdown file it names.
func TestDocLinks(t *testing.T) {
	root := repoRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	for _, f := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			if msg := checkLink(f, m[1]); msg != "" {
				t.Errorf("%s: link %s: %s", rel, m[1], msg)
			}
		}
	}
}

// checkLink says what is wrong with link target in file from ("" if
// nothing): web links are not followed.
func checkLink(from, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	path, frag, _ := strings.Cut(target, "#")
	dest := from
	if path != "" {
		dest = filepath.Join(filepath.Dir(from), filepath.FromSlash(path))
		if _, err := os.Stat(dest); err != nil {
			return "no such file"
		}
	}
	if frag == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	b, err := os.ReadFile(dest)
	if err != nil {
		return err.Error()
	}
	if !anchors(string(b))[frag] {
		return "no heading #" + frag + " in " + filepath.Base(dest)
	}
	return ""
}

// anchors are the ids GitHub gives a Markdown file's headings: lower case,
// spaces as hyphens, punctuation but - and _ dropped.
func anchors(md string) map[string]bool {
	ids := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var id strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				id.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				id.WriteRune(r)
			}
		}
		ids[id.String()] = true
	}
	return ids
}

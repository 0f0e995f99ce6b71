package srvstat

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/testenv"
)

func TestParseGroup(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Group
		err  string
	}{
		{in: "name=php,exe=ea-php82|php-fpm8.2,user=wpsite", want: Group{Name: "php", Exe: []string{"ea-php82", "php-fpm8.2"}, Users: []string{"wpsite"}}},
		{in: "name=web,exe=apache2|httpd*", want: Group{Name: "web", Exe: []string{"apache2", "httpd*"}}},
		{in: "name=db,comm=mariadbd,users=mysql|0", want: Group{Name: "db", Exe: []string{"mariadbd"}, Users: []string{"mysql", "0"}}},
		{in: "web=apache2,httpd", want: Group{Name: "web", Exe: []string{"apache2*", "httpd*"}}}, // the older form: prefixes
		{in: "name=web,exe=apache2,pid=1", err: `unknown key "pid"`},
		{in: "bad", err: "want name=NAME,exe="},
	} {
		g, err := ParseGroup(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(g, c.want) {
			t.Errorf("%q: %+v %v, want %+v", c.in, g, err, c.want)
		}
	}
}

func TestCheckGroups(t *testing.T) {
	for _, c := range []struct {
		gs  []Group
		err string
	}{
		{gs: DefaultGroups},
		{gs: []Group{{Name: "php", Exe: []string{"php-fpm8.2"}, Users: []string{"root", "0"}}}},
		{gs: []Group{{Name: "other", Exe: []string{"x"}}}, err: "want a name of its own"},
		{gs: []Group{{Name: "a", Exe: []string{"x"}}, {Name: "a", Exe: []string{"y"}}}, err: `"a" given twice`},
		{gs: []Group{{Name: "a"}}, err: "no executable names"},
		{gs: []Group{{Name: "a", Exe: []string{"/usr/bin/x"}}}, err: "want a file name"},
		{gs: []Group{{Name: "a", Exe: []string{"x*y"}}}, err: "want a file name"},
		{gs: []Group{{Name: "a", Exe: []string{"x"}, Users: []string{"no-such-user-srvstat"}}}, err: "no-such-user-srvstat"},
	} {
		err := CheckGroups(c.gs)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%+v: %v, want %q", c.gs, err, c.err)
		}
	}
	// A bad group stops every sample, with the reason.
	if _, err := New(Config{Groups: []Group{{Name: Other, Exe: []string{"x"}}}}).Sample(context.Background()); err == nil {
		t.Error("sampled with a group named other")
	}
	gs := []Group{{Name: "php", Exe: []string{"ea-php82", "php-fpm8.2"}, Users: []string{"wpsite"}}, {Name: "web", Exe: []string{"httpd*"}}}
	args := GroupArgs(gs)
	back, err := ParseGroups([]byte(args[1]))
	if args[0] != "--groups" || err != nil || !reflect.DeepEqual(back, gs) {
		t.Errorf("GroupArgs %q read back as %+v, %v", args, back, err)
	}
	if _, err := ParseGroups([]byte(`[{"name": "web", "comms": ["apache2"]}]`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}

// Real processes: one started through a symlink (cPanel's ea-php82 →
// php-cgi8.2) matches by either name; a script matches by its name (its
// exe is the shell), and its child by ancestry; a group with a user takes
// only that user's processes.
func TestGroupsMatchExeCommAndUser(t *testing.T) {
	testenv.NeedRoot(t)
	sleep := testenv.NeedBinary(t, "sleep")
	// Not t.TempDir: its parent is closed to www-data.
	dir, err := os.MkdirTemp("", "srvstat-groups-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	// A binary of its own name, started through a symlink of another.
	bin := filepath.Join(dir, "srvstat-target")
	b, err := os.ReadFile(sleep)
	must(t, err)
	must(t, os.WriteFile(bin, b, 0o755))
	must(t, os.Symlink(bin, filepath.Join(dir, "srvstat-link")))
	must(t, os.WriteFile(filepath.Join(dir, "srvstat-script"), []byte("#!/bin/sh\n"+sleep+" 60 &\nread x\n"), 0o755))
	start := func(name string, uid uint32) *exec.Cmd {
		c := exec.Command(filepath.Join(dir, name), "60")
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}, Setpgid: true}
		if name == "srvstat-script" {
			c.Args = c.Args[:1]
			in, err := c.StdinPipe()
			must(t, err)
			t.Cleanup(func() { in.Close() })
		}
		c.Stdout, c.Stderr = io.Discard, io.Discard
		must(t, c.Start())
		t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
		return c
	}
	start("srvstat-link", 0)
	start("srvstat-script", 0)
	start("srvstat-target", 33)
	start("srvstat-target", 0)
	count := func(gs []Group) map[string]int {
		s := New(Config{Groups: gs, NoPSS: true})
		defer s.Close()
		out := map[string]int{}
		for g, u := range sample(t, s).Groups {
			out[g] = u.Procs
		}
		return out
	}
	var got map[string]int
	testenv.WaitFor(t, time.Minute, "the script's child", func() bool {
		got = count([]Group{{Name: "script", Exe: []string{"srvstat-script"}}})
		return got["script"] == 2
	})
	for _, c := range []struct {
		gs   []Group
		want map[string]int
	}{
		{[]Group{{Name: "link", Exe: []string{"srvstat-link"}}}, map[string]int{"link": 1}},       // by comm
		{[]Group{{Name: "target", Exe: []string{"srvstat-target"}}}, map[string]int{"target": 3}}, // by exe
		{[]Group{{Name: "target", Exe: []string{"srvstat-tar*"}}}, map[string]int{"target": 3}},   // prefix
		{[]Group{{Name: "site", Exe: []string{"srvstat-target"}, Users: []string{"www-data"}}}, map[string]int{"site": 1}},
		{[]Group{{Name: "site", Exe: []string{"srvstat-target"}, Users: []string{"33"}}, {Name: "any", Exe: []string{"srvstat-target"}}}, map[string]int{"site": 1, "any": 2}},
	} {
		got := count(c.gs)
		for g, n := range c.want {
			if got[g] != n {
				t.Errorf("%+v: %s has %d processes, want %d", c.gs, g, got[g], n)
			}
		}
	}
}

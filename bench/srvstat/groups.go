package srvstat

import (
	"encoding/json"
	"fmt"
	"os/user"
	"strconv"
	"strings"
)

// Group is a process group: a name and what identifies its processes. The
// caller says which groups there are (wptest passes the live profile's, from
// the host manifest); DefaultGroups are only the fallback when none are given.
//
// A process belongs to the first group that claims it by its own name (and
// user, if the group names users); else to the group of its nearest ancestor
// that a group claims (a shell spawned by Apache is Apache's); else to Other.
type Group struct {
	Name string `json:"name"`
	// Exe: executable names. A process matches when one equals the base
	// name of /proc/PID/exe or its comm: the name it was started as, which
	// is the script's name when its exe is an interpreter, and a symlink's
	// name when started through one (cPanel's ea-php82 → php-cgi8.2 has
	// comm ea-php82 and exe php-cgi8.2). comm holds 15 bytes: a longer name
	// matches a comm of its first 15. A trailing "*" makes a prefix
	// ("php-fpm*").
	Exe []string `json:"exe"`
	// Users: user names or numeric uids; when given, only processes running
	// as one of them (effective uid; real uid for exited processes) match.
	Users []string `json:"users,omitempty"`
}

// DefaultGroups are the seeds' servers by name prefix, for when the caller
// gives no groups (`wptest srvstat` without --group/--groups).
var DefaultGroups = []Group{
	{Name: "web", Exe: []string{"apache2*", "httpd*", "caddy*", "nginx*", "corehttpd*"}},
	{Name: "php-cgi", Exe: []string{"php-cgi*"}},
	{Name: "php-fpm", Exe: []string{"php-fpm*"}},
	{Name: "db", Exe: []string{"mariadbd*", "mysqld*"}},
}

// Other is the group of every process no named group claims.
const Other = "other"

// commLen is the most of a name /proc/PID/comm holds (TASK_COMM_LEN - 1).
const commLen = 15

// matcher is a Group ready to match.
type matcher struct {
	name     string
	exact    map[string]bool // exe names, and their comm (first 15 bytes)
	prefixes []string
	users    map[uint32]bool // nil: any user
}

// names says whether comm or exe is one of the group's names.
func (m *matcher) names(comm, exe string) bool {
	if m.exact[comm] || (exe != "" && m.exact[exe]) {
		return true
	}
	for _, p := range m.prefixes {
		if (exe != "" && strings.HasPrefix(exe, p)) || strings.HasPrefix(comm, p[:min(len(p), commLen)]) {
			return true
		}
	}
	return false
}

// CheckGroups says what is wrong with gs, if anything: every group needs a
// name (not "other", not repeated) and executable names, and its users must
// exist on this machine.
func CheckGroups(gs []Group) error {
	_, err := compileGroups(gs)
	return err
}

func compileGroups(gs []Group) ([]matcher, error) {
	seen := map[string]bool{}
	out := make([]matcher, 0, len(gs))
	for _, g := range gs {
		if g.Name == "" || g.Name == Other || strings.ContainsAny(g.Name, ",|= ") {
			return nil, fmt.Errorf("srvstat: group %q: want a name of its own (not %q, no ',|= ')", g.Name, Other)
		}
		if seen[g.Name] {
			return nil, fmt.Errorf("srvstat: group %q given twice", g.Name)
		}
		seen[g.Name] = true
		if len(g.Exe) == 0 {
			return nil, fmt.Errorf("srvstat: group %q: no executable names", g.Name)
		}
		m := matcher{name: g.Name, exact: map[string]bool{}}
		for _, e := range g.Exe {
			base, prefix := strings.CutSuffix(e, "*")
			if base == "" || strings.ContainsAny(base, "/,|=* ") {
				return nil, fmt.Errorf("srvstat: group %q: executable name %q: want a file name, optionally ending in *", g.Name, e)
			}
			if prefix {
				m.prefixes = append(m.prefixes, base)
			} else {
				m.exact[base] = true
				m.exact[base[:min(len(base), commLen)]] = true
			}
		}
		if len(g.Users) > 0 {
			m.users = map[uint32]bool{}
			for _, u := range g.Users {
				uid, err := lookupUID(u)
				if err != nil {
					return nil, fmt.Errorf("srvstat: group %q: %w", g.Name, err)
				}
				m.users[uid] = true
			}
		}
		out = append(out, m)
	}
	return out, nil
}

func lookupUID(u string) (uint32, error) {
	if n, err := strconv.ParseUint(u, 10, 32); err == nil {
		return uint32(n), nil
	}
	usr, err := user.Lookup(u)
	if err != nil {
		return 0, fmt.Errorf("user %q: %w", u, err)
	}
	n, err := strconv.ParseUint(usr.Uid, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("user %q: uid %q: %w", u, usr.Uid, err)
	}
	return uint32(n), nil
}

// ParseGroup reads one --group value: "name=web,exe=apache2|httpd,user=www-data"
// (exe and user lists separated by "|"; user optional), or the older
// "web=apache2,httpd", whose names are prefixes.
func ParseGroup(s string) (Group, error) {
	if !strings.HasPrefix(s, "name=") {
		name, names, ok := strings.Cut(s, "=")
		if !ok || name == "" || names == "" {
			return Group{}, fmt.Errorf("--group %q: want name=NAME,exe=EXE1|EXE2[,user=USER1|USER2]", s)
		}
		g := Group{Name: name}
		for _, n := range strings.Split(names, ",") {
			g.Exe = append(g.Exe, strings.TrimSuffix(n, "*")+"*")
		}
		return g, nil
	}
	var g Group
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		var list []string
		if v != "" {
			list = strings.Split(v, "|")
		}
		switch k {
		case "name":
			g.Name = v
		case "exe", "comm":
			g.Exe = append(g.Exe, list...)
		case "user", "users":
			g.Users = append(g.Users, list...)
		default:
			return Group{}, fmt.Errorf("--group %q: unknown key %q (want name, exe, user)", s, k)
		}
	}
	return g, nil
}

// ParseGroups reads groups as JSON: [{"name": "web", "exe": ["apache2"], "users": ["www-data"]}, ...].
func ParseGroups(b []byte) ([]Group, error) {
	var gs []Group
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&gs); err != nil {
		return nil, fmt.Errorf("--groups: %w", err)
	}
	return gs, nil
}

// GroupArgs are `wptest srvstat`'s arguments that pass gs (for RunRemote).
func GroupArgs(gs []Group) []string {
	b, _ := json.Marshal(gs)
	return []string{"--groups", string(b)}
}

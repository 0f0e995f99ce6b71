package hostmanifest

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/golden"
	"golang.org/x/tools/txtar"
)

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct {
		name, old, cur string
		want           []string
	}{
		{"directive", "ServerLimit 150\nMaxRequestWorkers 150\nKeepAlive On\n", "ServerLimit 150\nMaxRequestWorkers 400\nKeepAlive On\n",
			[]string{"MaxRequestWorkers 150 → 400"}},
		{"ini", "[PHP]\nmemory_limit = 128M\nmax_execution_time = 30\n", "[PHP]\nmemory_limit = 256M\nmax_execution_time = 30\n",
			[]string{"memory_limit = 128M → 256M"}},
		{"pool, indented", "[wpsite]\n  pm = static\n  pm.max_children = 8\n", "[wpsite]\n  pm = static\n  pm.max_children = 50\n",
			[]string{"pm.max_children = 8 → 50"}},
		{"added and removed", "a = 1\nb = 2\n", "a = 1\nc = 3\n", []string{"removed: b = 2", "added: c = 3"}},
		{"blank lines and indentation only", "a = 1\n\nb = 2\n", "a = 1\n   b = 2\n\n\n", nil},
		{"secret", "[client]\npassword = old-secret\n", "[client]\npassword = new-secret\n", []string{"password changed (value not shown)"}},
		{"not text", "a = 1\n", "a = \x00\n", nil},
		{"many", "", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", []string{"added: 1", "added: 2", "added: 3", "added: 4", "added: 5", "added: 6", "added: 7", "added: 8", "and 2 more changed lines"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LineDiff([]byte(tc.old), []byte(tc.cur))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// A long file with one change deep inside: the common head and tail are
// cut before the table, so the diff stays small.
func TestLineDiffLong(t *testing.T) {
	var a, b strings.Builder
	for i := range 20000 {
		line := "key" + strings.Repeat("x", i%7) + " = " + string(rune('a'+i%26)) + "\n"
		a.WriteString(line)
		if i == 15000 {
			line = "memory_limit = 256M\n"
		}
		b.WriteString(line)
	}
	got := LineDiff([]byte(a.String()), []byte(b.String()))
	if len(got) != 2 || !strings.HasPrefix(got[0], "removed: ") || got[1] != "added: memory_limit = 256M" {
		t.Errorf("got %q", got)
	}
}

func file(p, watch, in, sum string, size int64) Entry {
	return Entry{Path: p, Kind: KindFile, Watch: watch, In: in, SHA256: sum, Size: size, Holder: "root", Copied: true}
}

func TestCompareWords(t *testing.T) {
	conf := file("/etc/apache2/apache2.conf", "", "", "aa", 10)
	ini := file("/etc/php/8.4/cgi/php.ini", "php-cgi", "", "bb", 10)
	dir := Entry{Path: "/usr/local/lib/wptest/php-cgi.d", Kind: KindDir, Watch: "php-cgi", Holder: "root"}
	link := Entry{Path: "/usr/local/lib/wptest/php-cgi.d/20-mysqli.ini", Kind: KindLink, Target: "/etc/php/8.4/mods-available/mysqli.ini", Watch: "php-cgi", In: dir.Path}
	opc := file("/usr/local/lib/wptest/php-cgi.d/10-opcache.ini", "php-cgi", dir.Path, "cc", 5)
	secret := Entry{Path: "/etc/wptest/x.env", Kind: KindFile, SHA256: "dd", Size: 3, Sensitive: true}
	rec := &Record{Entries: []Entry{conf, ini, dir, link, secret}, Database: &DBLogin{Credentials: "/etc/wptest/site-db.env", OK: true}}

	changed := func(e Entry, sum string) Entry { e.SHA256 = sum; return e }
	relinked := link
	relinked.Target = "/tmp/evil.ini"
	for _, tc := range []struct {
		name string
		live []Entry
		db   *DBLogin
		want []string
	}{
		{"none", rec.Entries, rec.Database, nil},
		{"written file", []Entry{changed(conf, "a2"), ini, dir, link, secret}, rec.Database, []string{"/etc/apache2/apache2.conf changed since up"}},
		{"watched file", []Entry{conf, changed(ini, "b2"), dir, link, secret}, rec.Database, []string{"/etc/php/8.4/cgi/php.ini (php-cgi) changed since up"}},
		{"added to a watched directory", []Entry{conf, ini, dir, opc, link, secret}, rec.Database,
			[]string{"a file was added to /usr/local/lib/wptest/php-cgi.d (php-cgi): 10-opcache.ini"}},
		{"removed from a watched directory", []Entry{conf, ini, dir, secret}, rec.Database,
			[]string{"a link was removed from /usr/local/lib/wptest/php-cgi.d (php-cgi): 20-mysqli.ini"}},
		{"link retargeted", []Entry{conf, ini, dir, relinked, secret}, rec.Database,
			[]string{"/usr/local/lib/wptest/php-cgi.d/20-mysqli.ini changed since up: a link to /etc/php/8.4/mods-available/mysqli.ini, now to /tmp/evil.ini"}},
		{"file replaced by a link", []Entry{{Path: conf.Path, Kind: KindLink, Target: "/etc/shadow"}, ini, dir, link, secret}, rec.Database,
			[]string{"/etc/apache2/apache2.conf changed since up: it was a file, now a link to /etc/shadow"}},
		{"file removed", []Entry{conf, {Path: ini.Path, Kind: KindAbsent, Watch: "php-cgi"}, dir, link, secret}, rec.Database,
			[]string{"/etc/php/8.4/cgi/php.ini (php-cgi) was removed since up (it was a file)"}},
		{"sensitive: no sizes, no lines", []Entry{conf, ini, dir, link, changed(secret, "d2")}, rec.Database, []string{"/etc/wptest/x.env changed since up"}},
		{"database login", rec.Entries, &DBLogin{Credentials: "/etc/wptest/site-db.env", Error: "ERROR 1045 (28000): Access denied for user 'wpsite'@'localhost' (using password: YES)"},
			[]string{"database login for the site fails: ERROR 1045 (28000): Access denied for user 'wpsite'@'localhost' (using password: YES)"}},
		{"database stopped", rec.Entries, &DBLogin{Credentials: "/etc/wptest/site-db.env", Error: dbNotRunning + "ERROR 2002 (HY000): Can't connect to local server through socket '/run/mysqld/mysqld.sock' (2)"},
			[]string{"the database server is not running (stopped, not changed): " + dbNotRunning + "ERROR 2002 (HY000): Can't connect to local server through socket '/run/mysqld/mysqld.sock' (2)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, d := range Compare(rec, &Record{Entries: tc.live, Database: tc.db}) {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// A database that does not answer is a state of the server, not an edit:
// Edits leaves it out, and keeps a refused login and a changed file.
func TestEditsLeaveAStoppedDatabase(t *testing.T) {
	rec := &Record{Entries: []Entry{{Path: "/etc/a.conf", Kind: KindFile, SHA256: "a"}}, Database: &DBLogin{Credentials: "/c", OK: true}}
	for _, tc := range []struct {
		err   string
		edits int
	}{
		{dbNotRunning + "ERROR 2002 (HY000): Can't connect to local server through socket '/run/mysqld/mysqld.sock' (2)", 0},
		{dbNotRunning + "ERROR 2003 (HY000): Can't connect to server on '127.0.0.1' (115)", 0},
		// A server runs, the login reached none: DB_HOST was changed.
		{"ERROR 2003 (HY000): Can't connect to server on '127.0.0.1' (115)", 1},
		{"ERROR 1045 (28000): Access denied for user 'wpsite'@'localhost' (using password: YES)", 1},
		{"ERROR 1049 (42000): Unknown database 'wptest_site'", 1},
	} {
		ds := Compare(rec, &Record{Entries: rec.Entries, Database: &DBLogin{Credentials: "/c", Error: tc.err}})
		if len(ds) != 1 || len(Edits(ds)) != tc.edits || ds[0].Down != (tc.edits == 0) {
			t.Errorf("%s: drifts %+v, %d edit(s), want %d", tc.err, ds, len(Edits(ds)), tc.edits)
		}
	}
	changed := &Record{Entries: []Entry{{Path: "/etc/a.conf", Kind: KindFile, SHA256: "b"}}, Database: &DBLogin{Credentials: "/c", Error: dbNotRunning + "ERROR 2002 (HY000): x"}}
	if got := Edits(Compare(rec, changed)); len(got) != 1 || got[0].Path != "/etc/a.conf" {
		t.Errorf("a changed file beside a stopped database: edits %+v", got)
	}
}

// The record's file form: what the host keeps in DriftDir.
func TestRecordGolden(t *testing.T) {
	r := &Record{Schema: RecordSchema, Entries: []Entry{
		file("/etc/apache2/apache2.conf", "", "", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", 4211),
		{Path: "/etc/php/8.4/cgi/conf.d", Kind: KindDir, Watch: "php-cgi", Holder: "root"},
		{Path: "/etc/php/8.4/cgi/conf.d/10-opcache.ini", Kind: KindLink, Target: "/etc/php/8.4/mods-available/opcache.ini", Watch: "php-cgi", In: "/etc/php/8.4/cgi/conf.d", Holder: "root"},
		{Path: "/etc/wptest/site-db.env", Kind: KindFile, SHA256: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752", Size: 120, Holder: "root", Sensitive: true},
		{Path: "/home/wpsite/public_html/wptest-info.php", Kind: KindFile, SHA256: "-", Size: 1 << 30, Holder: "wpsite"},
	}, Database: &DBLogin{Credentials: "/etc/wptest/site-db.env", OK: true}}
	b, err := MarshalRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	golden.Archive(t, "testdata/drift-record.txtar", &txtar.Archive{
		Comment: []byte("The drift record (/var/lib/wptest/drift/record.json).\nRegenerate: go test ./provision/hostmanifest -run TestRecordGolden -update\n"),
		Files:   []txtar.File{{Name: "record.json", Data: b}},
	})
}

// An apply resets a drift when its record holds the path as the one
// before it did: a file written again, an added entry gone, the login
// working; a watched file it does not write stays changed.
func TestReset(t *testing.T) {
	conf := file("/etc/apache2/apache2.conf", "", "", "aa", 10)
	ini := file("/etc/php/8.4/cgi/php.ini", "php-cgi", "", "bb", 10)
	opc := file("/usr/local/lib/wptest/php-cgi.d/10-opcache.ini", "php-cgi", "/usr/local/lib/wptest/php-cgi.d", "cc", 5)
	old := &Record{Entries: []Entry{conf, ini}, Database: &DBLogin{OK: true}}
	edited := ini
	edited.SHA256 = "b2"
	cur := &Record{Entries: []Entry{conf, edited}, Database: &DBLogin{OK: true}}
	other := &Record{Entries: []Entry{conf}, Database: &DBLogin{OK: true}} // a profile that does not watch php.ini
	drifts := Compare(old, &Record{Entries: []Entry{{Path: conf.Path, Kind: KindFile, SHA256: "a2", Size: 10}, edited, opc}, Database: &DBLogin{Error: "denied"}})
	var got []string
	for _, d := range drifts {
		got = append(got, Reset(old, cur, d)+": "+d.What)
	}
	want := []string{
		"reset: /etc/apache2/apache2.conf changed since up",
		"kept: /etc/php/8.4/cgi/php.ini (php-cgi) changed since up",
		"reset: a file was added to /usr/local/lib/wptest/php-cgi.d (php-cgi): 10-opcache.ini",
		"reset: database login for the site fails",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := Reset(old, other, drifts[1]); got != DriftLeft {
		t.Errorf("php.ini after a profile that does not watch it: %s, want %s", got, DriftLeft)
	}
}

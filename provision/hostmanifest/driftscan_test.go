package hostmanifest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision"
)

// The scan on a real shell, as root: it records, keeps copies in its own
// directory, and the next scan names each hand edit with its lines. A
// user's directory is read as that user: a link planted there (at the
// path, or a directory on the way) is never followed by root, and a huge
// file is hashed up to its bound and never copied.
func TestDriftScanLocal(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "setpriv")
	ctx := context.Background()
	base := t.TempDir()
	must(t, os.Chmod(base, 0o755))
	must(t, os.Chmod(filepath.Dir(base), 0o755)) // t.TempDir makes it 0700
	etc, site, secret, dir := filepath.Join(base, "etc"), filepath.Join(base, "site"), filepath.Join(base, "secret"), filepath.Join(base, "drift")
	confd := filepath.Join(etc, "conf.d")
	for _, d := range []string{etc, confd, site, secret} {
		must(t, os.MkdirAll(d, 0o755))
	}
	must(t, os.Chmod(secret, 0o700))
	write(t, filepath.Join(secret, "shadow"), "root:topsecret\n")
	write(t, filepath.Join(etc, "httpd.conf"), "ServerLimit 150\nMaxRequestWorkers 150\n")
	write(t, filepath.Join(etc, "php.ini"), "[PHP]\nmemory_limit = 128M\n")
	write(t, filepath.Join(confd, "20-mysqli.ini"), "extension=mysqli\n")
	// A file larger than the directory's entry bound, listed first: the
	// entries after it are listed all the same.
	write(t, filepath.Join(confd, "05-big.ini"), strings.Repeat("; comment\n", maxEntries))
	write(t, filepath.Join(site, "probe.css"), "body{}\n")
	write(t, filepath.Join(site, "info.php"), "<?php\n")
	must(t, os.MkdirAll(filepath.Join(site, "sub"), 0o755))
	write(t, filepath.Join(site, "sub", "x.php"), "<?php\n")
	write(t, filepath.Join(etc, "huge.bin"), "")
	must(t, os.Truncate(filepath.Join(etc, "huge.bin"), MaxHash+1))
	// The site's files and directories are nobody's (uid 65534), as the
	// site user's docroot is.
	for _, p := range []string{site, filepath.Join(site, "probe.css"), filepath.Join(site, "info.php"), filepath.Join(site, "sub"), filepath.Join(site, "sub", "x.php")} {
		must(t, os.Lchown(p, 65534, 65534))
	}

	m := &Manifest{
		Written: []provision.Written{{Path: filepath.Join(etc, "httpd.conf"), Op: "file.httpd_conf"}, {Path: filepath.Join(site, "probe.css"), Op: "file.probe"},
			{Path: filepath.Join(site, "info.php"), Op: "file.info"},
			{Path: filepath.Join(site, "sub", "x.php"), Op: "file.x"}, {Path: filepath.Join(etc, "huge.bin"), Op: "file.huge"}},
		Watch: []provision.Watch{{Name: "php-cgi", Paths: []string{filepath.Join(etc, "php.ini"), confd}}},
	}
	h := host.NewLocal(io.Discard)
	if _, err := recordDrift(ctx, h, m, dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("drift dir: %v %v, want 0700", fi.Mode(), err)
	}
	drifts, _, err := checkDrift(ctx, h, m, dir)
	must(t, err)
	if len(drifts) != 0 {
		t.Fatalf("right after the record: %v", drifts)
	}
	rec, err := readRecord(ctx, h, m, dir)
	must(t, err)
	if e := entryOf(rec, filepath.Join(etc, "huge.bin")); e == nil || e.SHA256 != "-" || e.Copied {
		t.Errorf("huge file recorded as %+v, want its size only", e)
	}

	// The edits: by root in root's files, by the site user in theirs.
	write(t, filepath.Join(etc, "httpd.conf"), "ServerLimit 150\nMaxRequestWorkers 400\n")
	write(t, filepath.Join(etc, "php.ini"), "[PHP]\nmemory_limit = 256M\n")
	write(t, filepath.Join(confd, "10-opcache.ini"), "zend_extension=opcache\n")
	write(t, filepath.Join(confd, "20-mysqli.ini"), "extension=mysqli\nmysqli.max_links = 10\n")
	must(t, os.Remove(filepath.Join(site, "probe.css")))
	must(t, os.Symlink(filepath.Join(secret, "shadow"), filepath.Join(site, "probe.css")))
	must(t, os.Lchown(filepath.Join(site, "probe.css"), 65534, 65534))
	// A FIFO: never opened (a read would wait for a writer).
	must(t, os.Remove(filepath.Join(site, "info.php")))
	must(t, syscall.Mkfifo(filepath.Join(site, "info.php"), 0o644))
	must(t, os.RemoveAll(filepath.Join(site, "sub")))
	must(t, os.Symlink(secret, filepath.Join(site, "sub")))
	must(t, os.Lchown(filepath.Join(site, "sub"), 65534, 65534))
	write(t, filepath.Join(secret, "x.php"), "root's own\n")

	drifts, _, err = checkDrift(ctx, h, m, dir)
	must(t, err)
	var got []string
	for _, d := range drifts {
		got = append(got, strings.ReplaceAll(d.String(), base, "B"))
	}
	want := []string{
		"a file was added to B/etc/conf.d (php-cgi): 10-opcache.ini",
		"B/etc/conf.d/20-mysqli.ini changed since up: added: mysqli.max_links = 10",
		"B/etc/httpd.conf changed since up: MaxRequestWorkers 150 → 400",
		"B/etc/php.ini (php-cgi) changed since up: memory_limit = 128M → 256M",
		"B/site/info.php changed since up: it was a file, now a fifo",
		"B/site/probe.css changed since up: it was a file, now a link to B/secret/shadow",
		// Read as nobody through the planted directory link: not there
		// for them, never root's file.
		"B/site/sub/x.php was removed since up (it was a file)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("drifts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	files, _ := os.ReadDir(filepath.Join(dir, "files"))
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(dir, "files", f.Name()))
		if strings.Contains(string(b), "topsecret") || strings.Contains(string(b), "root's own") {
			t.Errorf("copy %s holds root's file: %q", f.Name(), b)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

// A login that reaches no server while a database server runs on the host
// (DB_HOST pointed at a dead port by hand) is an edit, never a stopped
// database: the scan says no server ran only where none did.
func TestDriftScanLoginElsewhereIsAnEdit(t *testing.T) {
	testenv.MariaDB(t) // one runs on this host
	ctx := context.Background()
	base := t.TempDir()
	must(t, os.Chmod(base, 0o755))
	must(t, os.Chmod(filepath.Dir(base), 0o755))
	creds := filepath.Join(base, "site-db.env")
	write(t, creds, "DB_NAME=wptest_none\nDB_USER=wptest_none\nDB_PASSWORD=x\nDB_HOST=127.0.0.1:1\n")
	m := &Manifest{Site: &provision.Site{Database: creds}}
	_, db, err := scan(ctx, host.NewLocal(io.Discard), m, false, filepath.Join(base, "drift"))
	if err != nil {
		t.Fatal(err)
	}
	if db == nil || db.OK || !strings.Contains(db.Error, "ERROR 200") || strings.HasPrefix(db.Error, dbNotRunning) {
		t.Fatalf("login to a dead port with a server running: %+v", db)
	}
	rec := &Record{Database: &DBLogin{Credentials: creds, OK: true}}
	if ds := Compare(rec, &Record{Database: db}); len(Edits(ds)) != 1 || ds[0].Down {
		t.Errorf("drifts %+v: want one edit", ds)
	}
}

// The site's database credentials are scanned as a sensitive file: an
// edit to them (DB_HOST pointed elsewhere) is drift, with no copy kept.
func TestScanItemsHoldTheSiteCredentials(t *testing.T) {
	m := &Manifest{Site: &provision.Site{Database: "/etc/wptest/site-db.env"}, Watch: []provision.Watch{{Name: "MariaDB", Paths: []string{"/etc/mysql/conf.d"}}}}
	items := scanItems(m)
	if len(items) != 2 || items[1] != (scanItem{path: "/etc/wptest/site-db.env", sensitive: true}) {
		t.Errorf("scan items %+v, want the credentials file, sensitive", items)
	}
}

// A written file in a watched directory anyone may write in is unsafe,
// and only that: never also listed and copied as root's. A watched
// directory of root's with more entries than the bound says so, a
// written file among them counted.
func TestDriftScanWritableDirAndBound(t *testing.T) {
	testenv.NeedRoot(t)
	ctx := context.Background()
	base := t.TempDir()
	must(t, os.Chmod(base, 0o755))
	must(t, os.Chmod(filepath.Dir(base), 0o755))
	open, full := filepath.Join(base, "open"), filepath.Join(base, "full")
	must(t, os.MkdirAll(open, 0o755))
	must(t, os.Chmod(open, 0o777))
	must(t, os.MkdirAll(full, 0o755))
	write(t, filepath.Join(open, "w.ini"), "written\n")
	write(t, filepath.Join(open, "other.ini"), "other\n")
	for i := range maxEntries {
		write(t, filepath.Join(full, fmt.Sprintf("e%04d", i)), "")
	}
	write(t, filepath.Join(full, "zz-written"), "x\n")
	m := &Manifest{
		Written: []provision.Written{{Path: filepath.Join(open, "w.ini"), Op: "file.w"}, {Path: filepath.Join(full, "zz-written"), Op: "file.z"}},
		Watch:   []provision.Watch{{Name: "open", Paths: []string{open}}, {Name: "full", Paths: []string{full}}},
	}
	entries, _, err := scan(ctx, host.NewLocal(io.Discard), m, false, filepath.Join(base, "drift"))
	must(t, err)
	var w []Entry
	marker := false
	for _, e := range entries {
		if e.Path == filepath.Join(open, "w.ini") {
			w = append(w, e)
		}
		if e.Path == full && e.Kind == KindUnsafe && strings.Contains(e.Detail, "more than") {
			marker = true
		}
	}
	if len(w) != 1 || w[0].Kind != KindUnsafe {
		t.Errorf("written file in a directory anyone may write in: %+v, want one unsafe entry", w)
	}
	if !marker {
		t.Errorf("a directory of %d entries and a written file: no bound marker", maxEntries)
	}
}

package testenv

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Archives the tests make themselves, served as wordpress.org serves its
// own: this machine cannot reach wordpress.org, and a test must not depend
// on it anyway.

var wpArchive struct {
	mu   sync.Mutex
	made map[string][2][]byte // by version ("" as Debian's)
}

// WordPressArchive is Debian's WordPress tree (/usr/share/wordpress, the
// wordpress package) packed as wordpress.org packs a release: every file
// below wordpress/, symlinks followed (Debian's point to its own copies of
// bundled libraries), without the translations, Debian's wp-config.php and
// .htaccess. sums is the MD5 of every file in the format
// api.wordpress.org/core/checksums/1.0/ answers. Made once per process.
func WordPressArchive(t testing.TB) (tgz, sums []byte) {
	return WordPressArchiveAs(t, "")
}

// WordPressArchiveAs is WordPressArchive with $wp_version in
// wp-includes/version.php set to version: a stand-in for that release
// (Debian's code, the release's name), for a fixture that pins one this
// machine has no package of.
func WordPressArchiveAs(t testing.TB, version string) (tgz, sums []byte) {
	t.Helper()
	_, err := os.Stat("/usr/share/wordpress/wp-includes/version.php")
	Need(t, err == nil, "Debian's wordpress package (/usr/share/wordpress)")
	wpArchive.mu.Lock()
	defer wpArchive.mu.Unlock()
	if a, ok := wpArchive.made[version]; ok {
		return a[0], a[1]
	}
	tgz, sums, err = packWordPress("/usr/share/wordpress", version)
	if err != nil {
		t.Fatalf("pack Debian's WordPress: %v", err)
	}
	if wpArchive.made == nil {
		wpArchive.made = map[string][2][]byte{}
	}
	wpArchive.made[version] = [2][]byte{tgz, sums}
	return tgz, sums
}

var wpVersionLine = regexp.MustCompile(`(?m)^\$wp_version = '[^']*';`)

func packWordPress(root, version string) ([]byte, []byte, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case rel == "wp-content/languages":
			return filepath.SkipDir
		case rel == "." || rel == "wp-config.php" || rel == ".htaccess" || d.IsDir():
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	dirs := map[string]bool{}
	sums := map[string]string{}
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, rel)) // follows links
		if err != nil {
			continue // a dangling link of the package: not a file of the release
		}
		if rel == "wp-includes/version.php" && version != "" {
			b = wpVersionLine.ReplaceAllLiteral(b, []byte("$wp_version = '"+version+"';"))
		}
		for d := filepath.Dir(rel); ; d = filepath.Dir(d) {
			name := "wordpress/"
			if d != "." {
				name += d + "/"
			}
			if dirs[name] {
				break
			}
			dirs[name] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755, ModTime: time.Unix(0, 0)}); err != nil {
				return nil, nil, err
			}
			if d == "." {
				break
			}
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "wordpress/" + rel, Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(0, 0)}); err != nil {
			return nil, nil, err
		}
		tw.Write(b)
		s := md5.Sum(b)
		sums[rel] = hex.EncodeToString(s[:])
	}
	if err := tw.Close(); err != nil {
		return nil, nil, err
	}
	zw.Close()
	js, err := json.Marshal(map[string]any{"checksums": sums})
	return buf.Bytes(), js, err
}

// TarGz packs files (path → content) as a .tar.gz (directories implied).
func TarGz(files map[string]string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: 0o644, Size: int64(len(files[p])), ModTime: time.Unix(0, 0)})
		tw.Write([]byte(files[p]))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// PluginZip is a plugin's archive as wordpress.org builds one: a zip of
// its directory (files, path → content, all below slug/).
func PluginZip(t testing.TB, slug string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if _, err := zw.Create(slug + "/"); err != nil {
		t.Fatal(err)
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasPrefix(p, slug+"/") {
			t.Fatalf("PluginZip: %s is not below %s/", p, slug)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p, Method: zip.Deflate, Modified: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[p]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ArchiveServer is a local HTTP server standing in for wordpress.org as a
// mirror: Files maps "HOST/PATH?QUERY" (the layout fixture.MirrorURL asks
// for, e.g. "downloads.wordpress.org/plugin/x.1.0.zip") to its bytes;
// anything else is 404. It listens on addr: "127.0.0.1:0" for this
// machine, a bare host's Gateway (":0") for the host to reach it.
type ArchiveServer struct {
	URL string // the mirror's base, http://ADDR
	mu  sync.Mutex
	// Files can be changed while it serves (a tampered archive).
	files map[string][]byte
	hits  atomic.Int64
}

// ServeArchives starts an ArchiveServer until the test ends.
func ServeArchives(t testing.TB, addr string, files map[string][]byte) *ArchiveServer {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("archive server on %s: %v", addr, err)
	}
	a := &ArchiveServer{files: files}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.hits.Add(1)
		key := strings.TrimPrefix(r.URL.Path, "/")
		if r.URL.RawQuery != "" {
			key += "?" + r.URL.RawQuery
		}
		a.mu.Lock()
		b, ok := a.files[key]
		a.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// Set serves b at key from now on.
func (a *ArchiveServer) Set(key string, b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.files[key] = b
}

// Hits is how many requests it has answered.
func (a *ArchiveServer) Hits() int64 { return a.hits.Load() }

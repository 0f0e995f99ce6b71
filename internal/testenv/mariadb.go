package testenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/flock"
)

// DB is one test's private MariaDB database and user. Password is only ever
// passed on stdin or inside files; never put it in argv or logs.
type DB struct {
	Addr     string // host:port for TCP (127.0.0.1:3306)
	Name     string // database name, also the user name
	User     string
	Password string
}

// mariadbLock serialises the start of the shared system MariaDB between
// test processes of different packages running in parallel.
const mariadbLock = "/tmp/wptest-mariadb.lock"

// MariaDB makes sure the system MariaDB runs (starting it as root with
// `service mariadb start` if not) and creates a database and a user unique
// to this test, dropped when the test ends. The server itself is left
// running: other test processes may be using it.
func MariaDB(t testing.TB) DB {
	t.Helper()
	Integration(t)
	NeedBinary(t, "mariadb")
	NeedBinary(t, "mariadb-admin")
	NeedRoot(t)
	if err := ensureMariaDB(); err != nil {
		Need(t, false, "MariaDB cannot be started: "+err.Error())
	}
	port, err := rootSQL("SELECT @@port, @@skip_networking")
	if err != nil {
		t.Fatalf("mariadb: %v", err)
	}
	f := strings.Fields(port)
	if len(f) != 2 || f[1] != "0" {
		t.Fatalf("mariadb: TCP disabled or unreadable port (%q)", port)
	}
	suffix := randomHex(6)
	db := DB{
		Addr:     net.JoinHostPort("127.0.0.1", f[0]),
		Name:     "wpt_" + suffix,
		User:     "wpt_" + suffix,
		Password: randomHex(16),
	}
	var sql strings.Builder
	fmt.Fprintf(&sql, "CREATE DATABASE `%s` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;\n", db.Name)
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		fmt.Fprintf(&sql, "CREATE USER '%s'@'%s' IDENTIFIED BY '%s';\n", db.User, h, db.Password)
		fmt.Fprintf(&sql, "GRANT ALL PRIVILEGES ON `%s`.* TO '%s'@'%s';\n", db.Name, db.User, h)
	}
	if _, err := rootSQL(sql.String()); err != nil {
		t.Fatalf("mariadb: create database/user: %v", err)
	}
	t.Cleanup(func() {
		var drop strings.Builder
		fmt.Fprintf(&drop, "DROP DATABASE IF EXISTS `%s`;\n", db.Name)
		for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
			fmt.Fprintf(&drop, "DROP USER IF EXISTS '%s'@'%s';\n", db.User, h)
		}
		if _, err := rootSQL(drop.String()); err != nil {
			t.Errorf("mariadb cleanup: %v", err)
		}
	})
	return db
}

// RootSQL runs SQL (read on stdin, never argv) as the MariaDB root user over
// the unix socket and returns the tab-separated output without headers.
func RootSQL(sql string) (string, error) { return rootSQL(sql) }

func rootSQL(sql string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mariadb", "--batch", "--skip-column-names")
	cmd.Stdin = strings.NewReader(sql)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		// The SQL may hold a password: report stderr only, never the input.
		return "", fmt.Errorf("mariadb: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

func mariadbUp() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, "mariadb-admin", "--connect-timeout=2", "ping").Run() == nil
}

// ensureMariaDB starts MariaDB once, under an exclusive flock so that
// parallel test processes do not race to start it twice.
func ensureMariaDB() error {
	if mariadbUp() {
		return nil
	}
	unlock, err := flock.Take(mariadbLock, syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	if mariadbUp() { // another process started it while we waited
		return nil
	}
	cmd := exec.Command("service", "mariadb", "start")
	// Its own session: MariaDB is shared by every test process, so it must
	// not die with the process group of whichever test happened to start it
	// (a killed `go test` job took the server down under the others).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("service mariadb start: %v: %s", err, bytes.TrimSpace(out))
	}
	for i := 0; i < 300; i++ {
		if mariadbUp() {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("mariadb did not answer ping within 30s after start")
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

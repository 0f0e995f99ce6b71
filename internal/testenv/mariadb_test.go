package testenv

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func openDB(t *testing.T, d DB, name string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = d.User, d.Password, "tcp", d.Addr, name
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Two tests' databases are separate: each user reaches its own database
// over TCP with its password, and not the other's.
func TestMariaDBIsolated(t *testing.T) {
	a, b := MariaDB(t), MariaDB(t)
	if a.Name == b.Name || a.Password == b.Password {
		t.Fatal("two calls gave the same database or password")
	}
	dba := openDB(t, a, a.Name)
	if _, err := dba.Exec("CREATE TABLE x (id INT)"); err != nil {
		t.Fatalf("own database: %v", err)
	}
	var coll string
	if err := dba.QueryRow("SELECT @@collation_database").Scan(&coll); err != nil || coll != "utf8mb4_unicode_520_ci" {
		t.Errorf("collation %q (%v), want utf8mb4_unicode_520_ci", coll, err)
	}
	if err := openDB(t, a, b.Name).Ping(); err == nil || !strings.Contains(err.Error(), "denied") {
		t.Errorf("user %s reached %s: %v", a.User, b.Name, err)
	}
	wrong := a
	wrong.Password = "not-the-password"
	if err := openDB(t, wrong, a.Name).Ping(); err == nil {
		t.Error("a wrong password was accepted")
	}
}

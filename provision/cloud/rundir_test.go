package cloud

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const testHostKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHn7UDMqKxDUBM8MDYnt8v7ACCJQe4gWjuOIdIxAUxLZ"

// The run directory's files this package writes and reads (events.jsonl,
// known_hosts, id_ed25519, machines.json) are never written or read
// through a link planted at their name: the file a
// link points at keeps its bytes, and the error names the file.
func TestRunDirFilesNeverFollowLinks(t *testing.T) {
	ms := []Machine{{Name: "s", Role: RoleServer, Address: "192.0.2.1", Port: 22, HostKey: testHostKey}}
	for _, tc := range []struct {
		file string
		do   func(dir string) error
		want string // in the error; "" = succeeds
	}{
		{JournalFile, func(dir string) error {
			j, err := OpenJournal(filepath.Join(dir, JournalFile), nil)
			if err == nil {
				err = j.Append(Event{Phase: PhaseBefore, Op: "create", Kind: "server"})
				j.Close()
			}
			return err
		}, JournalFile + ": is a symbolic link"},
		{KnownHostsFile, func(dir string) error { return WriteKnownHosts(filepath.Join(dir, KnownHostsFile), ms) }, KnownHostsFile + ": is a symbolic link"},
		{ClientKeyFile, func(dir string) error { _, err := ClientKey(dir, nil); return err }, ClientKeyFile + ": is a symbolic link"},
		{ClientKeyFile + ".pub", func(dir string) error { _, err := ClientKey(dir, nil); return err }, ""},
		{MachinesFile, func(dir string) error { return writeMachines(dir, ms) }, ""},
		{MachinesFile, func(dir string) error { _, err := ReadMachines(dir); return err }, MachinesFile + ": is a symbolic link"},
	} {
		dir := t.TempDir()
		canary := filepath.Join(t.TempDir(), "canary")
		if err := os.WriteFile(canary, []byte("[]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(canary, filepath.Join(dir, tc.file)); err != nil {
			t.Fatal(err)
		}
		err := tc.do(dir)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.file, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error saying %q", tc.file, err, tc.want)
		}
		if b, _ := os.ReadFile(canary); string(b) != "[]\n" {
			t.Errorf("%s: the file the link points at changed: %q", tc.file, b)
		}
	}
}

// A FIFO at a run directory file's name is refused at once, not waited on.
func TestRunDirFIFONotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{JournalFile, MachinesFile} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadJournal(filepath.Join(dir, JournalFile)); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadJournal of a FIFO: %v", err)
	}
	if _, err := ReadMachines(dir); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadMachines of a FIFO: %v", err)
	}
}

// Connect (a resumed run, --target run:ID) refuses a FIFO at the run's
// known_hosts and a link at its client key before SSH reads either (it
// would wait on the FIFO, and read /dev/zero until out of memory).
func TestConnectRefusesRunDirSpecialFiles(t *testing.T) {
	m := Machine{Name: "s", Role: RoleServer, Address: "192.0.2.1", Port: 22}
	for _, tc := range []struct {
		file, want string
		make       func(p string) error
	}{
		{KnownHostsFile, "named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{ClientKeyFile, "is a symbolic link", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{ClientKeyFile, "larger than 1 MiB", func(p string) error {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				return err
			}
			return os.Truncate(p, 1<<30)
		}},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, KnownHostsFile), []byte("192.0.2.1 "+testHostKey+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, tc.file)
		os.Remove(p)
		if err := tc.make(p); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound on a bug: a refusal is immediate
		h, err := Connect(ctx, dir, m, nil)
		cancel()
		if err == nil {
			h.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.file+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v", tc.file, tc.want, err)
		}
	}
}

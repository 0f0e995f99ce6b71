package stage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
)

// Local files for remote hosts: a variable's value local+file:///PATH names
// a file on this machine (the one wptest runs on). It is read and hashed
// when the profile loads, put on the host by the Upload step, and the
// variable becomes file:///var/lib/wptest/uploads/<sha256>-<name> for the
// profile, whose own SHA-256 check then checks it there as it would a
// download.

// LocalFilePrefix marks a value as a file on this machine.
const LocalFilePrefix = "local+file://"

// UploadDir is where uploads go on a host: root's, mode 0700.
const UploadDir = "/var/lib/wptest/uploads"

// MaxLocalFile is the largest file a value may name: it is held in memory
// from the load to the upload, so the bytes put are the bytes hashed.
const MaxLocalFile = 256 << 20

// LocalFile is one file on this machine for the host, read and hashed.
type LocalFile struct {
	Var    string // the variable it was given for
	Path   string // where it is on this machine
	SHA256 string
	Size   int64
	data   []byte
}

// IsLocalFile says whether a value names a file on this machine.
func IsLocalFile(value string) bool { return strings.HasPrefix(value, LocalFilePrefix) }

// Name is the file's name in UploadDir: its hash, then its own name with
// every byte outside [A-Za-z0-9._-] made '_' (at most 80 of them).
func (f LocalFile) Name() string {
	base := []byte(filepath.Base(f.Path))
	for i, c := range base {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			base[i] = '_'
		}
	}
	if len(base) > 80 {
		base = base[:80]
	}
	return f.SHA256 + "-" + string(base)
}

// Remote is where the file goes on the host.
func (f LocalFile) Remote() string { return UploadDir + "/" + f.Name() }

// URL is the variable's value for the profile: the file on the host.
func (f LocalFile) URL() string { return "file://" + f.Remote() }

// String is the file as a plan shows it: variable, path, hash, size, where it goes.
func (f LocalFile) String() string {
	return fmt.Sprintf("%s: %s (sha256 %s, %d bytes) -> %s", f.Var, f.Path, f.SHA256, f.Size, f.Remote())
}

// ReadLocalFile reads the file value (local+file:///PATH, percent-encoded as
// a URL's path) names for variable name. It must be a regular file on a
// real file system (not /proc's environ, a device, a FIFO, a socket), named
// directly or through links that stay in its directory, of at most
// MaxLocalFile bytes; anything else is a config error naming the variable
// and path. It never blocks: the file is opened non-blocking and judged by
// what was opened, so a FIFO swapped in after the check is refused too.
func ReadLocalFile(name, value string) (LocalFile, error) {
	bad := func(p string, err error) (LocalFile, error) {
		return LocalFile{}, exitcode.With(exitcode.Config, fmt.Errorf("variable %s: local file %q: %w", name, p, err))
	}
	raw := strings.TrimPrefix(value, LocalFilePrefix)
	p, err := url.PathUnescape(raw)
	if err != nil {
		return bad(raw, fmt.Errorf("bad percent-encoding: %w", err))
	}
	if !strings.HasPrefix(p, "/") {
		return bad(p, fmt.Errorf("want %s/ABSOLUTE/PATH (three slashes)", LocalFilePrefix))
	}
	p = filepath.Clean(p)
	real, err := inItsDirectory(p)
	if err != nil {
		return bad(p, err)
	}
	b, err := readRegular(real)
	if err != nil {
		return bad(p, err)
	}
	sum := sha256.Sum256(b)
	return LocalFile{Var: name, Path: p, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b)), data: b}, nil
}

// inItsDirectory is p with its links resolved, when its directory has no
// link on the way (/proc/self/root/..., a link to /etc) and the file is
// named directly or by a link to a file in that same directory: a link
// out of it (to a key in ~/.ssh, to /proc) is refused.
func inItsDirectory(p string) (string, error) {
	dir := filepath.Dir(p)
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if realDir != dir {
		return "", fmt.Errorf("its directory is reached through a link (to %s): name the file by its own path", realDir)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	if filepath.Dir(real) != dir {
		return "", fmt.Errorf("a link out of its directory (to %s): name the file itself", real)
	}
	return real, nil
}

// readRegular reads the regular file at p (no link followed), at most
// MaxLocalFile bytes.
func readRegular(p string) ([]byte, error) {
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	fh := os.NewFile(uintptr(fd), p)
	defer fh.Close()
	// What was opened is what was judged: a directory on the way swapped
	// for a link since would show here.
	if at, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err == nil && at != p {
		return nil, fmt.Errorf("changed while it was opened (it is now %s)", at)
	}
	fi, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if err := onRealFileSystem(fh); err != nil {
		return nil, err
	}
	if fi.Size() > MaxLocalFile {
		return nil, fmt.Errorf("%d bytes, more than the %d a local file may have", fi.Size(), MaxLocalFile)
	}
	b, err := io.ReadAll(io.LimitReader(fh, MaxLocalFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxLocalFile {
		return nil, fmt.Errorf("more than the %d bytes a local file may have", MaxLocalFile)
	}
	return b, nil
}

// ResolveArgs reads every local file -var arguments ("name=value") name and
// gives the arguments with those values made the files' URLs on the host.
func ResolveArgs(args []string) ([]string, []LocalFile, error) {
	out := make([]string, len(args))
	var files []LocalFile
	for i, a := range args {
		out[i] = a
		name, value, ok := strings.Cut(a, "=")
		if !ok || !IsLocalFile(value) {
			continue
		}
		f, err := ReadLocalFile(name, value)
		if err != nil {
			return nil, nil, err
		}
		out[i] = name + "=" + f.URL()
		files = append(files, f)
	}
	return out, files, nil
}

// WriteLocalFiles prints the files as a plan shows them, one a line.
func WriteLocalFiles(w io.Writer, files []LocalFile) {
	for _, f := range files {
		fmt.Fprintf(w, "upload %s\n", f)
	}
}

// Upload puts Files on the host in UploadDir (unless the same bytes are
// there already) and checks their hash there.
type Upload struct{ Files []LocalFile }

func (s Upload) Run(ctx context.Context, st *State) error {
	if len(s.Files) == 0 {
		return nil
	}
	if err := uploadDir(ctx, st.Host); err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	for _, f := range s.Files {
		msg, err := PutLocalFile(ctx, st.Host, f)
		if err != nil {
			return exitcode.With(exitcode.Provision, err)
		}
		st.logf("[%s] upload %s: %s", st.Host.Name(), f.Var, msg)
	}
	return nil
}

func (Upload) Cleanup(context.Context, *State) error { return nil }

// uploadDirScript makes UploadDir root's (or the connecting user's), mode
// 0700, refusing when anyone else could plant a link on the way: each
// directory is judged (host.HolderPrelude) before one is made in it.
var uploadDirScript = "set -eu\n" + host.HolderPrelude() + `me=$(id -un)
safe() {
	[ ! -L "$1" ] || { echo "$1 is a symbolic link: refusing to upload through it" >&2; exit 1; }
	h=$(wptest_holder "$1")
	[ "$h" = root ] || [ "$h" = "$me" ] || { echo "$1: $h: refusing to upload through it" >&2; exit 1; }
}
for dm in /var/lib/wptest:0755 ` + UploadDir + `:0700; do
	d=${dm%:*}
	safe "$d"
	[ -d "$d" ] || { [ ! -e "$d" ] && mkdir -m "${dm##*:}" -- "$d"; } || { echo "$d is not a directory" >&2; exit 1; }
done
chmod 0700 ` + UploadDir + `
safe ` + UploadDir + `/.
`

func uploadDir(ctx context.Context, h host.Host) error {
	if _, err := h.Run(ctx, host.Cmd{Script: uploadDirScript, Label: "upload"}); err != nil {
		return fmt.Errorf("make %s on %s: %w", UploadDir, h.Name(), err)
	}
	return nil
}

// PutLocalFile puts f on h at f.Remote() (UploadDir made safe first by the
// caller) unless the same bytes are there, checks its hash there, and says
// which it was.
func PutLocalFile(ctx context.Context, h host.Host, f LocalFile) (string, error) {
	have, err := remoteSHA256(ctx, h, f.Remote())
	if err != nil {
		return "", err
	}
	if have == f.SHA256 {
		return "up to date (" + f.Remote() + ")", nil
	}
	if err := h.Put(ctx, f.Remote(), bytes.NewReader(f.data), host.PutOptions{Mode: 0o600}); err != nil {
		return "", fmt.Errorf("upload %s (variable %s) to %s: %w", f.Path, f.Var, h.Name(), err)
	}
	if have, err = remoteSHA256(ctx, h, f.Remote()); err != nil {
		return "", err
	}
	if have != f.SHA256 {
		return "", fmt.Errorf("upload %s (variable %s) to %s: %s on the host has sha256 %q, want %s", f.Path, f.Var, h.Name(), f.Remote(), have, f.SHA256)
	}
	return fmt.Sprintf("put %s (%d bytes, sha256 %s)", f.Remote(), f.Size, f.SHA256[:12]), nil
}

// remoteSHA256 is the hash of the file at p on h ("" when there is none).
func remoteSHA256(ctx context.Context, h host.Host, p string) (string, error) {
	res, err := h.Run(ctx, host.Cmd{Script: "if [ -f " + host.Quote(p) + " ]; then sha256sum -- " + host.Quote(p) + "; fi", Label: "upload"})
	if err != nil {
		return "", fmt.Errorf("hash %s on %s: %w", p, h.Name(), err)
	}
	sum, _, _ := strings.Cut(string(res.Stdout), " ")
	return strings.TrimSpace(sum), nil
}

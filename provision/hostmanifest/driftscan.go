package hostmanifest

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/host"
)

// What the drift record keeps of the host: every file the live profile's
// file ops wrote, every path its watch blocks name (a directory: each
// entry in it, one level deep), and whether the site's database login
// works. Root scans; where a user besides root holds a directory on the
// way to a path (the site user's docroot), the path is stat'ed, hashed and
// read as that user (setpriv), never through a link: a link the user
// planted leads only where the user could read anyway, and a link at the
// path itself is recorded as a link, not followed. Files are hashed up to
// MaxHash bytes and copied into root's DriftDir up to MaxCopy.

// DriftDir is the root-only directory (0700) holding the drift record and
// the copies of what it recorded, beside the host manifest.
const DriftDir = "/var/lib/wptest/drift"

// DriftPath is the drift record.
const DriftPath = DriftDir + "/record.json"

// MaxCopy is the largest file the record keeps a copy of (its lines are
// what `wptest status` shows changed); MaxHash the largest it hashes (a
// larger one is recorded by its size).
const (
	MaxCopy    = 1 << 20
	MaxHash    = 64 << 20
	maxEntries = 2000
)

// Entry kinds.
const (
	KindFile   = "file"
	KindDir    = "dir"
	KindLink   = "link"
	KindAbsent = "absent"
	KindOther  = "other"  // a FIFO, a device, a socket: Detail says which
	KindUnsafe = "unsafe" // not read: Detail says why
)

// scanScript prints one record per path and per entry of a watched
// directory, each of five NUL-ended fields: kind (F file, D directory, L
// link, A absent, O other, U unsafe, B database login), path, detail (a
// file's SHA-256 or "-" when larger than max_hash, a link's target, an
// other's type, why it is unsafe, the login's error or "ok"), size, holder.
// $mode "record" keeps a copy of each file of at most max_copy bytes not
// marked sensitive in $dir/files.new, named by its SHA-256 (the hash is the
// copy's), and swaps it in for $dir/files at the end.
// dbNotRunning begins a database login's error where no database server
// ran on the host (dbDown).
const dbNotRunning = "no database server running: "

const scanScript = `set -u
umask 077
export LC_ALL=C
out() { printf '%s\0' "$@"; }
as_h() { if [ "$_h" = root ]; then "$@"; else (cd / && exec setpriv --reuid="$_h" --regid="${_hg:-$(id -g -- "$_h")}" --init-groups -- "$@"); fi; }
rd() { as_h dd if="$1" iflag=nofollow,nonblock,count_bytes count="$2" bs=65536 status=none; }
one() { # $1 path, $2 sensitive (1) or not (0), $3 recurse into a directory (1)
	_st=$(as_h stat -c '%F/%s' -- "$1" 2>/dev/null) || { out A "$1" "" "" "$_h"; return; }
	t=${_st%/*}
	case $t in
	"symbolic link") out L "$1" "$(as_h readlink -- "$1")" "" "$_h" ;;
	directory)
		if [ "$3" = 1 ] && [ "$_h" != root ]; then out U "$1" "a directory $_h holds: its entries are not listed" "" "$_h"; return; fi
		out D "$1" "" "" "$_h"
		[ "$3" = 1 ] || return 0
		_n=0
		for _c in "$1"/* "$1"/.[!.]* "$1"/..?*; do
			[ -e "$_c" ] || [ -L "$_c" ] || continue
			_n=$((_n + 1))
			if [ $_n -gt ` + "$max_entries" + ` ]; then out M "$1" "more than $max_entries entries: the rest not listed" "" "$_h"; break; fi
			written "$_c" || one "$_c" 0 0
		done ;;
	"regular file"|"regular empty file") file "$1" "$2" "${_st##*/}" ;;
	*) out O "$1" "$t" "" "$_h" ;;
	esac
}
file() { # $1 path, $2 sensitive, $3 its size
	sz=$3
	if [ "$mode" = record ] && [ "$2" = 0 ] && [ "$sz" -le $max_copy ]; then
		tmp="$dir/files.new/.tmp"
		if rd "$1" $((max_copy + 1)) >"$tmp"; then
			n=$(wc -c <"$tmp")
			if [ "$n" -le $max_copy ]; then
				s=$(sha256sum <"$tmp")
				s=${s%% *}
				mv -f -- "$tmp" "$dir/files.new/$s"
				out F "$1" "$s" "$n" "$_h"
				return
			fi
		fi
		rm -f -- "$tmp"
	fi
	if [ "$sz" -gt $max_hash ]; then out F "$1" - "$sz" "$_h"; return; fi
	s=$( (rd "$1" $((max_hash + 1)) || printf 'unreadable') | sha256sum)
	s=${s%% *}
	out F "$1" "$s" "$sz" "$_h"
}
path() { # $1 path, $2 sensitive, $3 recurse
	# A watched directory that is root's alone (its own holder root, so
	# every directory on its way too: owned by root, writable by nobody
	# else): it and its entries are listed and hashed with root's other
	# paths at the end, a few processes for them all (nobody but root can
	# swap what they name).
	if [ "$3" = 1 ] && [ -d "$1" ] && [ ! -L "$1" ] && [ "$(wptest_holder "$1/x")" = root ]; then
		printf '%s\0' "$1" >>"$_t/flat"
		find -P "$1" -mindepth 1 -maxdepth 1 -print0 | sort -z | head -z -n $((max_entries + 1)) >"$_t/d"
		if [ "$(tr -cd '\0' <"$_t/d" | wc -c)" -gt $max_entries ]; then
			out M "$1" "more than $max_entries entries: the rest not listed" "" root
			head -z -n $max_entries "$_t/d" >>"$_t/flat"
		else
			cat "$_t/d" >>"$_t/flat"
		fi
		return
	fi
	# Who holds the directories on the way: asked once for paths in a row
	# in one directory (a link at the path itself is never followed).
	# The holder's group asked once with it (as_h).
	if [ "${1%/*}" != "${_hd-}" ]; then
		_hd=${1%/*} _hg=
		_hv=$(wptest_holder "$1")
		case $_hv in root | "unsafe: "*) ;; *) _hg=$(id -g -- "$_hv") || _hv="unsafe: $_hv is no user here" ;; esac
	fi
	_h=$_hv
	case $_h in "unsafe: "*) out U "$1" "${_h#unsafe: }" "" ""; return ;; esac
	# Another's, or a watched directory another may change: read one by
	# one, as that user, never through a link (one, rd).
	if [ "$_h" != root ] || { [ "$3" = 1 ] && [ -d "$1" ] && [ ! -L "$1" ]; }; then one "$1" "$2" "$3"; return; fi
	# Root's alone: batched.
	printf '%s\0' "$1" >>"$_t/flat"
}
batch() { # root's paths: "X" then type, size, path, link target of each; "S" then each file's "SHA256  path"
	out X
	xargs -0r sh -c 'exec find -P "$@" -maxdepth 0 -printf "%y\0%s\0%p\0%l\0"' sh <"$_t/flat" 2>>"$_t/err"
	out S
	xargs -0r sh -c 'exec find -P "$@" -maxdepth 0 -type f -size -'$((max_hash + 1))'c -exec sha256sum --zero -- {} +' sh <"$_t/flat" 2>>"$_t/err"
	# A path gone (since it was listed) is absent; anything else fails
	# the scan rather than pass for absent.
	if grep -qv 'No such file or directory' "$_t/err"; then cat "$_t/err" >&2; exit 1; fi
	return 0
}
db() { # the site's database login, with the credentials the profile made
	_h=$(wptest_holder "$1")
	if [ "$_h" != root ] || [ -L "$1" ] || [ ! -f "$1" ]; then out B "$1" "no credentials file $1 (root's)" "" "$_h"; return; fi
	# DB_HOST is HOST[:PORT], as WordPress reads it.
	r=$( (. "$1" && pw=$(printf '%s' "$DB_PASSWORD" | sed 's/[\\"]/\\&/g') && dh=$DB_HOST && dp= &&
		case $dh in *:*) dp=${dh##*:} dh=${dh%:*} ;; esac &&
		{ printf '[client]\nuser=%s\npassword="%s"\nhost=%s\n' "$DB_USER" "$pw" "$dh"; if [ -n "$dp" ]; then printf 'port=%s\n' "$dp"; fi; } |
		mariadb --defaults-extra-file=/dev/stdin --connect-timeout=5 -e 'SELECT 1' "$DB_NAME" 2>&1 >/dev/null) 2>&1) &&
		{ out B "$1" ok "" root; return; }
	# A login that reached no server, with no database server running on
	# the host: a stopped database (a state), not a changed one.
	grep -qsx -e mariadbd -e mysqld /proc/[0-9]*/comm || r="$dbNotRunning$r"
	out B "$1" "$(printf '%s' "$r" | tr '\n\0' '  ' | cut -c1-300)" "" root
}
_t=$(mktemp -d) && : >"$_t/flat" && : >"$_t/err" || exit 1
trap 'rm -rf -- "$_t"' EXIT
if [ "$mode" = record ]; then
	{ [ -d "${dir%/*}" ] || install -d -m 0755 -- "${dir%/*}"; } && mkdir -p -m 0700 -- "$dir" && chmod 0700 -- "$dir" &&
		rm -rf -- "$dir/files.new" && mkdir -m 0700 -- "$dir/files.new" || exit 1
fi
`

// scanItem is one path the scan reads.
type scanItem struct {
	path      string
	sensitive bool
	recurse   bool // a watched directory: its entries too
}

// scanItems are the paths of m's drift record: written files, then
// watched paths (a path both written and watched: as written), sorted by
// directory (the scan asks who holds a directory once for paths in a row
// in it).
func scanItems(m *Manifest) []scanItem {
	var items []scanItem
	seen := map[string]bool{}
	for _, w := range m.Written {
		if !seen[w.Path] {
			seen[w.Path] = true
			items = append(items, scanItem{path: w.Path, sensitive: w.Sensitive})
		}
	}
	for _, w := range m.Watch {
		for _, p := range w.Paths {
			if !seen[p] {
				seen[p] = true
				items = append(items, scanItem{path: p, recurse: true})
			}
		}
	}
	// The site's database credentials (a command makes them, no file op):
	// DB_HOST edited to another server is drift even where the login
	// still works or reaches none. Sensitive: hashed, never copied.
	if m.Site != nil && m.Site.Database != "" && !seen[m.Site.Database] {
		items = append(items, scanItem{path: m.Site.Database, sensitive: true})
	}
	sort.SliceStable(items, func(i, j int) bool { return path.Dir(items[i].path) < path.Dir(items[j].path) })
	return items
}

// scan reads the live state of m's recorded paths on h (record: and keeps
// copies, made the record's at commit).
func scan(ctx context.Context, h host.Host, m *Manifest, record bool, dir string) ([]Entry, *DBLogin, error) {
	var b strings.Builder
	mode := "scan"
	if record {
		mode = "record"
	}
	fmt.Fprintf(&b, "mode=%s dir=%s max_copy=%d max_hash=%d max_entries=%d dbNotRunning=%s\n", mode, host.Quote(dir), MaxCopy, MaxHash, maxEntries, host.Quote(dbNotRunning))
	b.WriteString(host.HolderPrelude())
	b.WriteString(scanScript)
	// A written file in a watched directory is scanned as written (its
	// content may be secret: no copy), not again as the directory's entry.
	b.WriteString("written() { case $1 in")
	for _, w := range m.Written {
		b.WriteString(" " + host.Quote(w.Path) + ")")
		b.WriteString(" return 0 ;;")
	}
	b.WriteString(" esac; return 1; }\n")
	for _, it := range scanItems(m) {
		fmt.Fprintf(&b, "path %s %d %d\n", host.Quote(it.path), b2i(it.sensitive), b2i(it.recurse))
	}
	if m.Site != nil && m.Site.Database != "" {
		fmt.Fprintf(&b, "db %s\n", host.Quote(m.Site.Database))
	}
	b.WriteString("batch\n")
	// Its output holds hashes of files whose content may be secret.
	res, err := h.Run(ctx, host.Cmd{Script: b.String(), Label: "drift " + mode, Timeout: 10 * time.Minute, SecretStdout: true})
	if err != nil {
		return nil, nil, fmt.Errorf("drift %s on %s: %w", mode, h.Name(), err)
	}
	entries, db, err := parseScan(res.Stdout, m)
	if err != nil || !record {
		return entries, db, err
	}
	return entries, db, keepCopies(ctx, h, entries, dir)
}

// keepCopies copies root's files the scan hashed into dir/files.new, each
// named by its SHA-256 and checked against it (the site user's were copied
// as that user by the scan), and swaps dir/files.new in for dir/files.
func keepCopies(ctx context.Context, h host.Host, entries []Entry, dir string) error {
	var b, sums strings.Builder
	fmt.Fprintf(&b, "set -eu\numask 077\ndir=%s\ncd \"$dir/files.new\"\n", host.Quote(dir))
	for _, e := range entries {
		if copyable(e) && e.Holder == "root" {
			fmt.Fprintf(&b, "[ -e %[2]s ] || cp -P -- %[1]s %[2]s\n", host.Quote(e.Path), e.SHA256)
			fmt.Fprintf(&sums, "%s  %s\n", e.SHA256, e.SHA256)
		}
	}
	if sums.Len() > 0 {
		// A file changed between its hash and its copy fails the record.
		fmt.Fprintf(&b, "sha256sum --quiet --strict -c <<'EOF'\n%sEOF\n", sums.String())
	}
	b.WriteString(`cd /; rm -rf -- "$dir/files.old"; if [ -d "$dir/files" ]; then mv -- "$dir/files" "$dir/files.old"; fi; mv -- "$dir/files.new" "$dir/files" && rm -rf -- "$dir/files.old"` + "\n")
	if _, err := h.Run(ctx, host.Cmd{Script: b.String(), Label: "drift record copies", Timeout: 10 * time.Minute}); err != nil {
		return fmt.Errorf("drift record on %s: %w", h.Name(), err)
	}
	return nil
}

// copyable: the record keeps a copy of e (its lines are then shown).
func copyable(e Entry) bool {
	return e.Kind == KindFile && !e.Sensitive && len(e.SHA256) == 64 && e.Size <= MaxCopy
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseScan reads scanScript's records into entries, labelled by what m
// says of each path: first the paths read one by one (five fields each),
// then "X" and root's paths as find listed them (four fields each), then
// "S" and the SHA-256 of each of root's files ("SUM  PATH").
func parseScan(out []byte, m *Manifest) ([]Entry, *DBLogin, error) {
	f := bytes.Split(out, []byte{0})
	if len(f) == 0 || len(f[len(f)-1]) != 0 {
		return nil, nil, fmt.Errorf("drift scan: unexpected output")
	}
	f = f[:len(f)-1]
	written, watched := labels(m)
	var entries []Entry
	var db *DBLogin
	first := map[string]bool{}
	i := 0
	for ; i < len(f) && string(f[i]) != "X"; i += 5 {
		if i+5 > len(f) {
			return nil, nil, fmt.Errorf("drift scan: unexpected output (%d fields)", len(f))
		}
		kind, p, detail, size, holder := string(f[i]), string(f[i+1]), string(f[i+2]), string(f[i+3]), string(f[i+4])
		if kind == "B" {
			db = &DBLogin{Credentials: p, OK: detail == "ok"}
			if !db.OK {
				db.Error = detail
			}
			continue
		}
		e, err := parseOne(kind, p, detail, size, holder)
		if err != nil {
			return nil, nil, err
		}
		if kind != "M" {
			first[p] = true
		}
		entries = append(entries, e)
	}
	root, err := parseBatch(f[min(i+1, len(f)):])
	if err != nil {
		return nil, nil, err
	}
	// A path read on its own (unsafe, or as its user) is never also
	// root's: the batch's listing of it is dropped.
	for _, e := range root {
		if !first[e.Path] {
			entries = append(entries, e)
		}
	}
	// A path of root's the listing lacks is gone (find said so on stderr).
	got := map[string]bool{}
	for _, e := range entries {
		got[e.Path] = true
	}
	for _, it := range scanItems(m) {
		if !got[it.path] {
			entries = append(entries, Entry{Path: it.path, Kind: KindAbsent, Holder: "root"})
		}
	}
	for i := range entries {
		e := &entries[i]
		if w, ok := written[e.Path]; ok {
			e.Sensitive = w
		} else if n, ok := watched[e.Path]; ok {
			e.Watch = n
		} else if d := path.Dir(e.Path); watched[d] != "" {
			e.Watch, e.In = watched[d], d
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return entries, db, nil
}

// parseOne is one record of a path read on its own.
func parseOne(kind, p, detail, size, holder string) (Entry, error) {
	e := Entry{Path: p, Holder: holder}
	switch kind {
	case "F":
		e.Kind = KindFile
		e.SHA256 = detail
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil {
			return e, fmt.Errorf("drift scan: size %q of %s", size, p)
		}
		e.Size = n
	case "D":
		e.Kind = KindDir
	case "L":
		e.Kind, e.Target = KindLink, detail
	case "A":
		e.Kind = KindAbsent
	case "O":
		e.Kind, e.Detail = KindOther, detail
	case "U", "M": // M: a directory's entries beyond the bound
		e.Kind, e.Detail = KindUnsafe, detail
	default:
		return e, fmt.Errorf("drift scan: unknown kind %q", kind)
	}
	return e, nil
}

// findTypes are find's %y letters but file, directory and link, in stat's
// words (an other's Detail).
var findTypes = map[string]string{"p": "fifo", "s": "socket", "c": "character special file", "b": "block special file", "D": "door"}

// parseBatch reads the listing and the hashes of root's paths (parseScan):
// a path listed twice (a written file in a watched directory) once.
func parseBatch(f [][]byte) ([]Entry, error) {
	i := 0
	type listed struct{ typ, size, path, target string }
	var ls []listed
	for ; i < len(f) && string(f[i]) != "S"; i += 4 {
		if i+4 > len(f) {
			return nil, fmt.Errorf("drift scan: unexpected listing (%d fields)", len(f))
		}
		ls = append(ls, listed{string(f[i]), string(f[i+1]), string(f[i+2]), string(f[i+3])})
	}
	sums := map[string]string{}
	for _, s := range f[min(i+1, len(f)):] {
		if len(s) < 66 || string(s[64:66]) != "  " {
			return nil, fmt.Errorf("drift scan: unexpected sum %.80q", s)
		}
		sums[string(s[66:])] = string(s[:64])
	}
	seen := map[string]bool{}
	var out []Entry
	for _, l := range ls {
		if seen[l.path] {
			continue
		}
		seen[l.path] = true
		e := Entry{Path: l.path, Holder: "root"}
		switch l.typ {
		case "f":
			n, err := strconv.ParseInt(l.size, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("drift scan: size %q of %s", l.size, l.path)
			}
			e.Kind, e.Size = KindFile, n
			switch sum, ok := sums[l.path]; {
			case n > MaxHash:
				e.SHA256 = "-"
			case ok:
				e.SHA256 = sum
			default:
				e.SHA256 = "unreadable"
			}
		case "d":
			e.Kind = KindDir
		case "l":
			e.Kind, e.Target = KindLink, l.target
		default:
			e.Kind, e.Detail = KindOther, cmp.Or(findTypes[l.typ], "type "+l.typ)
		}
		out = append(out, e)
	}
	return out, nil
}

// labels: the written paths (sensitive or not) and the watched paths by
// their watch block's name.
func labels(m *Manifest) (map[string]bool, map[string]string) {
	written, watched := map[string]bool{}, map[string]string{}
	for _, w := range m.Written {
		written[w.Path] = w.Sensitive
	}
	for _, w := range m.Watch {
		for _, p := range w.Paths {
			if _, ok := watched[p]; !ok {
				watched[p] = w.Name
			}
		}
	}
	return written, watched
}

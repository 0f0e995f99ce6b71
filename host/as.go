package host

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
)

// Root never writes, chowns or unpacks through a path that a less
// privileged user can plant a link in: where such a user holds a directory
// on the way (the site user's home and docroot), the work is done with that
// user's own rights (setpriv), so a planted link leads only where the user
// could write anyway. These are the shell pieces for it.

// holderFunc defines `wptest_holder PATH`, which prints who besides root can
// change what PATH names: "root" (nobody), a user's name (the one non-root
// user owning a directory on the way, or PATH itself under a sticky
// directory) or "unsafe: WHY" (two such users, a directory others or a
// foreign group may write in, a name anyone could still create in a sticky
// directory). It walks PATH as written and as resolved (realpath), so a
// symlinked directory is judged by where it leads too. A group-writable
// directory whose group is named as its owner (a user's private group)
// counts as its owner's.
const holderFunc = `wptest_holder() {
	_h=root
	_add() { case $_h in root|"$1") _h=$1 ;; *) _h="unsafe: $2 is $1's and a directory above it $_h's"; return 1 ;; esac; }
	# The resolved path is walked too, unless it is the path itself.
	_r=$(realpath -m -- "$1")
	if [ "$_r" = "$1" ]; then set -- "$1"; else set -- "$1" "$_r"; fi
	for _p in "$@"; do
		_hw "$_p" || break
	done
	echo "$_h"
}
# _hw judges the directories on the way to $1, nearest first, stat'ed by
# one stat (those that exist: the nearest ones may not yet); 1: unsafe.
_hw() {
	_c=$1 _c0=
	set --
	while [ "$_c" != / ] && [ "$_c" != . ]; do
		# dirname in the shell for a plain absolute path (no trailing
		# slash, no doubled ones): a process fewer per directory.
		case $_c in
		/*/ | */ | *//* | [!/]*) _d=$(dirname -- "$_c") ;;
		/*/*) _d=${_c%/*} ;;
		*) _d=/ ;;
		esac
		if [ -e "$_d" ] || [ -L "$_d" ]; then
			[ $# -gt 0 ] || _c0=$_c
			set -- "$@" "$_d"
		elif [ $# -gt 0 ]; then
			# Missing above one that is there: renamed meanwhile. Each
			# directory's child below would not be its own (the sticky check).
			_h="unsafe: $_d vanished on the way"
			return 1
		fi
		_c=$_d
	done
	[ $# -gt 0 ] || return 0
	_ss=$(stat -c '%u %U %g %G %a' -- "$@") || { _h="unsafe: cannot stat $*"; return 1; }
	_nl='
'
	# Each directory's child on the way: the first one's as found, then
	# the one before it (a directory that exists has parents that do).
	_c=$_c0
	for _d in "$@"; do
		_l=${_ss%%"$_nl"*}
		_ss=${_ss#*"$_nl"}
		set -- $_l
		if [ "$1" != 0 ]; then _add "$2" "$_d" || return 1; fi
		_m=$((0$5))
		if [ ! -L "$_d" ] && { [ $((_m & 2)) != 0 ] || { [ $((_m & 16)) != 0 ] && [ "$3" != 0 ] && [ "$4" != "$2" ]; }; }; then
			if [ $((_m & 512)) = 0 ]; then _h="unsafe: others may write in $_d"; return 1; fi
			# Sticky: only an entry's owner may replace it.
			if [ -e "$_c" ] || [ -L "$_c" ]; then
				_s=$(stat -c '%u %U' -- "$_c") || { _h="unsafe: cannot stat $_c"; return 1; }
				set -- $_s
				if [ "$1" != 0 ]; then _add "$2" "$_c" || return 1; fi
			else
				_h="unsafe: anyone may make $_c in $_d"; return 1
			fi
		fi
		_c=$_d
	done
}
`

// HolderScript is a script that prints who besides root can change what p
// names (see holderFunc): "root", a user name, or "unsafe: ..." (one line).
func HolderScript(p string) string {
	return holderFunc + "wptest_holder " + Quote(p)
}

// HolderPrelude defines the shell function wptest_holder (HolderScript's),
// for scripts that decide with it.
func HolderPrelude() string { return holderFunc }

// AsUser is a shell prelude that defines `as COMMAND [ARG...]`: COMMAND
// runs as user (with group as its group, the user's login group when
// empty, and the user's supplementary groups) when the script runs as root
// and user is not root, from / (root's working directory may be closed to
// the user); otherwise as it is. An unknown user fails the script (exit 1).
// Empty user: `as` runs COMMAND as it is.
func AsUser(user, group string) string {
	if user == "" {
		return "as() { \"$@\"; }\n"
	}
	g := Quote(group)
	if group == "" {
		g = `"$(id -g -- ` + Quote(user) + `)"`
	}
	return fmt.Sprintf(`as() { "$@"; }
_u=$(id -u -- %[1]s) || { echo "no such user on the host:" %[1]s >&2; exit 1; }
if [ "$(id -u)" = 0 ] && [ "$_u" != 0 ]; then
	as() { (cd / && exec setpriv --reuid=%[1]s --regid=%[2]s --init-groups -- "$@"); }
fi
`, Quote(user), g)
}

// RunAs is Run with cmd.Script run by /bin/sh as user:group (AsUser).
func RunAs(ctx context.Context, h Host, user, group string, cmd Cmd) (Result, error) {
	cmd.Script = AsUser(user, group) + "as /bin/sh -c " + Quote(cmd.Script)
	return h.Run(ctx, cmd)
}

// putAsScript writes stdin to $1 as the user running it: a temp file made
// by mktemp (O_EXCL, 0600) in the same directory, its mode ($2) and group
// ($3, when given) set before it is renamed over $1 with mv -T (a directory
// or a link there is replaced, never followed).
const putAsScript = `set -e
umask 077
t=$(mktemp -- "$(dirname -- "$1")/.$(basename -- "$1").tmp-XXXXXXXX")
trap 'rm -f -- "$t"' EXIT
chmod "$2" "$t"
if [ -n "$3" ]; then chgrp "$3" "$t"; fi
cat >"$t"
mv -fT -- "$t" "$1"
trap - EXIT`

// PutAs writes path as user:group (AsUser) with mode, atomically (a temp
// file in the same directory renamed over it): for a path in a directory
// that user holds, where root must not write. The file's owner is user,
// its group group (the user's login group when empty). Empty user: the
// connecting user.
func PutAs(ctx context.Context, h Host, user, group, p string, r io.Reader, mode fs.FileMode) error {
	if mode == 0 {
		mode = 0o644
	}
	script := AsUser(user, group) + fmt.Sprintf("as /bin/sh -c %s sh %s %04o %s",
		Quote(putAsScript), Quote(p), mode.Perm(), Quote(group))
	if _, err := h.Run(ctx, Cmd{Script: script, Stdin: r, Label: "put " + path.Base(p) + " as " + or(user, "the connecting user")}); err != nil {
		return fmt.Errorf("[%s] put %s as %s: %w", h.Name(), p, or(user, "the connecting user"), err)
	}
	return nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// NotRegularError is a path ReadFileAs did not read because it is not a
// regular file: a symbolic link (never followed), a directory, a FIFO, a
// device.
type NotRegularError struct {
	Host, Path string
	Type       string // stat(1)'s words: "symbolic link", "fifo", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("[%s] %s: a %s, not a regular file: not read", e.Host, e.Path, e.Type)
}

// TooLargeError is a file ReadFileAs stopped reading at its bound.
type TooLargeError struct {
	Host, Path string
	Max        int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("[%s] %s: larger than %d bytes: not read", e.Host, e.Path, e.Max)
}

// readFileScript prints the regular file $p, at most $max+1 bytes of it;
// exit 3: nothing there; exit 4: something else than a regular file
// (its type on stdout). The type is lstat's; dd opens with O_NOFOLLOW and
// O_NONBLOCK, so a link or a FIFO swapped in after the stat is an error
// (or an empty read), never followed, never waited on.
const readFileScript = `if [ ! -e "$p" ] && [ ! -L "$p" ]; then exit 3; fi
t=$(stat -c %F -- "$p") || exit 1
case $t in "regular file" | "regular empty file") ;; *) printf '%s\n' "$t"; exit 4 ;; esac
exec dd if="$p" iflag=nofollow,nonblock,count_bytes count=$((max + 1)) bs=65536 status=none`

// ReadFileAs reads the regular file p on h as user:group (AsUser; empty
// user: the connecting user), for a path in a directory that user holds:
// root never reads through a link the user planted there. A link, a FIFO,
// a device or a directory at p is a *NotRegularError, nothing there
// wraps fs.ErrNotExist, and a file larger than max a *TooLargeError:
// memory stays bounded whatever p is.
func ReadFileAs(ctx context.Context, h Host, user, group, p string, max int64) ([]byte, error) {
	script := "p=" + Quote(p) + " max=" + strconv.FormatInt(max, 10) + "\n" + readFileScript
	res, err := RunAs(ctx, h, user, group, Cmd{Script: script, Label: "read " + p, Timeout: 5 * time.Minute, SecretStdout: true})
	var ee *ExitError
	switch {
	case errors.As(err, &ee) && ee.Code == 3:
		return nil, fmt.Errorf("[%s] %s: %w", h.Name(), p, fs.ErrNotExist)
	case errors.As(err, &ee) && ee.Code == 4:
		return nil, &NotRegularError{Host: h.Name(), Path: p, Type: strings.TrimSpace(string(res.Stdout))}
	case err != nil:
		return nil, fmt.Errorf("[%s] read %s as %s: %w", h.Name(), p, or(user, "the connecting user"), err)
	case int64(len(res.Stdout)) > max:
		return nil, &TooLargeError{Host: h.Name(), Path: p, Max: max}
	}
	return res.Stdout, nil
}

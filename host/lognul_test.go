package host

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestLogHasNoNUL: what a command prints NUL-separated (find -print0,
// sha256sum -z) reaches the host's log as one line a record, with no NUL
// byte (a run's log.txt held them, and grep took it for binary); the
// command's own stdout keeps them.
func TestLogHasNoNUL(t *testing.T) {
	var log bytes.Buffer
	h := NewLocal(&log)
	res, err := h.Run(context.Background(), Cmd{Script: `printf 'a b\0\0c\0d\ne\n\0f'`, Label: "list"})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "a b\x00\x00c\x00d\ne\n\x00f" {
		t.Errorf("stdout %q: the NULs are the caller's", res.Stdout)
	}
	if bytes.IndexByte(log.Bytes(), 0) >= 0 {
		t.Errorf("log holds NUL bytes:\n%q", log.String())
	}
	var got []string
	for _, l := range strings.Split(log.String(), "\n") {
		if r, ok := strings.CutPrefix(l, "[local] list: "); ok {
			got = append(got, r)
		}
	}
	if want := []string{"a b", "c", "d", "e", "f"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("log lines %q, want %q\n%s", got, want, log.String())
	}
}

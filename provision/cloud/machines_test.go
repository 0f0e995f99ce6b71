package cloud

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRedactWriterCatchesSplitSecrets(t *testing.T) {
	k, err := NewKeyPair(nil, "h")
	if err != nil {
		t.Fatal(err)
	}
	r := &Redactor{}
	r.Add("tok-123456789abcdef", k.PrivatePEM)
	var out strings.Builder
	w := r.Writer(&out)
	// The token split across writes; the key as it appears JSON-escaped in
	// user_data (one line, "\n" between PEM lines, re-indented).
	escaped := strings.ReplaceAll(CloudInitHostKey(k), "\n", `\n`)
	for _, p := range []string{"Authorization: tok-1234", "56789abcdef\n", `{"user_data":"` + escaped + `"}`, "\n", "tail without newline tok-123456789abcdef"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "tok-123456789abcdef") || strings.Count(got, Mask) < 3 {
		t.Errorf("token not masked: %q", got)
	}
	for _, l := range strings.Split(k.PrivatePEM, "\n") {
		if len(l) > 0 && !strings.HasPrefix(l, "-----") && strings.Contains(got, l) {
			t.Errorf("key line leaked: %q", l)
		}
	}
	if !strings.Contains(got, "ed25519_public: "+k.Public) {
		t.Errorf("the public key should stay readable: %q", got)
	}
}

func TestExpiredRunsAndSelector(t *testing.T) {
	now := mustTime(t, "2026-11-29T12:00:00Z")
	rs := []Resource{
		{Run: "a", Expires: now.Add(-1)}, {Run: "a", Expires: now.Add(-1)},
		{Run: "b", Expires: now.Add(1e9)},
		{Run: "c"}, // no expiry: never collected
		{Run: "d", Expires: now},
	}
	exp, unk := ExpiredRuns(rs, now)
	if strings.Join(exp, ",") != "a,d" || strings.Join(unk, ",") != "c" {
		t.Errorf("expired %v unknown %v", exp, unk)
	}
	for _, s := range []Selector{{}, {Run: "a", AllRuns: true}, {Run: "a,wptest/run"}, {Run: "A"}} {
		if _, err := s.LabelSelector(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if _, err := (Selector{}).LabelSelector(); !errors.Is(err, ErrEmptySelector) {
		t.Errorf("empty selector: %v", err)
	}
	if got, _ := (Selector{Run: "t1"}).LabelSelector(); got != "wptest=1,wptest/run=t1" {
		t.Errorf("got %q", got)
	}
}

func mustTime(t *testing.T, s string) (tm time.Time) {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

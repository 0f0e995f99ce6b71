package redact

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestURLs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://user:pw@host/x", "https://(sensitive)@host/x"},
		{"https://tok@github.com/a.git", "https://(sensitive)@github.com/a.git"},
		{"http://u:p@ss@h:8080/?a=b@c", "http://(sensitive)@h:8080/?a=b@c"},
		{"ruid2_source_url=https://a:b@x/y and ftp://c:d@e", "ruid2_source_url=https://(sensitive)@x/y and ftp://(sensitive)@e"},
		{"https://host/path@v2", "https://host/path@v2"},
		{"ssh://root@192.0.2.1:2222", "ssh://root@192.0.2.1:2222"},
		{"ssh://root:pw@192.0.2.1:2222", "ssh://(sensitive)@192.0.2.1:2222"},
		{"mail me@example.com", "mail me@example.com"},
		{"file:///tmp/x", "file:///tmp/x"},
		// A password may hold quotes, backslashes and angle brackets.
		{"https://alice:S3c'ret@example.com/m.c", "https://(sensitive)@example.com/m.c"},
		{`https://a:b"c\d<e>f@example.com/`, "https://(sensitive)@example.com/"},
		{`url='https://alice:S3c'\''ret@example.com/m.c'`, "url='https://(sensitive)@example.com/m.c'"},
	} {
		if got := URLs(tc.in); got != tc.want {
			t.Errorf("URLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestURLsJSON: redacting the JSON bytes keeps them valid JSON with the
// same structure, each string redacted as URLs would.
func TestURLsJSON(t *testing.T) {
	in := map[string]any{"a": "https://u:p\"w@h/", "b": []any{"x", "http://k@h/p"}, "c": `"quoted" https://q:r@s/`,
		"d": `https://alice:S3c'r\"e<t>@example.com/`, "e": "https://x/", "f": "y@z"}
	b, _ := json.Marshal(in)
	var got map[string]any
	if err := json.Unmarshal(URLsJSON(b), &got); err != nil {
		t.Fatalf("%v: %s", err, URLsJSON(b))
	}
	want := map[string]any{"a": "https://(sensitive)@h/", "b": []any{"x", "http://(sensitive)@h/p"}, "c": `"quoted" https://(sensitive)@s/`,
		"d": "https://(sensitive)@example.com/", "e": "https://x/", "f": "y@z"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestVars(t *testing.T) {
	got := Vars(map[string]string{"pw": "hunter2", "url": "https://u:p@h/", "other": "x-hunter2-y", "plain": "8080"},
		func(n string) bool { return n == "pw" }, []string{"hunter2"})
	want := map[string]string{"pw": Redacted, "url": "https://(sensitive)@h/", "other": "x-(sensitive)-y", "plain": "8080"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestReplace: one pass, longest first, and the marker it writes (or one
// already there) is never matched again, whatever the secrets: a secret
// of one letter of "(sensitive)" hides that letter elsewhere only, and the
// output grows linearly.
func TestReplace(t *testing.T) {
	for _, tc := range []struct {
		in      string
		secrets []string
		want    string
		n       int
	}{
		{"-phunter2 x", []string{"hunter2"}, "-p(sensitive) x", 1},
		{"abcd", []string{"ab", "abc"}, "(sensitive)d", 1},
		{"see (sensitive) s", []string{"s"}, "(sensitive)ee (sensitive) (sensitive)", 2},
		{"sensitive", []string{"s", "e", "n", "i", "t", "v", "(", ")"}, "(sensitive)(sensitive)(sensitive)(sensitive)(sensitive)(sensitive)(sensitive)(sensitive)(sensitive)", 9},
		{"(sensitive)", []string{"sensitive", "(sens", "ive)"}, "(sensitive)", 0},
		{"x", nil, "x", 0},
		{"x", []string{""}, "x", 0},
	} {
		got, n := Replace(tc.in, tc.secrets)
		if got != tc.want || n != tc.n {
			t.Errorf("Replace(%q, %q) = %q, %d; want %q, %d", tc.in, tc.secrets, got, n, tc.want, tc.n)
		}
	}
	// Applied again and again, with every letter of the marker a secret,
	// the text does not grow: the marker is never redacted.
	s := "a secret: s"
	letters := []string{"(", "s", "e", "n", "i", "t", "v", ")"}
	s = Strings(s, letters)
	once := s
	for range 10 {
		s = Strings(s, letters)
	}
	if s != once {
		t.Errorf("redacting again changed %q to %q", once, s)
	}
}

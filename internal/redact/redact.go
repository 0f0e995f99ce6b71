// Package redact hides secrets in what wptest records and prints: the
// userinfo of URLs (https://user:pw@host/) wherever it appears in text or
// JSON, and values named secret.
package redact

import (
	"regexp"
	"strings"
)

// Redacted is what a hidden value reads as.
const Redacted = "(sensitive)"

// userinfo is a URL's scheme and authority up to its last "@": the
// userinfo is everything between "//" and that "@" that is no path,
// query, fragment or space. A password may hold quotes, "\\", "<" and ">"
// (RFC 3986 allows "'"; wptest's validations [[:graph:]] the rest), so
// they are part of it.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#\s@]*(?:@[^/?#\s@]*)*)@`)

// userinfoJSON is userinfo inside a JSON string: a quote there is escaped
// (\"), so a match takes escapes whole and never crosses an unescaped
// quote into the next string.
var userinfoJSON = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)((?:[^/?#\s"\\@]|\\[^/])*(?:@(?:[^/?#\s"\\@]|\\[^/])*)*)@`)

// hider hides one match of re. An ssh:// login name alone
// (ssh://root@host, a --target) is no secret and stays: wptest refuses
// passwords there.
func hider(re *regexp.Regexp) func(string) string {
	return func(m string) string {
		sub := re.FindStringSubmatch(m)
		if strings.EqualFold(sub[1], "ssh://") && !strings.Contains(sub[2], ":") {
			return m
		}
		return sub[1] + Redacted + "@"
	}
}

var hide, hideJSON = hider(userinfo), hider(userinfoJSON)

// URLs is s with the userinfo of every URL in it replaced by Redacted:
// "https://u:pw@host/x" reads "https://(sensitive)@host/x". s may be a
// URL or any text; JSON goes through URLsJSON.
func URLs(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return userinfo.ReplaceAllStringFunc(s, hide)
}

// URLsJSON is URLs over JSON bytes: a match stays in one JSON string.
func URLsJSON(b []byte) []byte {
	if !strings.Contains(string(b), "@") {
		return b
	}
	return userinfoJSON.ReplaceAllFunc(b, func(m []byte) []byte { return []byte(hideJSON(string(m))) })
}

// Strings is s with every one of secrets replaced by Redacted (Replace).
func Strings(s string, secrets []string) string {
	out, _ := Replace(s, secrets)
	return out
}

// Replace is s with every one of secrets replaced by Redacted, and how
// many it replaced. It reads s once, left to right: at each position the
// longest secret that starts there is replaced, and a Redacted already in
// s is copied as it is, never matched nor split. So the marker it writes
// is never redacted again (a secret of one letter of "sensitive" cannot
// feed on its own output) and the result is at most len(Redacted) times
// as long as s.
func Replace(s string, secrets []string) (string, int) {
	secrets = longestFirst(secrets)
	var first [256]bool // first bytes of the secrets: a cheap pre-check
	have := false
	for _, v := range secrets {
		if v != "" {
			first[v[0]], have = true, true
		}
	}
	if !have || s == "" {
		return s, 0
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], Redacted) {
			b.WriteString(Redacted)
			i += len(Redacted)
			continue
		}
		if first[s[i]] {
			if v := matchAt(s[i:], secrets); v != "" {
				b.WriteString(Redacted)
				i += len(v)
				n++
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	if n == 0 {
		return s, 0
	}
	return b.String(), n
}

// matchAt is the first (longest) of secrets s starts with, or "".
func matchAt(s string, secrets []string) string {
	for _, v := range secrets {
		if v != "" && strings.HasPrefix(s, v) {
			return v
		}
	}
	return ""
}

// Vars is a copy of vars as a record shows them: a value whose name
// secret reports is Redacted; every other has its URLs' userinfo and any
// of secrets hidden.
func Vars(vars map[string]string, secret func(name string) bool, secrets []string) map[string]string {
	if vars == nil {
		return nil
	}
	out := make(map[string]string, len(vars))
	for k, v := range vars {
		if secret != nil && secret(k) {
			out[k] = Redacted
			continue
		}
		out[k] = Strings(URLs(v), secrets)
	}
	return out
}

func longestFirst(ss []string) []string {
	out := append([]string(nil), ss...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

package benchgen

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// assetRef is one asset a page references, resolved against the page (or
// its <base href>) and without its fragment.
type assetRef struct {
	url *url.URL
	css bool // a stylesheet: its url()s are assets of the page too
}

// pageRefs finds the assets a browser would load for the page at base: the
// stylesheets (<link rel=stylesheet>), scripts (<script src>), images
// (<img>: the first srcset candidate, else src; loading=lazy included, as
// there is no viewport to leave them out), the <link>s a browser fetches on
// its own (preload, modulepreload, icon, apple-touch-icon), and the url()s
// and @imports of inline <style> elements. In document order, deduplicated.
func pageRefs(doc []byte, base *url.URL) []assetRef {
	var refs []assetRef
	add := func(raw string, css bool) {
		if u := resolveRef(base, raw); u != nil {
			refs = append(refs, assetRef{url: u, css: css})
		}
	}
	z := html.NewTokenizer(bytes.NewReader(doc))
	baseSeen := false
	inStyle := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return dedupeRefs(refs)
		case html.TextToken:
			if inStyle {
				for _, r := range cssRefs(z.Text()) {
					add(r, false)
				}
			}
			continue
		case html.EndTagToken:
			inStyle = false
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		name, hasAttr := z.TagName()
		attrs := map[string]string{}
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			if _, dup := attrs[string(k)]; !dup { // the first of a repeated attribute wins, as in HTML
				attrs[string(k)] = string(v)
			}
		}
		switch string(name) {
		case "base":
			// Only the first <base href> counts, and only for what follows it.
			if h, ok := attrs["href"]; ok && !baseSeen {
				baseSeen = true
				if u := resolveRef(base, h); u != nil {
					base = u
				}
			}
		case "link":
			rels := strings.Fields(strings.ToLower(attrs["rel"]))
			switch {
			case has(rels, "stylesheet") && !has(rels, "alternate"):
				add(attrs["href"], true)
			case has(rels, "preload"), has(rels, "modulepreload"), has(rels, "icon"), has(rels, "apple-touch-icon"):
				add(attrs["href"], strings.EqualFold(attrs["as"], "style"))
			}
		case "script":
			add(attrs["src"], false)
		case "img":
			if s := firstSrcset(attrs["srcset"]); s != "" {
				add(s, false)
			} else {
				add(attrs["src"], false)
			}
		case "style":
			inStyle = tt == html.StartTagToken
		}
	}
}

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// firstSrcset is the URL of a srcset's first candidate ("a.jpg 1x, b.jpg 2x").
func firstSrcset(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	// A URL may hold commas; a candidate ends at whitespace, then its descriptor.
	if i := strings.IndexAny(s, " \t\n\r\f"); i >= 0 {
		return s[:i]
	}
	return strings.TrimSuffix(s, ",")
}

// resolveRef resolves raw against base; nil for what a browser would not
// fetch over HTTP (empty, data:, javascript:, blob:, unparsable).
func resolveRef(base *url.URL, raw string) *url.URL {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.HasPrefix(raw, "#") {
		return nil
	}
	u, err := base.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	u.Fragment, u.RawFragment = "", ""
	return u
}

// dedupeRefs keeps each URL once, in first-seen order; a URL seen both as a
// stylesheet and otherwise (a preload of it) is a stylesheet.
func dedupeRefs(refs []assetRef) []assetRef {
	at := map[string]int{}
	var out []assetRef
	for _, r := range refs {
		k := r.url.String()
		if i, ok := at[k]; ok {
			out[i].css = out[i].css || r.css
			continue
		}
		at[k] = len(out)
		out = append(out, r)
	}
	return out
}

var (
	cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	cssURL     = regexp.MustCompile(`(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)`)
	cssImport  = regexp.MustCompile(`(?i)@import\s+(?:"([^"]*)"|'([^']*)')`)
)

// cssRefs is the url()s and @import strings of a stylesheet, in order.
func cssRefs(css []byte) []string {
	css = cssComment.ReplaceAll(css, nil)
	type hit struct {
		at  int
		ref string
	}
	var hits []hit
	for _, re := range []*regexp.Regexp{cssURL, cssImport} {
		for _, m := range re.FindAllSubmatchIndex(css, -1) {
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 {
					hits = append(hits, hit{m[0], string(css[m[g]:m[g+1]])})
					break
				}
			}
		}
	}
	// url("a") inside an @import is found by both: keep one, by position.
	seen := map[int]bool{}
	var out []string
	for len(hits) > 0 {
		best := 0
		for i, h := range hits {
			if h.at < hits[best].at {
				best = i
			}
		}
		h := hits[best]
		hits = append(hits[:best], hits[best+1:]...)
		if !seen[h.at] {
			seen[h.at] = true
			out = append(out, h.ref)
		}
	}
	return out
}

// sameOrigin reports whether u is on a's origin (scheme, host, port).
func sameOrigin(a, u *url.URL) bool {
	return a.Scheme == u.Scheme && strings.EqualFold(a.Hostname(), u.Hostname()) && originPort(a) == originPort(u)
}

func originPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

package provision

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/wptest/wptest/host"
)

// Check proves that the profile took effect: an HTTP probe or a command
// whose output must match, retried until it passes or Timeout ends.
type Check struct {
	ID      string
	Timeout time.Duration
	HTTP    *HTTPCheck
	Command *CommandCheck
	// marks say which of its attributes came from a sensitive value.
	marks *fieldMarks
}

// HTTPCheck is a request made from the host's point of view.
type HTTPCheck struct {
	URL             string            `json:"url"`
	Method          string            `json:"method"`
	Headers         map[string]string `json:"headers,omitempty"`
	Protocol        string            `json:"protocol"`
	Insecure        bool              `json:"insecure,omitempty"`
	ServerName      string            `json:"server_name,omitempty"`
	ExpectStatus    int               `json:"expect_status"`
	ExpectHeader    map[string]string `json:"expect_header,omitempty"`
	ExpectNoHeader  []string          `json:"expect_no_header,omitempty"`
	ExpectBodyRegex string            `json:"expect_body_regex,omitempty"`
	ExpectProtocol  string            `json:"expect_protocol,omitempty"`
}

// CommandCheck runs a command; its exit code and output must match.
type CommandCheck struct {
	Run         string `json:"run"`
	ExpectRegex string `json:"expect_regex,omitempty"`
	ExpectExit  int    `json:"expect_exit"`
}

// Fact is a command whose output is recorded after apply (for manifests).
// With ExpectRegex, an output that does not match it makes Deviation (its
// "%s" replaced by the output) one of the apply's deviations: what the
// host runs decides, not what the profile expected.
type Fact struct {
	ID          string `json:"id"`
	Run         string `json:"run"`
	ExpectRegex string `json:"expect_regex,omitempty"`
	Deviation   string `json:"deviation,omitempty"`
	// marks say which of its attributes came from a sensitive value.
	marks *fieldMarks
}

// deviation is what the fact's output makes a deviation of ("" if none),
// as output shows it: the deviation as its marks show it, its "%s" the
// output as text shows it.
func (f *Fact) deviation(output string, text func(string) string) string {
	if f.ExpectRegex == "" || regexp.MustCompile(f.ExpectRegex).MatchString(output) {
		return ""
	}
	if output == "" {
		output = "(no output)"
	}
	return strings.ReplaceAll(f.marks.showString("deviation", f.Deviation), "%s", text(output))
}

// DeviationText is the deviation as a plan shows it before the fact has
// run: its "%s" (the output, known only on the host) said in words, so no
// format verb reaches a reader.
func (f *Fact) DeviationText() string {
	return strings.ReplaceAll(f.Deviation, "%s", "<"+f.ID+"'s output>")
}

// shown is a copy of f as output shows it (its marks, then redact).
func (f *Fact) shown(redact func(string) string) *Fact {
	return &Fact{ID: f.ID, Run: redact(f.marks.showString("run", f.Run)),
		ExpectRegex: redact(f.marks.showString("expect_regex", f.ExpectRegex)),
		Deviation:   redact(f.marks.showString("deviation", f.Deviation))}
}

// report is c's spec as output shows it (its marks, then redact).
func (c *Check) report(redact func(string) string) *CheckReport {
	cr := &CheckReport{ID: c.ID, Timeout: c.marks.showString("timeout", c.Timeout.String())}
	if c.HTTP != nil {
		cr.HTTP = c.marks.sub("http.").shownFields(fields(c.HTTP), redact)
	}
	if c.Command != nil {
		cr.Command = c.marks.sub("command.").shownFields(fields(c.Command), redact)
	}
	return cr
}

// shownFields is showFields of m, a struct's fields, with every marked
// field that fields left out (omitempty: a false insecure, a zero)
// shown too: left out, it would say what the secret made it.
func (f *fieldMarks) shownFields(m map[string]any, redact func(string) string) map[string]any {
	for _, n := range f.names() {
		if _, ok := m[n]; !ok && !strings.Contains(n, ".") {
			m[n] = Redacted
		}
	}
	return f.showFields(m, redact)
}

// Wait runs the check until it passes or its timeout ends; the error is the
// last attempt's.
func (c *Check) Wait(ctx context.Context, h host.Host) error {
	deadline := time.Now().Add(c.Timeout)
	for {
		err := c.Once(ctx, h)
		if err == nil {
			return nil
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Once runs the check one time.
func (c *Check) Once(ctx context.Context, h host.Host) error {
	if c.HTTP != nil {
		return c.HTTP.once(ctx, h, c.Timeout)
	}
	return c.Command.once(ctx, h, c.ID)
}

func (c *CommandCheck) once(ctx context.Context, h host.Host, id string) error {
	res, err := h.Run(ctx, host.Cmd{Script: c.Run, Label: id})
	code, rerr := exitCode(res, err)
	if rerr != nil {
		return rerr
	}
	out := string(res.Stdout) + string(res.Stderr)
	if code != c.ExpectExit {
		return fmt.Errorf("exit status %d, want %d; output: %s", code, c.ExpectExit, host.Tail([]byte(out), 5))
	}
	if c.ExpectRegex != "" {
		re, err := regexp.Compile(c.ExpectRegex)
		if err != nil {
			return err
		}
		if !re.MatchString(out) {
			return fmt.Errorf("output does not match %q: %s", c.ExpectRegex, host.Tail([]byte(out), 5))
		}
	}
	return nil
}

func (c *HTTPCheck) once(ctx context.Context, h host.Host, timeout time.Duration) error {
	u, err := url.Parse(c.URL)
	if err != nil {
		return err
	}
	tr := c.transport(h, u)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: min(timeout, 10*time.Second) + time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := c.request(ctx)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", c.Method, c.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read body: %w", c.Method, c.URL, err)
	}
	fails, err := c.mismatches(resp, body)
	if err != nil {
		return err
	}
	if len(fails) > 0 {
		return fmt.Errorf("%s %s: %s", c.Method, c.URL, strings.Join(fails, "; "))
	}
	return nil
}

// transport dials through h, one connection per check, in the check's
// protocol only.
func (c *HTTPCheck) transport(h host.Host, u *url.URL) *http.Transport {
	tr := &http.Transport{
		DialContext:        h.DialContext,
		DisableKeepAlives:  true,
		DisableCompression: true, // show Content-Encoding and the bytes as sent
		Protocols:          new(http.Protocols),
		TLSClientConfig: &tls.Config{
			ServerName: or(c.ServerName, u.Hostname()),
			// Only for the self-signed certificates of test servers, and only
			// when the profile says so.
			InsecureSkipVerify: c.Insecure, //nolint:gosec
		},
	}
	switch c.Protocol {
	case "h2":
		tr.Protocols.SetHTTP2(true)
	case "h2c":
		tr.Protocols.SetUnencryptedHTTP2(true)
	default:
		tr.Protocols.SetHTTP1(true)
	}
	return tr
}

// request is the check's request with its headers (a Host header sets the
// request's host).
func (c *HTTPCheck) request(ctx context.Context) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, c.Method, c.URL, nil)
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
		if strings.EqualFold(k, "Host") {
			req.Host = c.Headers[k]
			continue
		}
		req.Header.Set(k, c.Headers[k])
	}
	return req, nil
}

// mismatches names every way the answer differs from what the check
// expects (status, protocol, headers, body), in that order.
func (c *HTTPCheck) mismatches(resp *http.Response, body []byte) ([]string, error) {
	var fails []string
	if resp.StatusCode != c.ExpectStatus {
		fails = append(fails, fmt.Sprintf("status %d, want %d", resp.StatusCode, c.ExpectStatus))
	}
	if c.ExpectProtocol != "" && resp.Proto != c.ExpectProtocol {
		fails = append(fails, fmt.Sprintf("protocol %s, want %s", resp.Proto, c.ExpectProtocol))
	}
	for _, k := range slices.Sorted(maps.Keys(c.ExpectHeader)) {
		re, err := regexp.Compile(c.ExpectHeader[k])
		if err != nil {
			return nil, err
		}
		vals, ok := resp.Header[http.CanonicalHeaderKey(k)]
		if !ok {
			fails = append(fails, fmt.Sprintf("header %s missing, want /%s/", k, c.ExpectHeader[k]))
		} else if v := strings.Join(vals, ", "); !re.MatchString(v) {
			fails = append(fails, fmt.Sprintf("header %s: %q does not match /%s/", k, v, c.ExpectHeader[k]))
		}
	}
	for _, k := range c.ExpectNoHeader {
		if v := resp.Header.Get(k); v != "" {
			fails = append(fails, fmt.Sprintf("header %s: %q, want none", k, v))
		}
	}
	if c.ExpectBodyRegex != "" {
		re, err := regexp.Compile(c.ExpectBodyRegex)
		if err != nil {
			return nil, err
		}
		if !re.Match(body) {
			fails = append(fails, fmt.Sprintf("body does not match /%s/: %q", c.ExpectBodyRegex, abbrev(string(body), 200)))
		}
	}
	return fails, nil
}

func abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

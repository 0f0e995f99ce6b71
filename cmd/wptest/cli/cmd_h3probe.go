package cli

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	neturl "net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/h3probe"
)

// wptest h3probe: one HTTP/3 request with the quic-go client built into
// wptest. Server profiles run it on the host (a command check) because HTTP
// checks go through the SSH connection, which carries TCP only.
func h3probeCommand() *command {
	return &command{name: "h3probe", synopsis: "make one HTTP/3 request and check the answer",
		usage: "h3probe [flags] https://HOST:PORT/PATH", args: true,
		about: "It prints the status line and headers (--body: the body too); a status or body other than expected is exit 4.",
		examples: []string{"wptest h3probe https://127.0.0.1:443/ --server-name example.test --ca-file ca.pem",
			"wptest h3probe --expect-body 'wp-content' https://203.0.113.7/"},
		setup: define(h3probeFlagSet, runH3Probe)}
}

// h3probeFlags are h3probe's flags.
type h3probeFlags struct {
	serverName, caFile, expectBody string
	timeout                        time.Duration
	expectStatus                   int
	showBody                       bool
	headers                        multiFlag
}

func h3probeFlagSet(fs *flag.FlagSet, f *h3probeFlags) {
	fs.StringVar(&f.serverName, "server-name", "", "TLS SNI (needed when HOST is an IP address); default HOST")
	fs.StringVar(&f.caFile, "ca-file", "", "PEM certificate(s) to trust instead of the system roots")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "bound for the whole request")
	fs.IntVar(&f.expectStatus, "expect-status", 200, "status the answer must have (0 = any)")
	fs.StringVar(&f.expectBody, "expect-body", "", "regular expression the body must match")
	fs.BoolVar(&f.showBody, "body", false, "print the body after the status line and headers")
	fs.Var(&f.headers, "header", "request header \"Name: value\" (repeatable)")
}

func runH3Probe(ctx context.Context, a *App, f *h3probeFlags, args []string) error {
	if len(args) != 1 {
		return usage("want exactly one URL, got %d arguments", len(args))
	}
	if f.timeout < 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--timeout %s: want a duration >= 0", f.timeout))
	}
	var bodyRE *regexp.Regexp
	if f.expectBody != "" {
		re, err := regexp.Compile(f.expectBody)
		if err != nil {
			return exitcode.With(exitcode.Config, fmt.Errorf("--expect-body: %w", err))
		}
		bodyRE = re
	}
	h := http.Header{}
	for _, kv := range f.headers {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			return exitcode.With(exitcode.Config, fmt.Errorf("--header %q: want \"Name: value\"", kv))
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	url := args[0]
	if u, err := neturl.Parse(url); err != nil || u.Scheme != "https" || u.Host == "" || u.Hostname() == "" {
		return exitcode.With(exitcode.Config, fmt.Errorf("URL %q: want https://HOST[:PORT]/PATH (HTTP/3 is https only)", url))
	}
	res, err := h3probe.Get(ctx, url, h3probe.Options{ServerName: f.serverName, CAFile: f.caFile, Header: h, Timeout: f.timeout})
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	fmt.Fprintf(a.Stdout, "%s %d\n", res.Proto, res.Status)
	names := make([]string, 0, len(res.Header))
	for k := range res.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range res.Header[k] {
			fmt.Fprintf(a.Stdout, "%s: %s\n", k, v)
		}
	}
	if f.showBody {
		fmt.Fprintf(a.Stdout, "\n%s", res.Body)
	}
	if f.expectStatus != 0 && res.Status != f.expectStatus {
		return exitcode.With(exitcode.Provision, fmt.Errorf("GET %s over HTTP/3: status %d, want %d", url, res.Status, f.expectStatus))
	}
	if bodyRE != nil && !bodyRE.Match(res.Body) {
		return exitcode.With(exitcode.Provision, fmt.Errorf("GET %s over HTTP/3: body does not match %q (first bytes: %q)", url, f.expectBody, h3ProbeHead(res.Body, 200)))
	}
	return nil
}

func h3ProbeHead(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

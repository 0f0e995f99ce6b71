package cli

import (
	"context"
	"errors"
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
func runH3Probe(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "h3probe")
	fs.Usage = func() {
		fmt.Fprintln(a.Stderr, "usage: wptest h3probe [flags] https://HOST:PORT/PATH")
		fs.PrintDefaults()
	}
	serverName := fs.String("server-name", "", "TLS SNI (needed when HOST is an IP address); default HOST")
	caFile := fs.String("ca-file", "", "PEM certificate(s) to trust instead of the system roots")
	timeout := fs.Duration("timeout", 10*time.Second, "bound for the whole request")
	expectStatus := fs.Int("expect-status", 200, "status the answer must have (0 = any)")
	expectBody := fs.String("expect-body", "", "regular expression the body must match")
	showBody := fs.Bool("body", false, "print the body after the status line and headers")
	var headers multiFlag
	fs.Var(&headers, "header", "request header \"Name: value\" (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return exitcode.With(exitcode.Config, err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitcode.With(exitcode.Config, fmt.Errorf("want exactly one URL, got %d arguments", fs.NArg()))
	}
	if *timeout < 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--timeout %s: want a duration >= 0", *timeout))
	}
	var bodyRE *regexp.Regexp
	if *expectBody != "" {
		re, err := regexp.Compile(*expectBody)
		if err != nil {
			return exitcode.With(exitcode.Config, fmt.Errorf("--expect-body: %w", err))
		}
		bodyRE = re
	}
	h := http.Header{}
	for _, kv := range headers {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			return exitcode.With(exitcode.Config, fmt.Errorf("--header %q: want \"Name: value\"", kv))
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	url := fs.Arg(0)
	if u, err := neturl.Parse(url); err != nil || u.Scheme != "https" || u.Host == "" || u.Hostname() == "" {
		return exitcode.With(exitcode.Config, fmt.Errorf("URL %q: want https://HOST[:PORT]/PATH (HTTP/3 is https only)", url))
	}
	res, err := h3probe.Get(ctx, url, h3probe.Options{ServerName: *serverName, CAFile: *caFile, Header: h, Timeout: *timeout})
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
	if *showBody {
		fmt.Fprintf(a.Stdout, "\n%s", res.Body)
	}
	if *expectStatus != 0 && res.Status != *expectStatus {
		return exitcode.With(exitcode.Provision, fmt.Errorf("GET %s over HTTP/3: status %d, want %d", url, res.Status, *expectStatus))
	}
	if bodyRE != nil && !bodyRE.Match(res.Body) {
		return exitcode.With(exitcode.Provision, fmt.Errorf("GET %s over HTTP/3: body does not match %q (first bytes: %q)", url, *expectBody, h3ProbeHead(res.Body, 200)))
	}
	return nil
}

func h3ProbeHead(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

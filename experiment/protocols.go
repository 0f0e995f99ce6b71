package experiment

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// notServed says why sc's points cannot be measured on the live server:
// it was asked once over sc's protocol, from a load generator as the
// points' load comes, and answered with another protocol or refused it.
// The profile's declaration (server { protocols }) never decides: a claim
// that Apache "speaks HTTP/1.1 only" must be able to fail. "" : it answered
// in the protocol, or the request said nothing either way (the point is
// then measured, and its failures, if any, mark it).
func (r *runner) notServed(ctx context.Context, live *hostmanifest.Manifest, sc results.Scenario) string {
	if sc.Proto == "" || sc.Proto == "h1" {
		return ""
	}
	why, known := r.protocolCheck(ctx, sc)
	if why != "" && live != nil && live.Profile != "" {
		why = live.Profile + " does not serve " + sc.Proto + ": " + why
	}
	if declared := declaredProtos(live); known && len(declared) > 0 && (why == "") != slices.Contains(declared, sc.Proto) {
		r.logf("  %s declares %s but, asked over %s, %s", live.Profile, strings.Join(declared, ", "), sc.Proto, answeredText(why))
	}
	return why
}

func declaredProtos(hm *hostmanifest.Manifest) []string {
	if hm == nil || hm.Server == nil {
		return nil
	}
	return hm.Server.Protocols
}

func answeredText(why string) string {
	if why == "" {
		return "it answered in it"
	}
	return why
}

// protocolCheck makes one request for sc's path over sc's protocol and
// says how the server did not answer in it ("": it did, or it is
// unknown); known is false where the request said nothing either way.
func (r *runner) protocolCheck(ctx context.Context, sc results.Scenario) (why string, known bool) {
	cfg := r.baseConfig(sc, 1)
	cfg.Name, cfg.Requests, cfg.Duration, cfg.Warmup = "protocol check", 1, 0, 0
	if cfg.Timeout == 0 || cfg.Timeout > 10*time.Second {
		cfg.Timeout = 10 * time.Second
	}
	j, err := benchgen.NewRunJob(cfg)
	if err != nil {
		return "", false
	}
	res, err := r.firstLoad().Do(ctx, j)
	if err != nil || res.Run == nil {
		r.logf("  protocol check over %s: %v", sc.Proto, err)
		return "", false
	}
	why = notAnsweredIn(sc.Proto, res.Run.Outcomes, firstError(res.Run.Errors))
	if why == "" && res.Run.Outcomes.OK == 0 {
		r.logf("  protocol check over %s said nothing either way: %s", sc.Proto, firstError(res.Run.Errors))
		return "", false
	}
	return why, true
}

// notAnsweredIn reads one request's outcome: answered (""), answered in
// another protocol (the ALPN the server chose), refused in ALPN, or, for
// QUIC, refused or no answer to the handshake (a server without HTTP/3
// listens on no UDP port, and a closed UDP port may send nothing a QUIC
// client sees). Anything else says nothing about the protocol: a refused
// TCP connection (nothing listens on the port: a server down, a wrong
// port), a timeout over TCP, an HTTP error, a malformed frame from a
// server that did answer in the protocol.
func notAnsweredIn(proto string, o result.Outcomes, msg string) string {
	switch {
	case o.OK > 0:
		return ""
	case o.ProtocolError > 0 && strings.Contains(msg, "ALPN"):
		return fmt.Sprintf("asked over %s, the server answered in another protocol (%s)", proto, msg)
	case proto == "h3" && o.ConnectRefused > 0:
		return fmt.Sprintf("asked over h3, the server refused the connection (%s)", msg)
	case o.ConnectError > 0 && strings.Contains(msg, "unadvertised ALPN protocol"):
		// Offered only the protocol, the server chose another (Apache
		// without mod_http2 answers "http/1.1" to an offer of h2 alone).
		return fmt.Sprintf("asked over %s, the server answered in another protocol (%s)", proto, msg)
	case o.ConnectError > 0 && strings.Contains(msg, "no application protocol"):
		// A TLS server that knows ALPN and none of what was offered says so.
		return fmt.Sprintf("asked over %s, the server refused it in ALPN (%s)", proto, msg)
	case proto == "h3" && o.ConnectTimeout > 0:
		return fmt.Sprintf("asked over h3, the server did not answer the QUIC handshake (%s)", msg)
	}
	return ""
}

func firstError(es []result.ErrorSample) string {
	if len(es) == 0 {
		return "no message"
	}
	return es[0].Message
}

// firstLoad is the load generator a one-request check comes from.
func (r *runner) firstLoad() loadGen {
	if g, ok := r.lg.(*loadGroup); ok && len(g.gens) > 0 {
		return g.gens[0]
	}
	return r.lg
}

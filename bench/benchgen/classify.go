package benchgen

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/quic-go/quic-go"
	"github.com/wptest/wptest/bench/result"
)

// phase says where in an attempt an error happened; the same error means a
// different bucket in different phases (a timeout while dialing is a connect
// timeout; after the request was sent, a read timeout).
type phase int

const (
	phaseDial phase = iota // TCP connect, TLS or QUIC handshake
	phaseSend              // writing the request
	phaseHead              // waiting for the status line and headers
	phaseBody              // reading the body
)

// errProtocol marks a malformed response.
type errProtocol struct{ msg string }

func (e *errProtocol) Error() string { return "malformed response: " + e.msg }

// errShort marks a body that ended early.
var errShort = errors.New("connection ended before the whole body arrived")

// errNoResponse marks a connection that ended before any response byte.
var errNoResponse = errors.New("server closed the connection before any response byte")

// classify maps an attempt's error to its outcome bucket.
func classify(err error, ph phase) result.Outcome {
	var pe *errProtocol
	switch {
	case err == nil:
		return result.OK
	case errors.As(err, &pe):
		return result.ProtocolError
	case errors.Is(err, errShort):
		return result.ShortBody
	case errors.Is(err, errNoResponse):
		return result.Closed
	case isTimeout(err):
		if ph == phaseDial {
			return result.ConnectTimeout
		}
		return result.ReadTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		if ph == phaseDial {
			return result.ConnectRefused
		}
		return result.Reset
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		if ph == phaseDial {
			return result.ConnectError
		}
		return result.Reset
	}
	if ph == phaseDial {
		return result.ConnectError
	}
	// QUIC: a reset stream or a closed connection.
	var se *quic.StreamError
	var ae *quic.ApplicationError
	var te *quic.TransportError
	var sr *quic.StatelessResetError
	if errors.As(err, &se) || errors.As(err, &ae) || errors.As(err, &te) || errors.As(err, &sr) {
		return result.Reset
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "RST_STREAM"), strings.Contains(msg, "stream error"),
		strings.Contains(msg, "GOAWAY"), strings.Contains(msg, "connection reset"):
		return result.Reset
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		if ph == phaseBody {
			return result.ShortBody
		}
		return result.Closed
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "protocol error"),
		strings.Contains(msg, "PROTOCOL_ERROR"):
		return result.ProtocolError
	}
	var rec tls.RecordHeaderError
	if errors.As(err, &rec) {
		return result.ProtocolError
	}
	return result.OtherError
}

func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var it *quic.IdleTimeoutError
	var ht *quic.HandshakeTimeoutError
	return errors.As(err, &it) || errors.As(err, &ht)
}

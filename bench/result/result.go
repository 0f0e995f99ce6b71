// Package result holds benchgen's JSON result types. The schema is stable:
// fields are only ever added; a change of meaning bumps Schema. bench/README.md
// documents every field. Durations are float64 milliseconds (suffix _ms),
// byte counts are integers, rates are per second over the time that actually
// elapsed (Elapsed), never over the planned duration.
package result

import (
	"fmt"

	"github.com/wptest/wptest/bench/hdr"
)

// Schema names this version of the format.
const Schema = "wptest.bench/v1"

// Outcome is the bucket one attempt ended in. Every attempt that started in
// the measured window ends in exactly one outcome.
type Outcome int

// The outcome buckets. Order is the JSON order of Outcomes.
const (
	OK             Outcome = iota // 2xx with the whole body
	HTTP1xx                       // a final status outside 2xx..5xx (1xx as final, or > 599)
	HTTP3xx                       // 3xx
	HTTP4xx                       // 4xx
	HTTP5xx                       // 5xx
	ConnectRefused                // dial: ECONNREFUSED
	ConnectTimeout                // dial (TCP, TLS or QUIC handshake) took longer than the timeout
	ConnectError                  // other dial error, client side included (EADDRNOTAVAIL: out of ports; TLS failure)
	Reset                         // connection reset (ECONNRESET, EPIPE, QUIC/h2 stream or connection reset)
	Closed                        // server closed the connection before sending any byte of the response
	ReadTimeout                   // no complete response within the timeout (sent, waiting, or mid-body)
	ShortBody                     // the connection ended before the whole body (Content-Length or chunked) arrived
	ProtocolError                 // malformed response (status line, headers, chunking)
	QueueTimeout                  // open loop only: the send time plus the timeout passed before a connection was free to send it, or the window ended with the load generator behind its schedule (Run.Limit)
	OtherError                    // anything else, with the message kept in Errors
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{"ok", "http_1xx", "http_3xx", "http_4xx", "http_5xx",
	"connect_refused", "connect_timeout", "connect_error", "reset", "closed", "read_timeout",
	"short_body", "protocol_error", "queue_timeout", "other_error"}

func (o Outcome) String() string {
	if o < 0 || o >= NumOutcomes {
		return "invalid"
	}
	return outcomeNames[o]
}

// Outcomes counts attempts per bucket. Sum() == Run.Attempts always.
type Outcomes struct {
	OK             int64 `json:"ok"`
	HTTP1xx        int64 `json:"http_1xx"`
	HTTP3xx        int64 `json:"http_3xx"`
	HTTP4xx        int64 `json:"http_4xx"`
	HTTP5xx        int64 `json:"http_5xx"`
	ConnectRefused int64 `json:"connect_refused"`
	ConnectTimeout int64 `json:"connect_timeout"`
	ConnectError   int64 `json:"connect_error"`
	Reset          int64 `json:"reset"`
	Closed         int64 `json:"closed"`
	ReadTimeout    int64 `json:"read_timeout"`
	ShortBody      int64 `json:"short_body"`
	ProtocolError  int64 `json:"protocol_error"`
	QueueTimeout   int64 `json:"queue_timeout"`
	OtherError     int64 `json:"other_error"`
}

// FromArray fills Outcomes from counts indexed by Outcome.
func FromArray(a [NumOutcomes]int64) Outcomes {
	return Outcomes{a[OK], a[HTTP1xx], a[HTTP3xx], a[HTTP4xx], a[HTTP5xx], a[ConnectRefused],
		a[ConnectTimeout], a[ConnectError], a[Reset], a[Closed], a[ReadTimeout], a[ShortBody],
		a[ProtocolError], a[QueueTimeout], a[OtherError]}
}

// Array is the inverse of FromArray.
func (o Outcomes) Array() [NumOutcomes]int64 {
	return [NumOutcomes]int64{o.OK, o.HTTP1xx, o.HTTP3xx, o.HTTP4xx, o.HTTP5xx, o.ConnectRefused,
		o.ConnectTimeout, o.ConnectError, o.Reset, o.Closed, o.ReadTimeout, o.ShortBody,
		o.ProtocolError, o.QueueTimeout, o.OtherError}
}

// Sum is the number of attempts counted.
func (o Outcomes) Sum() int64 {
	var s int64
	for _, v := range o.Array() {
		s += v
	}
	return s
}

// Failed is every attempt that is not OK.
func (o Outcomes) Failed() int64 { return o.Sum() - o.OK }

// ABErrors splits failures the way ab and the Apache kit do.
type ABErrors struct {
	Connect    int64 `json:"connect"`    // connect_refused + connect_timeout + connect_error
	Receive    int64 `json:"receive"`    // reset + closed + read_timeout + queue_timeout
	Length     int64 `json:"length"`     // short_body
	Exceptions int64 `json:"exceptions"` // protocol_error + other_error
	Non2xx     int64 `json:"non_2xx"`    // http_1xx + http_3xx + http_4xx + http_5xx
}

// AB maps the buckets onto ab's failure columns.
func (o Outcomes) AB() ABErrors {
	return ABErrors{
		Connect:    o.ConnectRefused + o.ConnectTimeout + o.ConnectError,
		Receive:    o.Reset + o.Closed + o.ReadTimeout + o.QueueTimeout,
		Length:     o.ShortBody,
		Exceptions: o.ProtocolError + o.OtherError,
		Non2xx:     o.HTTP1xx + o.HTTP3xx + o.HTTP4xx + o.HTTP5xx,
	}
}

// Latency summarises one HDR histogram. All values in milliseconds.
type Latency struct {
	Count uint64  `json:"count"`
	Min   float64 `json:"min_ms"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
	// Percentiles is ab's table: the value at 50, 66, 75, 80, 90, 95, 98, 99 and 100%.
	Percentiles []Percentile `json:"percentiles,omitempty"`
}

// Percentile is one row of a percentile table.
type Percentile struct {
	Pct float64 `json:"pct"`
	Ms  float64 `json:"ms"`
}

// Bytes are counted at the connection (net.Conn reads and writes, or UDP
// datagrams for h3), so they include status lines, headers, chunk framing, TLS
// records and QUIC packets; Body is the response bodies as received (still
// compressed when the server compressed).
type Bytes struct {
	WireIn  int64 `json:"wire_in"`
	WireOut int64 `json:"wire_out"`
	Headers int64 `json:"headers"` // response status lines + headers (h1 only: as received; h2/h3: 0, HPACK/QPACK-compressed in WireIn)
	Body    int64 `json:"body"`
}

// Run is one load run: one scenario step at one concurrency or rate.
type Run struct {
	Name   string `json:"name"`  // step name ("c=50", "keepalive-off", "probe")
	Model  string `json:"model"` // "closed" (N visitors, each waits for its answer) or "open" (constant arrival rate, latency from the intended send time)
	Proto  string `json:"proto"` // "h1", "h2", "h2c", "h3"
	URL    string `json:"url"`
	Method string `json:"method"`
	// HTTP10: h1 requests were HTTP/1.0, as ab sends them.
	HTTP10   bool `json:"http10,omitempty"`
	Visitors int  `json:"visitors"` // connections used at once (closed loop: the N; open loop: the connection pool)
	// Multiplexed is false: every visitor has one connection and at most one request in flight on it, for h2 and h3 too.
	Multiplexed bool    `json:"multiplexed"`
	KeepAlive   bool    `json:"keep_alive"`
	Rate        float64 `json:"rate,omitempty"` // open loop: intended attempts per second
	// Planned: Requests (-n) or Duration; Warmup is excluded from every count.
	Requests   int64   `json:"requests,omitempty"`
	DurationMs float64 `json:"duration_ms,omitempty"`
	WarmupMs   float64 `json:"warmup_ms"`
	TimeoutMs  float64 `json:"timeout_ms"`
	// Start is when the measured window began (RFC 3339, UTC); ElapsedMs is
	// from then until the last counted attempt ended, in-flight waits included.
	Start     string  `json:"start"`
	ElapsedMs float64 `json:"elapsed_ms"`
	// Attempts started in the window; Outcomes.Sum() == Attempts.
	Attempts int64    `json:"attempts"`
	Outcomes Outcomes `json:"outcomes"`
	ABErrors ABErrors `json:"ab_errors"`
	// WarmupAttempts started during the warm-up; not counted anywhere else.
	WarmupAttempts int64 `json:"warmup_attempts"`
	// Connections opened in the window, and keep-alive closes: the server closed
	// the connection after a complete answer (Connection: close or EOF when
	// idle); the next attempt reconnects. Not a failure (the kit counts them apart).
	Connections     int64 `json:"connections"`
	KeepAliveCloses int64 `json:"keep_alive_closes"`
	KeepAliveReqs   int64 `json:"keep_alive_requests"` // answered on a reused connection (ab's "Keep-Alive requests")
	// Rates over ElapsedMs.
	RPS          float64 `json:"rps"`            // OK / elapsed
	AttemptRate  float64 `json:"attempt_rate"`   // Attempts / elapsed
	ErrorRatePct float64 `json:"error_rate_pct"` // (Attempts-OK) / Attempts * 100
	WireInBps    float64 `json:"wire_in_bps"`    // Bytes.WireIn / elapsed, bytes per second
	Bytes        Bytes   `json:"bytes"`
	// Latency: attempt start (open loop: intended send time) to last body byte,
	// over answered attempts (any HTTP status). Connect: dial + TLS/QUIC
	// handshake, per new connection. TTFB: request sent to first response byte
	// (h2/h3: response headers). Queue (open loop): intended → actual send.
	Latency Latency  `json:"latency"`
	Connect Latency  `json:"connect"`
	TTFB    Latency  `json:"ttfb"`
	Queue   *Latency `json:"queue,omitempty"`
	// Errors: the first distinct error messages per bucket (at most a few), to read, not to count.
	Errors []ErrorSample `json:"errors,omitempty"`
	// Limit, when set, says that the point measured the load generator,
	// not the server (SetLimit): an open loop whose intended sends did not
	// all leave this machine.
	Limit string `json:"limit,omitempty"`
	// ClientCPUMs: user+system CPU of the load generator process during the window;
	// ClientCPUPerReqUs = ClientCPUMs*1000/Attempts.
	ClientCPUMs       float64 `json:"client_cpu_ms"`
	ClientCPUPerReqUs float64 `json:"client_cpu_per_req_us"`
	// ClientCPUs is how many CPUs the load generator may run on (its
	// affinity); ClientWaitMs the time its threads were ready to run but
	// waited for a CPU during the window (schedstat). Used plus waited over
	// ElapsedMs*ClientCPUs is how much of its CPUs it wanted: near 100%, the
	// load generator, not the server, set the pace. 0: not recorded.
	ClientCPUs   int     `json:"client_cpus,omitempty"`
	ClientWaitMs float64 `json:"client_wait_ms,omitempty"`
	// Raw is the run's histograms themselves, when asked for (one of
	// several load generators' share of a run): merged exactly, never averaged.
	Raw *RunRaw `json:"raw,omitempty"`
}

// RunRaw is a run's HDR histograms (hdr's exact JSON), one per Latency field.
type RunRaw struct {
	Latency *hdr.Histogram `json:"latency"`
	Connect *hdr.Histogram `json:"connect"`
	TTFB    *hdr.Histogram `json:"ttfb"`
	Queue   *hdr.Histogram `json:"queue,omitempty"`
}

// CrowdRaw is a crowd's probe histograms (Crowd.Wait, ConnectWait).
type CrowdRaw struct {
	Wait    *hdr.Histogram `json:"wait"`
	Connect *hdr.Histogram `json:"connect_wait"`
}

// ErrorSample is one error message seen in a bucket, with how often.
type ErrorSample struct {
	Outcome string `json:"outcome"`
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// Probe is one crowd newcomer: a fresh connection and one request, started on
// a fixed schedule. Times in ms from the probe's intended start.
type Probe struct {
	At        float64 `json:"at_ms"` // intended start, from the newcomers' schedule start (CrowdWindow.ProbeStartMs; before it was recorded, Background.Start)
	Outcome   string  `json:"outcome"`
	ConnectMs float64 `json:"connect_ms"`
	TTFBMs    float64 `json:"ttfb_ms"`
	TotalMs   float64 `json:"total_ms"`
	Status    int     `json:"status,omitempty"`
}

// Crowd is the result of the crowd scenario.
type Crowd struct {
	Visitors      int      `json:"visitors"`       // background visitors holding keep-alive connections
	ClickEveryMs  float64  `json:"click_every_ms"` // each background visitor's interval
	ProbeEveryMs  float64  `json:"probe_every_ms"` // a new visitor every ...
	GiveUpMs      float64  `json:"give_up_ms"`     // a probe not answered within this gave up
	Background    Run      `json:"background"`     // the clicks (open loop per visitor, from intended click times)
	Probes        []Probe  `json:"probes"`         // every newcomer, in order
	ProbeOutcomes Outcomes `json:"probe_outcomes"`
	GaveUp        int64    `json:"gave_up"` // probes with no answer within GiveUpMs (read/connect timeout)
	Wait          Latency  `json:"wait"`    // probe total time (connect + answer), answered probes only
	ConnectWait   Latency  `json:"connect_wait"`
	// ClientRSSKB: the load generator's resident memory (VmHWM) at the end, for "3,000 connections cost N MB".
	ClientRSSKB int64 `json:"client_rss_kb"`
	// Raw: the probes' histograms, when asked for (Run.Raw).
	Raw *CrowdRaw `json:"raw,omitempty"`
	// Window: when the crowd was complete and when it stopped, beside the
	// newcomers' first and last times (nil in runs recorded before it was).
	Window *CrowdWindow `json:"window,omitempty"`
}

// CrowdWindow is when the crowd was on the site, in ms from the crowd's
// start (its first intended click: Background.Start minus its warm-up),
// on the load generator's clock. A crowd on the site for the whole probe
// window has CompleteMs <= FirstProbeMs and LastProbeEndMs <= StoppedMs.
// Joined from several load generators' shares (on the controller's clock):
// complete when the last share was, stopped when the first did, the first
// share's first newcomer to the last one's end; the shares wait for each
// other (benchgen.CrowdConfig.Hold) so that the same holds.
type CrowdWindow struct {
	WarmupMs float64 `json:"warmup_ms"` // at least click_every: each visitor's first click falls in it
	// WarmupRaisedFromMs: the warm-up asked for, when it was shorter than
	// click_every and raised to it (0: not raised).
	WarmupRaisedFromMs float64 `json:"warmup_raised_from_ms,omitempty"`
	CompleteMs         float64 `json:"complete_ms"`       // every visitor had connected and sent its first click
	ProbeStartMs       float64 `json:"probe_start_ms"`    // the newcomers' schedule start (Probe.At's origin): the warm-up's end, or CompleteMs if later (several load generators: or when every share's crowd was)
	FirstProbeMs       float64 `json:"first_probe_ms"`    // the first newcomer's intended start
	LastProbeEndMs     float64 `json:"last_probe_end_ms"` // the last newcomer's end: answered or gave up
	StoppedMs          float64 `json:"stopped_ms"`        // the crowd's last click was intended before it; its connections closed once their clicks in flight ended
}

// Startup is the kit's startup metric: restart command → first good answer.
type Startup struct {
	Rounds []float64 `json:"rounds_ms"`
	MeanMs float64   `json:"mean_ms"`
}

// Kit is the ten metrics of the Apache kit (the Apache performance kit), from benchgen's runs;
// CPU, memory and worker usage come from srvstat samples over Throughput's window.
type Kit struct {
	Startup      *Startup `json:"startup,omitempty"`
	Throughput   Run      `json:"throughput"`  // c=50, keep-alive: rps and latency percentiles
	Scaling      []Run    `json:"scaling"`     // one run per concurrency step
	ScalingPct   float64  `json:"scaling_pct"` // last step's rps as % of the best step's
	KeepAliveOn  Run      `json:"keep_alive_on"`
	KeepAliveOff Run      `json:"keep_alive_off"`
	KeepAliveX   float64  `json:"keep_alive_x"` // on.rps / off.rps
	Transfer     *Run     `json:"transfer,omitempty"`
	TransferMBs  float64  `json:"transfer_mb_s"` // Transfer body bytes / elapsed / 1e6
	Errors       Run      `json:"errors"`        // 400 visitors, no keep-alive
	Server       *Server  `json:"server,omitempty"`
}

// Server is what srvstat saw over a window (filled by whoever joins srvstat
// samples with a run: the CLI for a local server, experiment for a remote one).
type Server struct {
	WindowMs        float64             `json:"window_ms"`
	CPUBusyPct      float64             `json:"cpu_busy_pct"`       // whole machine, % of all CPUs
	CPUMsPerRequest float64             `json:"cpu_ms_per_request"` // whole-machine CPU time / OK answers
	Groups          map[string]GroupUse `json:"groups,omitempty"`   // per process group
	MaxBusyWorkers  int                 `json:"max_busy_workers,omitempty"`
	WorkerLimit     int                 `json:"worker_limit,omitempty"` // busy+idle seen
	WorkerUsagePct  float64             `json:"worker_usage_pct,omitempty"`
}

// GroupUse is one process group's share of a window.
type GroupUse struct {
	CPUMs     float64 `json:"cpu_ms"`
	CPUPct    float64 `json:"cpu_pct"` // of all CPUs
	PSSIdleKB int64   `json:"pss_first_kb"`
	PSSPeakKB int64   `json:"pss_peak_kb"`
	// ProcsPeak is the most members the group had at one sample in the
	// window ("150 php-cgi processes at once").
	ProcsPeak int `json:"procs_peak,omitempty"`
}

// Report is what `wptest bench -o json` prints: one scenario's results.
type Report struct {
	Schema   string `json:"schema"`
	Tool     string `json:"tool"` // "wptest bench <version>"
	Scenario string `json:"scenario"`
	Host     string `json:"load_host,omitempty"`
	CPUs     int    `json:"load_host_cpus"`
	// Runs: page, static, compression, ab: one per visitor count.
	Runs []Run `json:"runs,omitempty"`
	// The other kinds' result (Set.Run stays nil: Runs holds them).
	Set
	// Failed names thresholds or conditions that failed (exit code 6 when non-empty).
	Failed []string `json:"failed,omitempty"`
}

// SetLimit sets r.Limit from its counts: an open loop's queue timeouts are
// sends its schedule intended that never left the load generator (its
// connections were all busy, or it could not start them in time, as at a
// rate no machine keeps). With enough connections and CPU an open loop
// sends every one, however slow the server (each then has its latency), so
// a point with any says more about the load generator than the server,
// and says so rather than only counting them as the server's errors.
func (r *Run) SetLimit() {
	r.Limit = ""
	if r.Model != "open" || r.Outcomes.QueueTimeout == 0 || r.Attempts == 0 {
		return
	}
	r.Limit = fmt.Sprintf("the load generator did not keep the open loop's rate of %g/s: %d of %d intended sends (%.3g%%) never left it "+
		"(queue timeouts: its %d connections were busy, or it could not start them in time); this point measured the load generator, "+
		"not the server: give it more visitors, or a lower rate",
		r.Rate, r.Outcomes.QueueTimeout, r.Attempts, 100*float64(r.Outcomes.QueueTimeout)/float64(r.Attempts), r.Visitors)
}

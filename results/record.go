package results

import "github.com/wptest/wptest/bench/result"

// Probe is one plain request made before a step, to record what the server
// answers: protocol, status, Content-Encoding and the body as sent.
type Probe struct {
	URL             string `json:"url"`
	AcceptGzip      bool   `json:"accept_gzip"`
	Status          int    `json:"status"`
	Proto           string `json:"proto"`
	ContentEncoding string `json:"content_encoding"`
	BodyBytes       int64  `json:"body_bytes"`
	Server          string `json:"server,omitempty"`
	Error           string `json:"error,omitempty"`
}

// Record is one line of results.jsonl: a finished data point.
type Record struct {
	Point
	Start string `json:"start"`
	End   string `json:"end"`
	// The result of the point's kind (result.Set: one of Run, Crowd, Kit, ...).
	result.Set
	// Server is srvstat over the measured window (the kit: its throughput run).
	Server *result.Server `json:"server,omitempty"`
	// ServerCPUMsPerReq is the CPU of the server's own process groups (web,
	// php, db) over the window per answered request: unlike the
	// whole-machine figure it leaves out the load generator when both share
	// one machine (the local target).
	ServerCPUMsPerReq float64 `json:"server_cpu_ms_per_req"`
	// WebPHPCPUMsPerReq is the web server's and PHP's part of it (web,
	// php), DBCPUMsPerReq the database's: the database is
	// shared with whatever else runs on the machine, the web server's and
	// PHP's processes are the profile's.
	WebPHPCPUMsPerReq float64 `json:"web_php_cpu_ms_per_req"`
	DBCPUMsPerReq     float64 `json:"db_cpu_ms_per_req"`
	// PSSKB is the peak PSS of web + PHP over the window.
	PSSKB int64  `json:"pss_peak_kb"`
	Probe *Probe `json:"probe,omitempty"`
	// LoadHost is the machine the load came from: a load generator's name
	// in Manifest.Machines, or "local" (the process running wptest run);
	// several load generators' names joined by "+".
	LoadHost string `json:"load_host,omitempty"`
	Error    string `json:"error,omitempty"`
	// NotApplicable says why the point was not measured: the profile's
	// server does not serve the scenario's protocol (its server block's
	// protocols). The report shows "n/a" there.
	NotApplicable string `json:"not_applicable,omitempty"`
	// Split says how the load was divided between several load generators
	// ("25 visitors over 2 load generators: 13 + 12"); Generators holds
	// each one's share, raw histograms included, while Run or Crowd is
	// their exact join (benchgen.JoinRuns). Empty with one load generator.
	Split      string            `json:"split,omitempty"`
	Generators []GeneratorResult `json:"generators,omitempty"`
	// BenchLimit says that the point measured the bench, not the server,
	// and why (BenchLimit: failed requests, a load generator at its CPUs'
	// limit). No claim is judged on it; `run` exits 6 after its report.
	BenchLimit string `json:"bench_limit,omitempty"`
	// Broken says the server was found broken right after the point, in a
	// way its requests rest on (its PHP pages' database not running): the
	// point is a failure, whatever share of its requests failed.
	Broken string `json:"broken,omitempty"`
}

// GeneratorResult is one load generator's share of a point. Its Run's
// (or Crowd's) window start is on the controlling host's clock.
type GeneratorResult struct {
	Host     string  `json:"host"`
	Visitors int     `json:"visitors"`
	Requests int64   `json:"requests,omitempty"`
	Rate     float64 `json:"rate,omitempty"`
	// Its share of the kind's result (a run, a crowd, ...).
	result.Set
}

// WebPHPGroups are the process groups of the web server and its PHP, as the
// profiles declare them (process_group "web" and "php"); php-cgi and
// php-fpm are what runs recorded before profiles declared their groups
// called them.
var WebPHPGroups = []string{"web", "php", "php-cgi", "php-fpm"}

// ServerGroups are the groups that make up "the server": web, PHP and the
// database (process_group "db" of the site part).
var ServerGroups = append(append([]string{}, WebPHPGroups...), "db")

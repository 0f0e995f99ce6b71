package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/redact"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// Files of a run directory (runs/<id>/).
const (
	ResultsFile  = "results.jsonl"
	ManifestFile = "manifest.json"
	SpecCopy     = "experiment.hcl"
)

// Point is one data point of the plan: a scenario step for a profile in a
// repetition. Key is unique in a run.
type Point struct {
	Key      string `json:"key"`
	Rep      int    `json:"rep"`
	Profile  string `json:"profile"`
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"`
	Step     string `json:"step"`
	Visitors int    `json:"visitors"`
}

// Plan lists every data point in the order the runner measures them:
// repetitions outermost, then profiles (interleaved A B C A B C, so slow
// drift of the machine spreads over every column), scenarios, steps.
func (sp *Spec) Plan() []Point {
	var ps []Point
	for rep := 1; rep <= sp.Repetitions; rep++ {
		for _, pr := range sp.Profiles {
			if !pr.Enabled {
				continue
			}
			for _, sc := range sp.Scenarios {
				if len(sc.Profiles) > 0 && !contains(sc.Profiles, pr.Name) {
					continue
				}
				for i, st := range sc.Steps() {
					ps = append(ps, Point{Key: fmt.Sprintf("r%d/%s/%s/%s", rep, pr.Name, sc.Name, st),
						Rep: rep, Profile: pr.Name, Scenario: sc.Name, Kind: sc.Kind, Step: st, Visitors: sc.Visitors[i]})
				}
			}
		}
	}
	return ps
}

// PlanHash identifies what a run measures: the spec's content (not its file
// name) and the plan. Two runs with the same file, vars and target have the
// same hash.
func (sp *Spec) PlanHash() string {
	c := *sp
	c.File = ""
	b, _ := json.Marshal(struct {
		Spec   Spec
		Points []Point
	}{c, sp.Plan()})
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

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
	// One of Run, Crowd, Kit, by kind.
	Run   *result.Run   `json:"run,omitempty"`
	Crowd *result.Crowd `json:"crowd,omitempty"`
	Kit   *result.Kit   `json:"kit,omitempty"`
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
}

// GeneratorResult is one load generator's share of a point. Its Run's
// (or Crowd's) window start is on the controlling host's clock.
type GeneratorResult struct {
	Host     string        `json:"host"`
	Visitors int           `json:"visitors"`
	Requests int64         `json:"requests,omitempty"`
	Rate     float64       `json:"rate,omitempty"`
	Run      *result.Run   `json:"run,omitempty"`
	Crowd    *result.Crowd `json:"crowd,omitempty"`
}

// WebPHPGroups are the process groups of the web server and its PHP, as the
// profiles declare them (process_group "web" and "php"); php-cgi and
// php-fpm are what runs recorded before profiles declared their groups
// called them.
var WebPHPGroups = []string{"web", "php", "php-cgi", "php-fpm"}

// ServerGroups are the groups that make up "the server": web, PHP and the
// database (process_group "db" of the site part).
var ServerGroups = append(append([]string{}, WebPHPGroups...), "db")

// Session is one invocation of the runner on a run (the first, and each --resume).
type Session struct {
	Start    string   `json:"start"`
	End      string   `json:"end,omitempty"`
	Resumed  bool     `json:"resumed"`
	Measured []string `json:"measured,omitempty"` // keys measured in this session
	Error    string   `json:"error,omitempty"`
	// Clocks are the other machines' clocks as this session measured
	// them (Manifest.Clocks is the latest session's).
	Clocks []ClockOffset `json:"clocks,omitempty"`
}

// FixtureRecord is what the run knows of its fixture.
type FixtureRecord struct {
	Profile    string   `json:"profile"`
	Seed       uint64   `json:"seed"`
	Root       string   `json:"root_sha256"`
	Pinned     string   `json:"pinned_root_sha256,omitempty"`
	Pixels     string   `json:"pixels_sha256"`
	Verified   string   `json:"verified_root_sha256,omitempty"`
	HTTPPages  int      `json:"http_pages,omitempty"`
	Lazy       int      `json:"lazy_rows,omitempty"`
	Deviations []string `json:"deviations,omitempty"`
	Docroot    string   `json:"docroot"`
}

// MachineInfo is what the runner read from the server.
type MachineInfo struct {
	Host      string `json:"host"`
	OS        string `json:"os"`
	Platform  string `json:"platform"`
	Arch      string `json:"arch"`
	Kernel    string `json:"kernel"`
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model"`
	MemKB     int64  `json:"mem_total_kb"`
	LoadLocal bool   `json:"load_generator_on_server"`
	// LoadHost is where the load came from (Record.LoadHost).
	LoadHost string `json:"load_host,omitempty"`
}

// Manifest is runs/<id>/manifest.json: everything behind the numbers.
type Manifest struct {
	Format         string            `json:"format"`
	ID             string            `json:"id"`
	Experiment     string            `json:"experiment"`
	Description    string            `json:"description,omitempty"`
	File           string            `json:"file"`
	ExperimentHash string            `json:"experiment_sha256"`
	PlanHash       string            `json:"plan_sha256"`
	Vars           map[string]string `json:"vars"`
	Target         string            `json:"target"`
	Tool           string            `json:"tool"`
	GoVersion      string            `json:"go_version"`
	Profiles       []ProfileSpec     `json:"profiles"`
	Scenarios      []Scenario        `json:"scenarios"`
	Repetitions    int               `json:"repetitions"`
	Points         int               `json:"points"`
	Fixture        *FixtureRecord    `json:"fixture,omitempty"`
	// Hosts holds the host manifest written after each profile's apply.
	Hosts    map[string]*hostmanifest.Manifest `json:"host_manifests"`
	Machines []cloud.Machine                   `json:"machines"`
	// Firewall is the inbound rules the cloud driver applied to the run's
	// machines (runs/<id>/firewall.json); none for local or static hosts.
	Firewall []cloud.FirewallRule `json:"firewall,omitempty"`
	Machine  *MachineInfo         `json:"machine,omitempty"`
	Start    string               `json:"start"`
	End      string               `json:"end,omitempty"`
	Complete bool                 `json:"complete"`
	Sessions []Session            `json:"sessions"`
	// LoadMachine is the load generator machine, when the load came from
	// one; with several, the first, and LoadMachines lists them all.
	LoadMachine  *MachineInfo  `json:"load_machine,omitempty"`
	LoadMachines []MachineInfo `json:"load_machines,omitempty"`
	// Clocks is each other machine's clock offset from the controlling
	// host, measured before the session (clock.go).
	Clocks []ClockOffset `json:"clocks,omitempty"`
}

// ManifestFormat names this manifest's version.
const ManifestFormat = "wptest-run-manifest/1"

// ReadManifest reads runs/<id>/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", filepath.Join(dir, ManifestFile), m.Format, ManifestFormat)
	}
	// --resume compares (and prints the start of) the plan hash.
	if !isHex(m.PlanHash, 64) {
		return nil, fmt.Errorf("%s: plan_sha256 %q: want 64 hex digits", filepath.Join(dir, ManifestFile), m.PlanHash)
	}
	return &m, nil
}

// writeFileSync writes path atomically and durably: temp file, fsync, rename.
func writeFileSync(path string, b []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// recordMachines notes the run's machines and, if the driver made one, the
// firewall it applied to them.
func (m *Manifest) recordMachines(dir string, ms []cloud.Machine) error {
	m.Machines = ms
	rules, err := cloud.ReadFirewall(dir)
	switch {
	case err == nil:
		m.Firewall = rules
	case !os.IsNotExist(err):
		return fmt.Errorf("firewall rules: %w", err)
	}
	return m.write(dir)
}

func (m *Manifest) write(dir string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// No URL is recorded with its userinfo, wherever it came from (a
	// machine's, a host manifest's, a session's error).
	return writeFileSync(filepath.Join(dir, ManifestFile), append(redact.URLsJSON(b), '\n'), 0o644)
}

// store appends records to results.jsonl, one fsynced line per point.
type store struct {
	f    *os.File
	done map[string]bool
}

// openStore opens results.jsonl for appending. A last line without its
// newline (the process died while writing it) is cut off: that point was
// not complete and is measured again.
func openStore(dir string) (*store, []Record, error) {
	path := filepath.Join(dir, ResultsFile)
	recs, good, err := readRecords(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	s := &store{f: f, done: map[string]bool{}}
	for _, r := range recs {
		s.done[r.Key] = true
	}
	return s, recs, nil
}

func (s *store) append(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = redact.URLsJSON(b) // a URL measured or probed, an error quoting one
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	s.done[r.Key] = true
	return nil
}

func (s *store) close() error { return s.f.Close() }

// ReadResults reads results.jsonl; an unterminated last line is ignored.
func ReadResults(dir string) ([]Record, error) {
	recs, _, err := readRecords(filepath.Join(dir, ResultsFile))
	return recs, err
}

// readRecords returns the complete records and the byte length they span.
// A line ends at its '\n' (a '\r' before it is JSON whitespace, so a file
// an editor saved with CRLF reads the same), and the length counts every
// byte of it, so what --resume appends starts right after the last
// complete line. Blank lines carry no record and are skipped.
func readRecords(path string) ([]Record, int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	var recs []Record
	var good int64
	for n := 1; int(good) < len(b); n++ {
		i := bytes.IndexByte(b[good:], '\n')
		if i < 0 { // no newline after it: cut off mid-write
			break
		}
		line := b[good : int(good)+i]
		if len(bytes.TrimSpace(line)) > 0 {
			var r Record
			if err := json.Unmarshal(line, &r); err != nil {
				return nil, 0, fmt.Errorf("%s: line %d: %w", path, n, err)
			}
			recs = append(recs, r)
		}
		good += int64(i) + 1
	}
	return recs, good, nil
}

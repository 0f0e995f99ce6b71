package results

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/wptest/wptest/hostrecord"
	"github.com/wptest/wptest/internal/jsonstyle"
	"github.com/wptest/wptest/internal/redact"
	"github.com/wptest/wptest/internal/safefile"
)

// ManifestFormat names this manifest's version.
// 3: every key in snake_case (a column's and a scenario's were Go's
// names: ID, KeepAlive) and every list written [], never null.
// 2: each scenario's kind settings apart, in Own; a /1 manifest held
// every kind's beside the common ones. Both read as /3 (Scenario's and
// Column's UnmarshalJSON).
const ManifestFormat = "wptest-run-manifest/3"

// manifestFormats are the formats ReadManifest reads.
var manifestFormats = []string{"wptest-run-manifest/1", "wptest-run-manifest/2", ManifestFormat}

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
	Columns        []Column          `json:"columns"`
	Scenarios      []Scenario        `json:"scenarios"`
	// Claims are the experiment file's claim blocks: what its source
	// published, checked by every report of the run.
	Claims []Claim `json:"claims,omitempty"`
	// SourceDeviations are the ways the file says this setup differs from
	// its sources' (their site, their file): a verdict on a scenario they
	// name carries them as what could explain it.
	SourceDeviations []SourceDeviation `json:"source_deviations,omitempty"`
	// Sources are what the file says of its sources' machines, by the
	// name its claims give them.
	Sources     []Source       `json:"sources,omitempty"`
	Repetitions int            `json:"repetitions"`
	Points      int            `json:"points"`
	Fixture     *FixtureRecord `json:"fixture,omitempty"`
	// Hosts holds the host manifest written after each column's apply, by
	// column id.
	Hosts map[string]*hostrecord.Manifest `json:"host_manifests"`
	// Drift holds, by column id, what was changed by hand on the server
	// since its last apply when the column was measured (run
	// --accept-drift), one line each: "reset: ..." what the column's
	// apply put back, "kept ...: ..." what its server ran with.
	Drift    map[string][]string `json:"drift,omitempty"`
	Machines []Machine           `json:"machines"`
	// Firewall is the inbound rules the cloud driver applied to the run's
	// machines (runs/<id>/firewall.json); none for local or static hosts.
	Firewall []FirewallRule `json:"firewall,omitempty"`
	Machine  *MachineInfo   `json:"machine,omitempty"`
	Start    string         `json:"start"`
	End      string         `json:"end,omitempty"`
	Complete bool           `json:"complete"`
	Sessions []Session      `json:"sessions"`
	// LoadMachine is the load generator machine, when the load came from
	// one; with several, the first, and LoadMachines lists them all.
	LoadMachine  *MachineInfo  `json:"load_machine,omitempty"`
	LoadMachines []MachineInfo `json:"load_machines,omitempty"`
	// Clocks is each other machine's clock offset from the controlling
	// host, measured before the session.
	Clocks []ClockOffset `json:"clocks,omitempty"`
}

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
	// BootID is the kernel's boot ID (/proc/sys/kernel/random/boot_id):
	// two hosts with the same one are one kernel (namespaces, containers).
	BootID string `json:"boot_id,omitempty"`
	// OwnMachine: the server's kernel ran nothing else of the run (its
	// boot ID differs from the machine running wptest's and every load
	// generator's), so the machine-wide CPU is the server's (CPUScopeOf).
	// SharedWith names what shared it otherwise ("the machine running
	// wptest"); both are empty in runs recorded before wptest looked.
	OwnMachine bool   `json:"own_machine,omitempty"`
	SharedWith string `json:"shared_with,omitempty"`
	// CPUFrom "cgroup": the machine is a cgroup namespace of its own on a
	// shared kernel (a netns machine, a container), and its machine-wide
	// CPU figure is its cgroup's (srvstat's Sample.Machine): every
	// process on it, with the kernel time spent for them. Such a machine
	// is one of its own (OwnMachine) whatever shares its kernel.
	CPUFrom string `json:"cpu_from,omitempty"`
	// CPUSet: the CPUs its processes may run on, as Linux lists them
	// ("1", "0-3"); CPUsSharedWith names the machines of the run, on its
	// kernel, that may run on some of them too ("" when none does).
	CPUSet         string `json:"cpuset,omitempty"`
	CPUsSharedWith string `json:"cpus_shared_with,omitempty"`
	// LoadHost is where the load came from (Record.LoadHost).
	LoadHost string `json:"load_host,omitempty"`
	// LoadGenLinkMbps is the bandwidth of each load generator's link as the
	// machines block stated it (load_generator_link_mbps, Mbit/s), so a
	// report made later judges the link as the run did; 0: none stated,
	// and no point is judged on its link.
	LoadGenLinkMbps int `json:"load_generator_link_mbps,omitempty"`
}

// Machine and FirewallRule: one of the run's machines as the cloud driver
// made (or was given) it and how it was reached, and one inbound rule of
// its firewall; the same types as provision/cloud's, from hostrecord.
type (
	Machine      = hostrecord.Machine
	FirewallRule = hostrecord.FirewallRule
)

// ClockOffset is how far a machine's clock is from the clock of the host
// running wptest, measured over SSH before the run: the machine's time
// minus ours, within ±Uncertainty (half the round trip of the fastest
// exchange).
type ClockOffset struct {
	Host          string  `json:"host"`
	OffsetMs      float64 `json:"offset_ms"`
	UncertaintyMs float64 `json:"uncertainty_ms"`
	RoundTrips    int     `json:"round_trips"`
}

// Offset is OffsetMs as a duration.
func (c ClockOffset) Offset() time.Duration {
	return time.Duration(c.OffsetMs * float64(time.Millisecond))
}

// String is the offset as the run log shows it: "+1.203 s ± 0.4 ms".
func (c ClockOffset) String() string {
	return fmt.Sprintf("%+.3f s ± %.1f ms", c.OffsetMs/1000, c.UncertaintyMs)
}

// ReadManifest reads runs/<id>/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := safefile.ReadFile(filepath.Join(dir, ManifestFile), MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	readOldColumns(b, &m)
	if !slices.Contains(manifestFormats, m.Format) {
		return nil, fmt.Errorf("%s: format %q, want %q", filepath.Join(dir, ManifestFile), m.Format, ManifestFormat)
	}
	jsonstyle.Lists(&m)       // as Write has it: a list none, never nil
	m.Format = ManifestFormat // read as this one: the scenarios' own settings apart, Go's names read (Scenario.UnmarshalJSON)
	for _, s := range m.Scenarios {
		if err := CheckOwn(s); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
		}
	}
	// --resume compares (and prints the start of) the plan hash.
	if !IsHex(m.PlanHash, 64) {
		return nil, fmt.Errorf("%s: plan_sha256 %q: want 64 hex digits", filepath.Join(dir, ManifestFile), m.PlanHash)
	}
	return &m, nil
}

// readOldColumns reads the columns of a manifest written before columns
// had ids: listed as "profiles", and each scenario's as its "Profiles".
func readOldColumns(b []byte, m *Manifest) {
	var old struct {
		Profiles  []Column `json:"profiles"`
		Scenarios []struct{ Profiles []string }
	}
	if len(m.Columns) > 0 || json.Unmarshal(b, &old) != nil {
		return
	}
	m.Columns = old.Profiles
	for i, s := range old.Scenarios {
		if i < len(m.Scenarios) && len(m.Scenarios[i].Columns) == 0 {
			m.Scenarios[i].Columns = s.Profiles
		}
	}
}

// IsHex says whether s is n lowercase hexadecimal digits (a SHA-256: 64).
func IsHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Write writes m as dir's manifest.json, atomically and durably.
func (m *Manifest) Write(dir string) error {
	jsonstyle.Lists(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// No URL is recorded with its userinfo, wherever it came from (a
	// machine's, a host manifest's, a session's error).
	return WriteFileSync(filepath.Join(dir, ManifestFile), append(redact.URLsJSON(b), '\n'), 0o644)
}

// WorkerSource says where a server's worker usage comes from: the status
// page and worker limit its profile declares (server block), or why there
// is none.
type WorkerSource struct {
	StatusURL  string // "" = no worker usage
	MaxWorkers int    // the declared worker limit; 0 = the scoreboard's length
	Why        string // why StatusURL is empty
}

// WorkersOf is the worker source of the profile a host manifest records
// (the sampler reads it; the report asks it why a column has no worker
// usage).
func WorkersOf(hm *hostrecord.Manifest) WorkerSource {
	if hm == nil {
		return WorkerSource{Why: "no host manifest"}
	}
	if hm.Server == nil || hm.Server.Status == nil {
		return WorkerSource{Why: hm.Profile + " declares no status page with worker counts"}
	}
	return WorkerSource{StatusURL: hm.Server.Status.URL, MaxWorkers: hm.Server.WorkerLimit}
}

package results

// The server's CPU per request, one definition for the report and the
// claims: the cPanel vs corehttpd post counted "the server's CPU time over
// each measured window — web server, PHP, database and kernel, everything
// on the machine — divided by the requests answered". That is the
// machine-wide figure (srvstat's /proc/stat busy time, Server.CPUMsPerRequest),
// interrupt and softirq time included, where a static-file flood spends much
// of its kernel work. It is the server's only when nothing else of the run
// shares its kernel; otherwise the profile's process groups are the server's
// part that can be told apart.

// CPUScope says which figure a run's CPU per request is, and why.
type CPUScope struct {
	// Machine: the machine-wide figure, the groups' split beside it.
	// Otherwise the sum of the profile's process groups (web, PHP, db).
	Machine bool
	// Label names the figure in a table ("whole machine", "web server +
	// PHP + database processes").
	Label string
	// Why is the sentence the report prints.
	Why string
}

// The scopes' labels.
const (
	MachineCPULabel = "whole machine"
	GroupsCPULabel  = "web server + PHP + database processes"
)

// CPUScopeOf decides the figure from what the run recorded of the server's
// machine (Manifest.Machine; nil: nothing).
func CPUScopeOf(m *MachineInfo) CPUScope {
	groups := "the CPU time of the profile's process groups (web server, PHP, database) is shown, which leaves out interrupt and softirq time and anything outside the groups"
	switch {
	case m != nil && m.OwnMachine && m.CPUFrom == "cgroup":
		return CPUScope{Machine: true, Label: MachineCPULabel,
			Why: "The server had a machine of its own on a shared kernel (CPUs " + m.CPUSet + " and a cgroup of its own), so CPU per request is the post's as near as that kernel counts it: the machine's cgroup's CPU time over each measured window (web server, PHP, database, and the kernel time spent for them, everything on the machine) divided by the requests answered; the profile's process groups' share is beside it."}
	case m != nil && m.OwnMachine:
		return CPUScope{Machine: true, Label: MachineCPULabel,
			Why: "The server had a machine of its own (its kernel ran nothing else of the run), so CPU per request is the post's: the machine's CPU time over each measured window (web server, PHP, database and kernel, interrupts included, everything on the machine) divided by the requests answered; the profile's process groups' share is beside it."}
	case m != nil && m.SharedWith != "":
		return CPUScope{Label: GroupsCPULabel,
			Why: "The server shared its machine with " + m.SharedWith + ", whose CPU the machine-wide figure would count: " + groups + ". The machine-wide figure is in results.jsonl as server.cpu_ms_per_request."}
	default:
		return CPUScope{Label: GroupsCPULabel,
			Why: "The run did not record whether the server had a machine of its own: " + groups + ". The machine-wide figure is in results.jsonl as server.cpu_ms_per_request."}
	}
}

// CPUFigure is one point's server CPU per answered request, in ms.
type CPUFigure struct {
	// Ms is the figure the scope names.
	Ms float64
	CPUScope
	// MachineMs is the machine-wide figure; GroupsMs the process groups'
	// sum, WebPHPMs and DBMs its parts.
	MachineMs, GroupsMs, WebPHPMs, DBMs float64
}

// CPUPerRequest is rec's server CPU per answered request as the run's
// scope (CPUScopeOf(m)) counts it; ok is false where the point has no
// server samples or no answered request.
func CPUPerRequest(rec Record, m *MachineInfo) (f CPUFigure, ok bool) {
	f.CPUScope = CPUScopeOf(m)
	if rec.Server == nil {
		return f, false
	}
	f.MachineMs, f.GroupsMs = rec.Server.CPUMsPerRequest, rec.ServerCPUMsPerReq
	f.WebPHPMs, f.DBMs = rec.WebPHPCPUMsPerReq, rec.DBCPUMsPerReq
	f.Ms = f.GroupsMs
	if f.Machine {
		f.Ms = f.MachineMs
	}
	return f, f.Ms > 0
}

// ServerCPUIn is CPUPerRequest's figure alone: the metric server_cpu_ms
// (report and claims read it so). Value of that metric, without the
// machine, is the groups' sum (ServerCPU), as groups_cpu_ms.
func ServerCPUIn(rec Record, m *MachineInfo) (float64, bool) {
	f, ok := CPUPerRequest(rec, m)
	return f.Ms, ok
}

// HTMLBeyondDocuments is ab's HTML transferred beyond complete requests ×
// the document's length (the probe's body before the run): 0 when every
// request got the whole document, 3,072 for Rasmus's Apache 2 static file.
func HTMLBeyondDocuments(rec Record) (float64, bool) {
	if rec.Run == nil || rec.Probe == nil || rec.Probe.Error != "" || rec.Probe.Status != 200 {
		return 0, false
	}
	return float64(rec.Run.Bytes.Body) - float64(rec.Run.Attempts)*float64(rec.Probe.BodyBytes), true
}

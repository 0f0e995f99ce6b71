package hostrecord

import "strings"

// Role is what a machine is for.
type Role string

const (
	RoleServer  Role = "server"  // the system under test
	RoleLoadGen Role = "loadgen" // a load generator
)

// Machine is one created (or given) machine and how to reach it.
type Machine struct {
	Name    string `json:"name"` // "wptest-<run>-server", "loadgen-1", "local"
	Role    Role   `json:"role"`
	Driver  string `json:"driver"`
	ID      string `json:"id,omitempty"` // provider ID
	Local   bool   `json:"local,omitempty"`
	Address string `json:"address,omitempty"` // IP or host name
	Port    int    `json:"port,omitempty"`
	User    string `json:"user,omitempty"`
	// HostKey is the pinned host public key in authorized_keys format; it is
	// also written to the run's known_hosts.
	HostKey string `json:"host_key,omitempty"`
	// IdentityFile, if set, is the client key for this machine (static
	// hosts); otherwise the run's own key is used.
	IdentityFile string `json:"identity_file,omitempty"`
	Location     string `json:"location,omitempty"`
	ServerType   string `json:"server_type,omitempty"`
	ImageID      int64  `json:"image_id,omitempty"`
	Image        string `json:"image,omitempty"`
}

// FirewallRule is one inbound rule of a run's firewall, as the provider was
// asked to apply it and as the run records it (runs/<id>/firewall.json and
// the run manifest).
type FirewallRule struct {
	Port     string   `json:"port"`     // "443"
	Protocol string   `json:"protocol"` // tcp | udp
	Sources  []string `json:"sources"`  // CIDRs, sorted
	// For says whom the rule lets in: "ssh: allow_ssh_from" or
	// "web: load generators + allow_from".
	For string `json:"for"`
}

// String is "443/tcp from 203.0.113.41/32".
func (r FirewallRule) String() string {
	return r.Port + "/" + r.Protocol + " from " + strings.Join(r.Sources, ", ")
}

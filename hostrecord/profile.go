package hostrecord

// Site is what a profile declares about the site it serves (the site
// block): where seeding puts WordPress, as whom, with which PHP, and where
// the profile left the database's credentials. It is recorded in the host
// manifest so that `wptest seed` and `run` agree with the live profile.
type Site struct {
	Docroot string `json:"docroot"`
	Owner   string `json:"owner"`
	Group   string `json:"group"`
	// PHP is the php-cli binary seeding runs as the site user.
	PHP string `json:"php"`
	// Core is WordPress core on the host (the distribution's package),
	// where seeding copies it from.
	Core string `json:"core,omitempty"`
	// Database is the root-only file on the host holding the site's
	// database credentials as shell assignments (DB_NAME, DB_USER,
	// DB_PASSWORD, DB_HOST); the password never leaves it but for the
	// seeder's connection.
	Database string `json:"database,omitempty"`
	// Rewrite says how permalinks reach index.php: "htaccess" (the server
	// reads WordPress's .htaccess, which seeding writes) or "server" (the
	// server's own configuration routes them).
	Rewrite string `json:"rewrite"`
	// Refresh are the commands (site_refresh blocks, run as root in
	// order) after which the server serves files that seeding just wrote:
	// e.g. a PHP-FPM reload, so OPcache drops the old wp-config.php.
	Refresh []string `json:"refresh,omitempty"`
	// Files are the docroot-relative paths the profile's own file,
	// directory and link ops write into the docroot (its probes): the
	// profile's, listed after every apply and checked by verify.
	Files []string `json:"files,omitempty"`
	// Made are the files the profile makes in the site by commands
	// (site_files blocks), e.g. precompressed copies: listed after every
	// apply and seed, checked by verify, removed when a profile without a
	// set of that name replaces this one.
	Made []MadeFiles `json:"made,omitempty"`
}

// MadeFiles is one site_files block: files the profile makes in its site
// (provision.SiteFiles).
type MadeFiles struct {
	Name string `json:"name"` // the block's label
	// List prints the docroot-relative paths of the files the set holds now,
	// each ended by a NUL byte. Root runs it; the command does its work in
	// the docroot as the site's owner (wptest-precompress --list DOCROOT
	// USER), as every write, list or removal there is.
	List string `json:"list"`
	// Remove removes them all (run by root the same way, as the owner,
	// when a profile without this set takes the host).
	Remove string `json:"remove"`
}

// ProcessGroup is a named set of the server's processes the sampler
// reports apart (process_group blocks): those whose executable (or
// command name) is one of Exe and, when Users is set, whose user is one of
// Users. Every other process on the host is "other".
type ProcessGroup struct {
	Name  string   `json:"name"`
	Exe   []string `json:"exe"`
	Users []string `json:"users,omitempty"`
}

// Server is what a profile declares about its web server (the server
// block), recorded in the host manifest: which of its services are the
// server (restarted for the kit's startup metric, stopped when another
// profile takes the host), its status page and worker limit where it has
// them, the protocols it serves and the facts the report shows for it.
type Server struct {
	Services []Service `json:"services"`
	// Status is the page the sampler reads for worker usage; nil: none.
	Status *Status `json:"status,omitempty"`
	// WorkerLimit is how many requests the server serves at once at most
	// (Apache's MaxRequestWorkers); 0: no such limit declared.
	WorkerLimit int      `json:"worker_limit,omitempty"`
	Protocols   []string `json:"protocols,omitempty"`
	// Ports are where the server listens: "http" (h1 and h2c in the clear),
	// "https" (h1, h2 and h3 over TLS). The runner's URLs use them.
	Ports map[string]int `json:"ports,omitempty"`
	// Shows are the facts (by name) the report shows for the profile, in order.
	Shows []string `json:"shows,omitempty"`
}

// Status is a server's status page, as the server itself reaches it.
type Status struct {
	URL    string `json:"url"`    // loopback, e.g. "http://127.0.0.1:80/server-status?auto"
	Format string `json:"format"` // StatusFormats
}

// Service is one service of the server as the host runs it: the commands
// the apply used on that host's init system (an offline plan shows them as
// on a host without systemd).
type Service struct {
	Label   string `json:"label"` // the service block's label
	Name    string `json:"name"`  // the system's name for it
	Restart string `json:"restart"`
	Stop    string `json:"stop"`
	Status  string `json:"status"`
}

// Watch is one watch block: files and directories that shape how the
// server performs though the profile does not write them (php-cgi's
// php.ini, the ini directories PHP reads, the FPM pool directory,
// MariaDB's configuration). The host manifest's drift record keeps their
// hashes and copies after every apply; `wptest status` and every group of
// a run name what changed since.
type Watch struct {
	// Name is the block's label, in the words a user knows ("php-cgi").
	Name  string   `json:"name"`
	Paths []string `json:"paths"`
}

// Written is one file the profile's file ops write: recorded with the
// watched paths, so a hand edit to it is drift until the next apply.
type Written struct {
	Path string `json:"path"`
	Op   string `json:"op"`
	// Sensitive: its content came from a sensitive value: its hash and
	// lines are never shown, and no copy of it is kept.
	Sensitive bool `json:"sensitive,omitempty"`
}

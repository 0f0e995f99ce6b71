package testenv

import "path/filepath"

// For the external tests: what of a bare host still exists, and the log of
// the machine's apt-cacher-ng.
var (
	BareHostLeftovers = (*BareHost).leftovers
	AptCacherLog      = filepath.Join(bareCacheDir, "apt-cacher-ng", "log", "apt-cacher.log")
)

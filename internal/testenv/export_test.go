package testenv

import "github.com/wptest/wptest/provision/cloud/netns/machine"

// For the external tests: what of a bare host still exists, and the log of
// the machine's apt-cacher-ng.
var (
	BareHostLeftovers = (*BareHost).leftovers
	AptCacherLog      = func() string { return machine.AptCacherLog }
)

// Package drivers is the list of machines drivers compiled into wptest:
// importing it registers each with provision/cloud. Adding a driver is
// adding its package and one line here.
package drivers

import (
	_ "github.com/wptest/wptest/provision/cloud/hetzner"
	_ "github.com/wptest/wptest/provision/cloud/local"
	_ "github.com/wptest/wptest/provision/cloud/netns"
	_ "github.com/wptest/wptest/provision/cloud/static"
)

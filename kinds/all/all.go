// Package all lists the scenario kinds of their own packages that wptest
// is built with, as Caddy lists its modules: a kind is a package under
// kinds/ that registers its halves from its init (results.Register: its
// figures; experiment.Register: its block and load; report.Register: its
// section and charts), and one import line here. cmd/wptest/cli imports
// this package, so the binary and the command's tests know the same kinds.
package all

// One line per kind: _ "github.com/wptest/wptest/kinds/NAME".
import (
	_ "github.com/wptest/wptest/kinds/ab"
	_ "github.com/wptest/wptest/kinds/browse"
	_ "github.com/wptest/wptest/kinds/compression"
	_ "github.com/wptest/wptest/kinds/crowd"
	_ "github.com/wptest/wptest/kinds/kit"
	_ "github.com/wptest/wptest/kinds/page"
	_ "github.com/wptest/wptest/kinds/static"
	_ "github.com/wptest/wptest/kinds/transfer"
)

package compression_test

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/experiment"
	_ "github.com/wptest/wptest/kinds/compression"
	_ "github.com/wptest/wptest/provision/cloud/drivers" // an experiment file without a machines block runs on the default driver
)

// A compression block asks for the file as a browser does (gzip) unless
// it says gzip = false.
func TestGzipUnlessSaidOtherwise(t *testing.T) {
	for _, c := range []struct {
		attr string
		gzip bool
	}{{"", true}, {"  gzip = false\n", false}, {"  gzip = true\n", true}} {
		src := "experiment \"e\" {}\nfixture \"minimal\" { seed = 1 }\nprofile \"caddy\" {}\nscenario \"s\" {\n  kind     = \"compression\"\n  visitors = [50]\n" + c.attr + "}\n"
		sp, err := experiment.Load("exp.hcl", []byte(src), experiment.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := sp.Scenarios[0].Gzip; got != c.gzip {
			t.Errorf("%q: gzip %v, want %v", strings.TrimSpace(c.attr), got, c.gzip)
		}
	}
}

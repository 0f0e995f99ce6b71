package report

import (
	"testing"

	"github.com/wptest/wptest/results"
)

// Every kit metric the kit's table shows is a metric of the registry that
// apache-kit.hcl's claims name: one value behind the PASS/FAIL and the claims.
func TestKitMetricsInRegistry(t *testing.T) {
	for _, m := range KitMetrics {
		if _, ok := results.MetricOf("kit", m.Metric); !ok {
			t.Errorf("kit metric %q (%s): not in results.Metrics", m.Metric, m.Name)
		}
	}
}

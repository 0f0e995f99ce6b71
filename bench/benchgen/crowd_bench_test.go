package benchgen

import (
	"context"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
)

// BenchmarkCrowd3000 holds 3,000 crowd connections against Caddy (each
// clicking every 10 s) while a new visitor arrives every 0.5 s, and reports
// the load generator's peak memory and the newcomers' wait.
//
//	go test -run '^$' -bench Crowd3000 -benchtime 1x ./bench/benchgen/
func BenchmarkCrowd3000(b *testing.B) {
	s := testsrv.StartCaddy(b)
	u := "http://127.0.0.1:" + itoa(s.HTTPPort) + testsrv.Small
	for b.Loop() {
		c, err := Crowd(context.Background(), CrowdConfig{Base: Config{URL: u}, Visitors: 3000,
			ClickEvery: 10 * time.Second, ProbeEvery: 500 * time.Millisecond, GiveUp: 30 * time.Second,
			Warmup: 10 * time.Second, Duration: 10 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		checkInvariant(b, c.Background)
		b.ReportMetric(float64(c.ClientRSSKB)/1024, "load-host-MB")
		b.ReportMetric(c.Wait.P50, "wait-p50-ms")
		b.ReportMetric(c.Wait.Max, "wait-max-ms")
		b.ReportMetric(float64(c.GaveUp), "gave-up")
		b.ReportMetric(float64(c.Background.Connections), "connections")
		b.Logf("3000 visitors: background %d attempts (%d ok, %d connections), newcomers %d answered %d, wait p50 %.2f ms max %.2f ms, load host VmHWM %.1f MB",
			c.Background.Attempts, c.Background.Outcomes.OK, c.Background.Connections, len(c.Probes), c.Wait.Count, c.Wait.P50, c.Wait.Max, float64(c.ClientRSSKB)/1024)
	}
}

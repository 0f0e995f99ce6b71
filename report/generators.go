package report

import (
	"fmt"
	"github.com/wptest/wptest/results"
	"strconv"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// GeneratorTable shows, for a scenario whose points were split between
// several load generators, each one's share beside their merged result
// (counts add; percentiles come from the merged histograms, never averaged).
// No table when every point came from one load generator.
func (r *Report) GeneratorTable(sc results.Scenario) (Table, bool) {
	crowd := false // a crowd's shares have their own columns
	for _, rec := range r.Records {
		if rec.Scenario == sc.Name && len(rec.Generators) > 1 && rec.Generators[0].Crowd != nil {
			crowd = true
		}
	}
	t := Table{Caption: "Load generators: each one's share, and merged (counts added, percentiles from the merged histograms)",
		Head: []string{"point", "load generator", "visitors", "attempts", "requests/s", "p50 (ms)", "p99 (ms)", "started (ms after the first)"}}
	if crowd {
		t.Head = []string{"point", "load generator", "visitors", "clicks", "new visitors", "wait, median (ms)", "wait, p99 (ms)", "gave up"}
	}
	for _, rec := range r.Records {
		if rec.Scenario != sc.Name || len(rec.Generators) < 2 {
			continue
		}
		point := fmt.Sprintf("%s, %s, rep %d", firstNonEmpty(r.Labels[rec.Column], rec.Column), rec.Step, rec.Rep)
		if why, _ := results.BenchLimit(rec, r.Manifest.Machine); why != "" {
			point += " (measured the bench: " + why + ")"
		}
		for _, g := range rec.Generators {
			t.Rows = append(t.Rows, generatorRow(point, g.Host, g.Run, g.Crowd, rec))
		}
		t.Rows = append(t.Rows, generatorRow(point, "merged", rec.Run, rec.Crowd, rec))
	}
	return t, len(t.Rows) > 0
}

// generatorRow is one line of generatorTable: a share, or the merged result.
func generatorRow(point, host string, run *result.Run, cr *result.Crowd, rec results.Record) []string {
	if cr != nil {
		return []string{point, host, strconv.Itoa(cr.Visitors), commas(strconv.FormatInt(cr.Background.Attempts, 10)),
			strconv.Itoa(len(cr.Probes)), num(cr.Wait.P50), num(cr.Wait.P99), strconv.FormatInt(cr.GaveUp, 10)}
	}
	if run == nil {
		return []string{point, host, "–", "–", "–", "–", "–", "–"}
	}
	started := ""
	if host != "merged" && rec.Run != nil {
		a, _ := time.Parse(time.RFC3339Nano, run.Start)
		first, _ := time.Parse(time.RFC3339Nano, rec.Run.Start)
		started = num(float64(a.Sub(first)) / float64(time.Millisecond))
	}
	return []string{point, host, strconv.Itoa(run.Visitors), commas(strconv.FormatInt(run.Attempts, 10)),
		num(run.RPS), num(run.Latency.P50), num(run.Latency.P99), started}
}

func loadMachineText(lm results.MachineInfo) string {
	return fmt.Sprintf("Load generator %s (its own machine): %s (%s, %s), kernel %s, %d CPUs (%s), %s MiB RAM.",
		lm.Host, lm.OS, lm.Platform, lm.Arch, lm.Kernel, lm.CPUs, lm.CPUModel, commas(fmt.Sprint(lm.MemKB/1024)))
}

// loadMachinesText describes several load generators and how they shared
// the load.
func loadMachinesText(lms []results.MachineInfo) []string {
	var out []string
	for _, lm := range lms {
		out = append(out, loadMachineText(lm))
	}
	return append(out, fmt.Sprintf("Each load run was split between these %d load generators (the visitors divided, the remainder to the first ones; the kit ran on the first alone), "+
		"which started together at a time agreed in advance; their results are merged exactly: counts added, percentiles from their merged histograms. "+
		"Each scenario's section shows every load generator's share beside the merged result.", len(lms)))
}

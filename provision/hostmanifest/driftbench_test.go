package hostmanifest

import (
	"context"
	"io"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// liveManifest is this machine's live profile with its drift record
// (wptest up --target local), or the benchmark stops: skipped, failed
// under CI.
func liveManifest(b *testing.B) (context.Context, host.Host, *Manifest) {
	ctx := context.Background()
	h := host.NewLocal(io.Discard)
	m, err := Read(ctx, h)
	testenv.Need(b, err == nil && m != nil && m.Drift != nil, "a live profile with a drift record on this machine (wptest up --target local)")
	return ctx, h, m
}

// BenchmarkCheckDriftLive is one drift check of this machine's live
// profile as `status` and a run do it (go test -bench CheckDriftLive on a
// machine where `wptest up --target local` ran).
func BenchmarkCheckDriftLive(b *testing.B) {
	ctx, h, m := liveManifest(b)
	for b.Loop() {
		ds, _, err := CheckDrift(ctx, h, m)
		if err != nil || len(ds) != 0 {
			b.Fatalf("drift %v, %v", ds, err)
		}
	}
}

// BenchmarkScanPartsLive splits one check: the files, the database login,
// an empty scan (the shell's own cost).
func BenchmarkScanPartsLive(b *testing.B) {
	ctx, h, m := liveManifest(b)
	noDB, onlyDB := *m, *m
	noDB.Site = nil
	onlyDB.Written, onlyDB.Watch = nil, nil
	for _, c := range []struct {
		name string
		m    *Manifest
	}{{"files", &noDB}, {"db", &onlyDB}, {"empty", &Manifest{}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := scan(ctx, h, c.m, false, DriftDir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

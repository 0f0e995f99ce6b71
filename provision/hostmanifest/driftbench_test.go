package hostmanifest

import (
	"context"
	"io"
	"testing"

	"github.com/wptest/wptest/host"
)

// BenchmarkCheckDriftLive is one drift check of this machine's live
// profile as `status` and a run do it (go test -bench CheckDriftLive on a
// machine where `wptest up --target local` ran).
func BenchmarkCheckDriftLive(b *testing.B) {
	ctx := context.Background()
	h := host.NewLocal(io.Discard)
	m, err := Read(ctx, h)
	if err != nil || m == nil || m.Drift == nil {
		b.Skip("no live profile with a drift record on this machine (wptest up --target local)")
	}
	for b.Loop() {
		ds, _, err := CheckDrift(ctx, h, m)
		if err != nil || len(ds) != 0 {
			b.Fatalf("drift %v, %v", ds, err)
		}
	}
}

func BenchmarkScanPartsLive(b *testing.B) {
	ctx := context.Background()
	h := host.NewLocal(io.Discard)
	m, err := Read(ctx, h)
	if err != nil || m == nil || m.Drift == nil {
		b.Skip("no live profile")
	}
	noDB := *m
	noDB.Site = nil
	b.Run("files", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := scan(ctx, h, &noDB, false, DriftDir); err != nil {
				b.Fatal(err)
			}
		}
	})
	onlyDB := *m
	onlyDB.Written, onlyDB.Watch = nil, nil
	b.Run("db", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := scan(ctx, h, &onlyDB, false, DriftDir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("empty", func(b *testing.B) {
		e := &Manifest{}
		for b.Loop() {
			if _, _, err := scan(ctx, h, e, false, DriftDir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

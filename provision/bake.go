package provision

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
)

// baked reports whether op is part of a machine image of the profile
// (Bake): a package op, or a command marked bake = true (one that builds or
// installs software, as cpanel-apache's mod_ruid2).
func baked(op Op) bool {
	switch o := op.(type) {
	case *PackageOp:
		return true
	case *CommandOp:
		return o.Bake
	}
	return false
}

// Bake applies the profile's part of a machine image, as Packer bakes one:
// every package op and every command marked bake = true, in order, each
// checked first; nothing else (no user, file, service, check or fact). A
// machine made from the image finds them done, and an apply there goes on
// from them: what it installs and builds is proved by an apply on a fresh
// machine, not by this.
func (r *Rendered) Bake(ctx context.Context, h host.Host, progress Progress) error {
	if len(r.Blocked) > 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("profile %s cannot be baked for %s: %v", r.Profile.Name, h.Name(), r.Blocked))
	}
	emit := emitter(h, progress)
	for _, op := range r.Ops {
		if !baked(op) {
			continue
		}
		c, err := op.Check(ctx, h)
		if err != nil {
			return exitcode.With(exitcode.Provision, fmt.Errorf("bake: check %s on %s: %w", op.ID(), h.Name(), err))
		}
		if !c.Needed {
			emit(op.ID(), "ok")
			continue
		}
		emit(op.ID(), c.Action+detailSuffix(c))
		if err := op.Apply(ctx, h, c); err != nil {
			return exitcode.With(exitcode.Provision, fmt.Errorf("bake: apply %s on %s: %w", op.ID(), h.Name(), err))
		}
	}
	return nil
}

// BakeKey is a digest of what Bake does: the platform and each baked op's
// id, package names or commands, sensitive values included (never shown:
// only the digest). Another key is another image.
func (r *Rendered) BakeKey() string {
	type bakedOp struct {
		ID                                  string
		Names                               []string `json:",omitempty"`
		Absent                              bool     `json:",omitempty"`
		Manager                             string   `json:",omitempty"`
		Run, Unless, OnlyIf, Creates, Stdin string   `json:",omitempty"`
	}
	ops := []bakedOp{{ID: "platform " + r.Platform + " " + r.PackageManager}}
	for _, op := range r.Ops {
		switch o := op.(type) {
		case *PackageOp:
			ops = append(ops, bakedOp{ID: o.ID(), Names: o.Names, Absent: o.Absent, Manager: o.Manager})
		case *CommandOp:
			if o.Bake {
				ops = append(ops, bakedOp{ID: o.ID(), Run: o.Run, Unless: o.Unless, OnlyIf: o.OnlyIf, Creates: o.Creates, Stdin: o.Stdin})
			}
		}
	}
	b, _ := json.Marshal(ops)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

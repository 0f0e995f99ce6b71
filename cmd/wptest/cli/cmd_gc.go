package cli

import (
	"context"
	"fmt"

	"github.com/wptest/wptest/provision/cloud"
)

func runGC(ctx context.Context, a *App, args []string) error {
	s := newCloudSession(a)
	defer s.close()
	return s.redacted(s.gc(ctx, args))
}

func (s *cloudSession) gc(ctx context.Context, args []string) error {
	a := s.a
	fs := newFlags(a, "gc")
	dry := fs.Bool("dry-run", false, "only say which runs would be removed")
	driver := fs.String("driver", "", "the driver whose runs to collect (default: the default one; wptest machines drivers)")
	debugFile := fs.String("debug-file", "", "write the API requests and responses here (secrets redacted)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	name, err := labelDriver(*driver)
	if err != nil {
		return err
	}
	c, err := s.driver(name, *debugFile)
	if err != nil {
		return err
	}
	removed, err := cloud.GC(ctx, c, a.Now(), *dry, s.errw)
	for _, id := range removed {
		fmt.Fprintln(s.out, id)
	}
	return err
}

package experiment

import "context"

// stepLoadGenerators connects to the run's load generator machines and
// installs the agent there (loadGenerator), or takes this process. It
// holds what it opened; its cleanup closes it.
type stepLoadGenerators struct{ lg loadGen }

func (*stepLoadGenerators) Name() string { return "load generators" }

func (s *stepLoadGenerators) Run(ctx context.Context, r *runner) error {
	var err error
	s.lg, err = r.loadGenerator(ctx, r.ms)
	r.lg = s.lg
	return err
}

func (s *stepLoadGenerators) Cleanup(context.Context, *runner) error {
	if s.lg != nil {
		return s.lg.Close()
	}
	return nil
}

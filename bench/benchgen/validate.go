package benchgen

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Validate checks a run's config before anything runs: the URL (http or
// https, with a host), method, protocol and headers as Run would build its
// request, and that no count, duration or rate is negative, NaN or
// infinite. bench's flags and experiment files both go through it, so a
// bad value is a config error (exit 2), never a load run that failed.
func Validate(cfg Config) error {
	if err := validateBase(cfg); err != nil {
		return err
	}
	if cfg.Requests == 0 && cfg.Duration == 0 {
		return errors.New("give a number of requests or a duration")
	}
	return nil
}

// ValidateCrowd is Validate for the crowd scenario (its base's duration
// and requests are the crowd's own).
func ValidateCrowd(cc CrowdConfig) error {
	if err := validateBase(cc.Base); err != nil {
		return err
	}
	if err := checkDurations([]namedDuration{{"click every", cc.ClickEvery}, {"probe every", cc.ProbeEvery},
		{"give up", cc.GiveUp}, {"warm-up", cc.Warmup}, {"duration", cc.Duration}}); err != nil {
		return err
	}
	if cc.Visitors < 0 {
		return fmt.Errorf("visitors %d: want a positive count", cc.Visitors)
	}
	return nil
}

// ValidateKit is Validate for the kit.
func ValidateKit(kc KitConfig) error {
	if err := validateBase(kc.Base); err != nil {
		return err
	}
	for _, l := range kc.Levels {
		if l <= 0 {
			return fmt.Errorf("level %d: want positive concurrencies", l)
		}
	}
	if kc.Concurrency < 0 || kc.ErrorClients < 0 {
		return errors.New("concurrency and error clients: want positive counts")
	}
	return nil
}

func validateBase(cfg Config) error {
	if _, err := newTarget(&cfg); err != nil {
		return err
	}
	return checkNumbers(cfg)
}

// checkNumbers is Validate's check of the numbers (Run's too).
func checkNumbers(cfg Config) error {
	if err := CheckRate(cfg.Rate); err != nil {
		return err
	}
	if err := checkDurations([]namedDuration{{"duration", cfg.Duration}, {"warm-up", cfg.Warmup}, {"timeout", cfg.Timeout}}); err != nil {
		return err
	}
	if cfg.Requests < 0 {
		return fmt.Errorf("requests %d: want a positive count (0: no limit)", cfg.Requests)
	}
	if cfg.Visitors < 0 {
		return fmt.Errorf("visitors %d: want a positive count", cfg.Visitors)
	}
	return nil
}

// CheckRate checks an open loop's rate: a finite number of attempts per
// second, 0 for a closed loop. Any finite rate runs: the schedule ends
// with its window however dense it is.
func CheckRate(rate float64) error {
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		return fmt.Errorf("rate %v: want a finite number of attempts per second >= 0 (0: closed loop)", rate)
	}
	return nil
}

// CheckDuration refuses a negative duration (0 is the default's).
func CheckDuration(name string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("%s %s: want a duration >= 0", name, d)
	}
	return nil
}

// namedDuration is a duration and its name in CheckDuration's error.
type namedDuration struct {
	name string
	d    time.Duration
}

// checkDurations is CheckDuration of each, in order.
func checkDurations(ds []namedDuration) error {
	for _, d := range ds {
		if err := CheckDuration(d.name, d.d); err != nil {
			return err
		}
	}
	return nil
}

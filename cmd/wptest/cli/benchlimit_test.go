package cli

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

// A run with a point that measured the bench ends with exit 6 (the table's
// "load" code) after its report, naming the point and why; one without
// ends with none.
func TestRunExitsSixOnBenchLimitedPoints(t *testing.T) {
	dir := t.TempDir()
	ok := runtest.Run{ID: "ok", Reps: 2}.Write(t, dir)
	if err := benchLimited(ok); err != nil {
		t.Fatalf("a run that measured the servers: %v", err)
	}
	broken := runtest.Run{ID: "db", Reps: 2, Edit: func(rec *results.Record) {
		if rec.Column == "corehttpd" && rec.Scenario == "page" && rec.Step == "c=8" && rec.Rep == 2 && rec.Run != nil {
			rec.Run.Outcomes.HTTP5xx, rec.Run.Outcomes.OK = rec.Run.Outcomes.OK, 0
		}
	}}.Write(t, dir)
	err := benchLimited(broken)
	if exitcode.Of(err) != exitcode.Load || !strings.Contains(err.Error(), "r2/corehttpd/page/c=8: 100% of requests failed (HTTP 5xx)") {
		t.Fatalf("exit %d: %v", exitcode.Of(err), err)
	}
}

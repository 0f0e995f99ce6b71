package crowd

import (
	"testing"
	"time"

	"github.com/wptest/wptest/internal/runtest"
)

// A run made before the crowd's settings moved into the scenario's own
// (results.Scenario.Own) still reports and resumes with them.
func TestLegacySettings(t *testing.T) {
	sc := runtest.Scenario(t, `{"Name":"c","Kind":"crowd","Path":"/","ProbePath":"/old","TransferPath":"","ClickEvery":7000000000,"ProbeEvery":250000000,"GiveUp":9000000000,"Levels":null,"ErrorClients":0,"Browse":null}`)
	if got, want := settingsOf(sc), (settings{ProbePath: "/old", ClickEvery: 7 * time.Second, ProbeEvery: 250 * time.Millisecond, GiveUp: 9 * time.Second}); got != want {
		t.Errorf("settings %+v, want %+v", got, want)
	}
}

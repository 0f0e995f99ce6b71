package kit

import (
	"slices"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
)

// A run made before the kit's settings moved into the scenario's own
// (results.Scenario.Own) still reports and resumes with them.
func TestLegacySettings(t *testing.T) {
	sc := runtest.Scenario(t, `{"Name":"k","Kind":"kit","Path":"/","ProbePath":"","TransferPath":"/big","ClickEvery":0,"ProbeEvery":0,"GiveUp":0,"Levels":[3,7],"ErrorClients":5,"Browse":null}`)
	if got := settingsOf(sc); got.TransferPath != "/big" || !slices.Equal(got.Levels, []int{3, 7}) || got.ErrorClients != 5 {
		t.Errorf("settings %+v, want /big, levels [3 7], 5 error clients", got)
	}
}

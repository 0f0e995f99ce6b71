package kit

import (
	"slices"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
)

// A run made before the kit's settings moved into the scenario's own
// (results.Scenario.Own) still reports and resumes with them.
func TestLegacySettings(t *testing.T) {
	sc := runtest.Scenario(t, `{"Name":"k","Kind":"kit","Path":"/","ProbePath":"","TransferPath":"/big","ClickEvery":10000000000,"ProbeEvery":500000000,"GiveUp":30000000000,"Levels":[3,7],"ErrorClients":5,"Browse":null}`)
	if got := settingsOf(sc); got.TransferPath != "/big" || !slices.Equal(got.Levels, []int{3, 7}) || got.ErrorClients != 5 {
		t.Errorf("settings %+v, want /big, levels [3 7], 5 error clients", got)
	}
	// The old loader gave every scenario the crowd's durations: a kit's
	// own settings are the kit's alone.
	if string(sc.Own) != `{"error_clients":5,"levels":[3,7],"transfer_path":"/big"}` {
		t.Errorf("own %s, want the kit's three", sc.Own)
	}
}

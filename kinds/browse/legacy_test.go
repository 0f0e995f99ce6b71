package browse

import (
	"testing"
	"time"

	"github.com/wptest/wptest/internal/runtest"
)

// A run made before the browse's settings moved into the scenario's own
// (results.Scenario.Own) still reports and resumes with them.
func TestLegacySettings(t *testing.T) {
	sc := runtest.Scenario(t, `{"Name":"b","Kind":"browse","Path":"/","Proto":"h1","ProbePath":"","TransferPath":"","ClickEvery":0,"ProbeEvery":0,"GiveUp":0,"Levels":null,"ErrorClients":0,"Browse":{"Conns":3,"Think":2000000000}}`)
	if got, ok := settingsOf(sc); !ok || got.Conns != 3 || got.Think != 2*time.Second || got.Legacy != nil {
		t.Errorf("settings %+v (%v), want 3 connections, 2s think", got, ok)
	}
	if how := browseHow(sc); how != "h1, up to 3 connections per visitor" {
		t.Errorf("how %q", how)
	}
}

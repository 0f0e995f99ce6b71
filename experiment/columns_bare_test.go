package experiment

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// Swapping between two columns of one profile applies only the difference,
// on a Debian host made from the shipped servers' image (baked.Servers):
// with tuned-apache live, the
// swap to tuned-400 (max_request_workers = 400) changes httpd.conf alone and
// restarts Apache alone; PHP-FPM and MariaDB keep their processes, nothing
// is retired. The run's apply keys the host manifest by column, so each
// column's worker limit is its own, and the swap back changes httpd.conf
// again and nothing else.
func TestSwapBetweenColumnsOfOneProfile(t *testing.T) {
	t.Parallel() // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	hs := baked.Hosts(t, baked.Servers, "web")
	ctx := context.Background()
	tg, err := host.ParseTarget(hs[0].Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(ctx, tg, host.Options{KnownHostsFile: hs[0].KnownHosts, IdentityFile: hs[0].Identity})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	sp, err := Load("exp.hcl", []byte(`experiment "e" {}
fixture "minimal" { seed = 1 }
profile "tuned-apache" {}
column "tuned-400" {
  profile = "tuned-apache"
  vars    = { max_request_workers = 400 }
}
scenario "s" {
  kind     = "static"
  visitors = [1]
}
`), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tuned, tuned400 := sp.Columns[0], sp.Columns[1]
	log := &testenv.SyncBuffer{}
	now := time.Unix(0, 0)
	r := &runner{sp: sp, srv: &server{h: h}, dir: t.TempDir(), opt: Options{Log: log, Now: func() time.Time { return now }},
		man: &results.Manifest{Format: results.ManifestFormat, Hosts: map[string]*hostmanifest.Manifest{}}}
	if err := r.apply(ctx, tuned); err != nil {
		t.Fatalf("apply tuned-apache: %v\n%s", err, log)
	}
	before := masters(t, h)

	// The swap as the run's apply does it (Live, then the server stage),
	// its report kept.
	p, err := loadProfile(tuned400, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := r.srv.state(r.opt.Log)
	if err := stage.Run(ctx, st, append([]stage.Step{stage.Live()}, stage.Server(stage.ServerOptions{Profile: p})...)...); err != nil {
		t.Fatalf("swap to tuned-400: %v", err)
	}
	var changed, notified []string
	for _, op := range st.Report.Ops {
		if op.Change != nil && op.Change.Needed {
			changed = append(changed, op.ID)
		}
	}
	for _, n := range st.Report.Notified {
		notified = append(notified, n.Service+" "+n.Action)
	}
	if strings.Join(changed, ",") != "file.httpd_conf" || strings.Join(notified, ",") != "service.apache restart" || len(st.Report.Retired) != 0 {
		t.Errorf("swap tuned-apache -> tuned-400: changed %v, notified %v, retired %v; want httpd.conf changed, Apache restarted, nothing else",
			changed, notified, st.Report.Retired)
	}
	if got := shOut(t, h, "grep -E '^ *(MaxRequestWorkers|ServerLimit) ' /etc/apache2/apache2.conf | tr -s ' '"); got != " MaxRequestWorkers 400\n ServerLimit 16" {
		t.Errorf("httpd.conf after the swap: %q, want ServerLimit 16 and MaxRequestWorkers 400", got)
	}
	after := masters(t, h)
	for _, svc := range []string{"php-fpm", "mariadbd"} {
		if before[svc] == "" || after[svc] != before[svc] {
			t.Errorf("%s: oldest process %q before the swap, %q after: want the same (not restarted)", svc, before[svc], after[svc])
		}
	}
	if after["apache2"] == "" || after["apache2"] == before["apache2"] {
		t.Errorf("apache2: oldest process %q before, %q after: want a new one (restarted with 400 workers)", before["apache2"], after["apache2"])
	}

	// The run's apply: the same column again changes nothing; the host
	// manifest is kept under the column's id, with its own worker limit.
	if err := r.apply(ctx, tuned400); err != nil {
		t.Fatalf("apply tuned-400 again: %v\n%s", err, log)
	}
	if err := r.apply(ctx, tuned); err != nil {
		t.Fatalf("swap back to tuned-apache: %v\n%s", err, log)
	}
	h400, h150 := r.man.Hosts["tuned-400"], r.man.Hosts["tuned-apache"]
	if h400 == nil || h150 == nil || h400.Changes != 0 || h150.Changes != 1 || h400.Server.WorkerLimit != 400 || h150.Server.WorkerLimit != 150 {
		t.Errorf("host manifests by column: tuned-400 %+v, tuned-apache %+v; want 0 changes and 400 workers, 1 change (httpd.conf) and 150", h400, h150)
	}
	if !strings.Contains(log.String(), "column tuned-400 -> tuned-apache: profile tuned-apache") {
		t.Errorf("the run log does not say the swap stayed within the profile:\n%s", log)
	}
}

// masters are the oldest process of each service the swap must or must
// not restart, by name: its pid and start time.
func masters(t *testing.T, h host.Host) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{"apache2", "php-fpm", "mariadbd"} {
		out[name] = shOut(t, h, "p=$(pgrep -o '^"+name+"') && ps -o pid=,lstart= -p \"$p\" || true")
	}
	return out
}

func shOut(t *testing.T, h host.Host, script string) string {
	t.Helper()
	res, err := h.Run(context.Background(), host.Cmd{Script: script})
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	lines := strings.Split(strings.TrimRight(string(res.Stdout), "\n"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

package srvstat

import (
	"math"
	"testing"
)

// Fake /proc: exact tick counts, and exits, reaping and reparenting on cue.

func cpuOf(smp Sample, g string) float64 { return math.Round(smp.Groups[g].CPUSec*1e6) / 1e6 }

// The 3.57 s sample: a CGI exits together with its parent (mpm-itk's child
// per connection), and the worker reaps the parent, whose cutime holds the
// CGI. The CGI's CPU is counted once: without exit records, what both used
// after their last reads goes to the larger one's group; with them, split
// by their records.
func TestChildExitingWithItsParentCountedOnce(t *testing.T) {
	for _, records := range []bool{false, true} {
		f := newFakeProc(t)
		f.stat(fakePid{pid: 1, comm: "init"})
		f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100})
		f.stat(fakePid{pid: 11, ppid: 10, comm: "apache2", utime: 10})
		f.stat(fakePid{pid: 12, ppid: 11, comm: "php-cgi", utime: 30})
		s := New(Config{Proc: f.dir, NoPSS: true})
		var recs []*exitRec
		if records {
			s.testRecs = func() []*exitRec { r := recs; recs = nil; return r }
		}
		sample(t, s)
		if records {
			recs = []*exitRec{{pid: 12, ppid: 11, comm: "php-cgi", cpu: 500e6}, {pid: 11, ppid: 10, comm: "apache2", cpu: 150e6}}
		}
		// The CGI burns 20 more and exits; its parent reaps it (cutime 50),
		// burns 5 more and exits; the worker reaps that (cutime 15 + 50).
		f.exit(12)
		f.exit(11)
		f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 65, cflt: 2})
		smp := sample(t, s)
		cgi, web := cpuOf(smp, "php-cgi"), cpuOf(smp, "web")
		if math.Abs(cgi+web-0.25) > 1e-6 || smp.Groups["php-cgi"].Exits != 1 || smp.Groups["web"].Exits != 1 || s.lost != 0 {
			t.Fatalf("records %v: both used 0.25 s: %+v, %d lost", records, smp.Groups, s.lost)
		}
		// Records: the CGI used 20 ticks after its last read, its parent 5
		// (records are truncated to 10 ms: half a unit added to each).
		if want := map[bool]float64{false: 0.25, true: 0.25 * 20.5 / 26}[records]; math.Abs(cgi-want) > 1e-6 {
			t.Fatalf("records %v: php-cgi %.4f s, want %.4f: %+v", records, cgi, want, smp.Groups)
		}
		s.Close()
	}
}

// An orphan is reaped by init (or a subreaper) up the tree: its parent's
// CPU and its own count once each, in their groups.
func TestOrphanCountsOnceWhenInitReapsIt(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 1, comm: "init"})
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100})
	f.stat(fakePid{pid: 11, ppid: 10, comm: "php-cgi", utime: 20})
	s := New(Config{Proc: f.dir, NoPSS: true})
	defer s.Close()
	sample(t, s)
	// Apache burns 10 more and exits; init reaps it; the CGI is its child now.
	f.exit(10)
	f.stat(fakePid{pid: 1, comm: "init", cutime: 110})
	f.stat(fakePid{pid: 11, ppid: 1, comm: "php-cgi", utime: 25})
	s1 := sample(t, s)
	if cpuOf(s1, "web") != 0.1 || cpuOf(s1, "php-cgi") != 0.05 || cpuOf(s1, Other) != 0 {
		t.Fatalf("after Apache's exit: %+v", s1.Groups)
	}
	f.exit(11)
	f.stat(fakePid{pid: 1, comm: "init", cutime: 150, cflt: 2})
	s2 := sample(t, s)
	if cpuOf(s2, "web") != 0.1 || cpuOf(s2, "php-cgi") != 0.2 || cpuOf(s2, Other) != 0 || s.lost != 0 {
		t.Fatalf("after the orphan's exit: %+v, %d lost", s2.Groups, s.lost)
	}
}

// A parent that ignores SIGCHLD never adds its children to cutime: what a
// child used after its last read is lost (nothing shows it), and nothing
// else is taken away for it.
func TestChildNobodyReapsIsLostNotCountedTwice(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 1, comm: "init"})
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100})
	f.stat(fakePid{pid: 11, ppid: 10, comm: "php-cgi", utime: 20})
	s := New(Config{Proc: f.dir, NoPSS: true})
	defer s.Close()
	sample(t, s)
	f.exit(11)
	s1 := sample(t, s)
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 105})
	s2 := sample(t, s)
	if cpuOf(s1, "php-cgi") != 0 || s1.Groups["php-cgi"].Exits != 1 || s.lost != 1 || cpuOf(s2, "web") != 0.05 {
		t.Fatalf("autoreaped child: %+v then %+v, %d lost", s1.Groups, s2.Groups, s.lost)
	}
}

// A reaper's cutime and cstime are each rounded down to ticks, so they can
// show less than the child it reaped as last read: the difference is not
// taken from anyone, and is paid from the reaper's next growth.
func TestReaperRoundingShortfallIsPaidBack(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 1, comm: "init"})
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100})
	f.stat(fakePid{pid: 11, ppid: 10, comm: "php-cgi", utime: 49, stime: 49})
	s := New(Config{Proc: f.dir, NoPSS: true})
	defer s.Close()
	sample(t, s)
	f.exit(11)
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 48, cstime: 49})
	s1 := sample(t, s)
	if cpuOf(s1, "web") != 0 || cpuOf(s1, "php-cgi") != 0 || s.lost != 0 {
		t.Fatalf("reaped with 97 of 98 ticks showing: %+v, %d lost", s1.Groups, s.lost)
	}
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 58, cstime: 49, cflt: 2})
	s2 := sample(t, s)
	if cpuOf(s2, "web") != 0.09 || cpuOf(s2, "php-cgi") != 0 {
		t.Fatalf("10 more ticks reaped, 1 owed: %+v", s2.Groups)
	}
}

// With exit records, a process that started and ended between two samples
// counts in its own group; several in one interval split the reaper's
// growth by their records; a record that comes while /proc still shows
// the process waits for it to go, and counts once. Without records, the
// reaper's group gets them.
func TestExitRecordsPutShortLivedProcessesInTheirGroup(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 1, comm: "init"})
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100})
	var recs []*exitRec
	s := New(Config{Proc: f.dir, NoPSS: true})
	s.testRecs = func() []*exitRec { r := recs; recs = nil; return r }
	defer s.Close()
	byParent := New(Config{Proc: f.dir, NoPSS: true})
	defer byParent.Close()
	sample(t, s)
	sample(t, byParent)

	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 30})
	recs = []*exitRec{{pid: 50, ppid: 10, comm: "php-cgi", cpu: 300e6}}
	s1, p1 := sample(t, s), sample(t, byParent)
	if cpuOf(s1, "php-cgi") != 0.3 || cpuOf(s1, "web") != 0 || s1.Groups["php-cgi"].Exits != 1 || s1.ExitsFrom != "acct" {
		t.Fatalf("one unseen CGI: %+v", s1.Groups)
	}
	if cpuOf(p1, "web") != 0.3 || cpuOf(p1, "php-cgi") != 0 {
		t.Fatalf("one unseen CGI, by parent: %+v", p1.Groups)
	}

	// A CGI and a shell of Apache's (no group: Apache's), then a shell that
	// ran a CGI: split by their records' CPU.
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 60, cflt: 2})
	recs = []*exitRec{{pid: 51, ppid: 10, comm: "php-cgi", cpu: 200e6}, {pid: 52, ppid: 10, comm: "sh", cpu: 100e6}}
	s2 := sample(t, s)
	cgi, web := cpuOf(s2, "php-cgi")-cpuOf(s1, "php-cgi"), cpuOf(s2, "web")-cpuOf(s1, "web")
	if math.Abs(cgi+web-0.3) > 1e-6 || cgi < 0.18 || cgi > 0.22 {
		t.Fatalf("a CGI (0.2 s) and a shell (0.1 s) reaped together: php-cgi %.4f s, web %.4f s", cgi, web)
	}
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 100, cflt: 3})
	recs = []*exitRec{{pid: 54, ppid: 53, comm: "php-cgi", cpu: 350e6}, {pid: 53, ppid: 10, comm: "sh", cpu: 50e6}}
	s3 := sample(t, s)
	if cgi := cpuOf(s3, "php-cgi") - cpuOf(s2, "php-cgi"); cgi < 0.33 || cgi > 0.37 || math.Abs(groupSum(s3)-groupSum(s2)-0.4) > 1e-6 {
		t.Fatalf("a shell that ran a CGI: php-cgi %.4f s of 0.4 s: %+v", cgi, s3.Groups)
	}

	// A CGI seen alive, whose record comes before /proc shows it gone.
	f.stat(fakePid{pid: 60, ppid: 10, comm: "php-cgi", utime: 10})
	s4 := sample(t, s)
	recs = []*exitRec{{pid: 60, ppid: 10, comm: "php-cgi", cpu: 150e6}}
	s5 := sample(t, s)
	f.exit(60)
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 115, cflt: 4})
	s6 := sample(t, s)
	if math.Abs(cpuOf(s6, "php-cgi")-cpuOf(s4, "php-cgi")-0.05) > 1e-6 || s5.Groups["php-cgi"].Exits != s4.Groups["php-cgi"].Exits ||
		s6.Groups["php-cgi"].Exits != s4.Groups["php-cgi"].Exits+1 || cpuOf(s6, "web") != cpuOf(s4, "web") {
		t.Fatalf("record before the exit: %+v, %+v, %+v", s4.Groups, s5.Groups, s6.Groups)
	}
}

// Reads are one after the other: a child that exits and is reaped between
// its read and its parent's (or between its parent's and its own) must
// not count twice, nor be lost, whichever is read first.
func TestReadsAgreeAboutAReapingBetweenThem(t *testing.T) {
	for i := range 40 {
		f := newFakeProc(t)
		f.stat(fakePid{pid: 1, comm: "init"})
		f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100})
		f.stat(fakePid{pid: 11, ppid: 10, comm: "php-cgi", utime: 30})
		s := New(Config{Proc: f.dir, NoPSS: true})
		sample(t, s)
		f.stat(fakePid{pid: 11, ppid: 10, comm: "php-cgi", utime: 50})
		// Between the first and the second of the two reads: the CGI
		// exits and Apache reaps it.
		first, done := 0, false
		s.beforeRead = func(pid int) {
			if pid != 10 && pid != 11 {
				return
			}
			if first == 0 {
				first = pid
			} else if pid != first && !done {
				done = true
				f.exit(11)
				f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 50})
			}
		}
		s1 := sample(t, s)
		s.beforeRead = nil
		s2 := sample(t, s)
		if cpuOf(s1, "php-cgi") != 0.2 || cpuOf(s1, "web") != 0 || cpuOf(s2, "php-cgi") != 0.2 || cpuOf(s2, "web") != 0 || s.lost != 0 {
			t.Fatalf("round %d, pid %d read first: %+v, then %+v, %d lost", i, first, s1.Groups, s2.Groups, s.lost)
		}
		s.Close()
	}
}

// A process in a pid namespace below the one /proc shows (a container's,
// or a bare host's of the netns driver on this kernel) is not this
// server's, whatever its name: it, what it forks and an exit it forked
// that srvstat never saw are Other's. Without namespace links (a /proc
// whose namespaces cannot be read) the same tree counts by name, as
// before: the links are what decides.
func TestOtherPidNamespacesAreOther(t *testing.T) {
	for _, links := range []bool{true, false} {
		f := newFakeProc(t)
		ns := func(n string) string {
			if links {
				return n
			}
			return ""
		}
		host, box := ns("pid:[4026531836]"), ns("pid:[4026532999]")
		f.stat(fakePid{pid: 1, comm: "init", ns: host})
		f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", ns: host, utime: 100})
		f.stat(fakePid{pid: 20, ppid: 1, comm: "containerd-shim", ns: host})
		f.stat(fakePid{pid: 21, ppid: 20, comm: "apache2", ns: box, utime: 100})
		f.stat(fakePid{pid: 22, ppid: 21, comm: "sh", ns: box, utime: 10})
		s := New(Config{Proc: f.dir, NoPSS: true})
		var recs []*exitRec
		s.testRecs = func() []*exitRec { r := recs; recs = nil; return r }
		sample(t, s)
		// Ours burns 50 ticks; the container's apache 60 and reaps a
		// php-cgi it forked (30 ticks, never seen live: its record); its
		// sh burns 20.
		recs = []*exitRec{{pid: 23, ppid: 21, comm: "php-cgi", cpu: 300e6}}
		f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", ns: host, utime: 150})
		f.stat(fakePid{pid: 21, ppid: 20, comm: "apache2", ns: box, utime: 160, cutime: 30})
		f.stat(fakePid{pid: 22, ppid: 21, comm: "sh", ns: box, utime: 30})
		smp := sample(t, s)
		web, cgi := smp.Groups["web"], smp.Groups["php-cgi"]
		want := map[bool][5]float64{ // web procs, web s, cgi exits, cgi s, other s
			true:  {1, 0.5, 0, 0, 1.1},
			false: {3, 1.3, 1, 0.3, 0},
		}[links]
		got := [5]float64{float64(web.Procs), cpuOf(smp, "web"), float64(cgi.Exits), cpuOf(smp, "php-cgi"), cpuOf(smp, Other)}
		if got != want {
			t.Errorf("namespace links %v: web %d procs %.2f s, php-cgi %d exits %.2f s, other %.2f s; want %v", links, web.Procs, got[1], cgi.Exits, got[3], got[4], want)
		}
		s.Close()
	}
}

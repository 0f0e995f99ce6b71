package srvstat

import (
	"fmt"
	"slices"
	"strconv"
	"syscall"
)

// How a sample's CPU is counted, once and only once.
//
// Every process's own CPU (utime+stime, exact from its CPU clock) grows
// only while it runs: its growth since the last sample goes to its group.
// A process's kids (cutime+cstime) grow when it reaps a child, by the
// child's whole CPU, own and its own reaped children's: of that growth,
// the part we counted already (the exited children we saw, as last read:
// their "counted") is not counted again, and the rest, which is CPU those
// children used after we last read them or CPU of children we never saw,
// is new: it goes to the exited processes' groups, split by their exit
// records (process accounting), or without records to the group of the
// largest child it reaped that we saw, else to the reaper's own.
//
// Which process reaped an exited one: its exit record says (its parent
// when it exited); without one, its last parent, or if that one is gone
// too, that one's reaper, and so on. An orphan is reaped by an ancestor
// further up (the nearest subreaper, or the namespace's init), so the walk
// goes on up the ancestors to the first whose kids grew by enough to hold
// it. None did (its parent ignores SIGCHLD, or its reaper is outside
// Proc): what it used after its last read is lost, and counted nowhere
// twice.
//
// kids is rounded down to ticks, so a reaper's kids can show less than the
// exited children it took hold (by less than 2 ticks): that shortfall is
// its debt, paid from its next growth.

// slack is how much a reaper's rounded kids can fall short of the exited
// children it reaped (user and system are rounded apart).
const slack = 2 * tick

// waitSamples: how long an exit record waits for /proc to show its process gone.
const waitSamples = 100

// recWeight is what a record says a process used, for splitting: records
// truncate to 10 ms (of a time sampled at the scheduler's tick), so half
// of that is added; one that shows 0 (a helper that ran a few ms, or
// Go's fork to probe for clone3's pidfd) counts 1 ms, not 5.
func recWeight(cpu uint64) uint64 {
	if cpu == 0 {
		return 1e6
	}
	return cpu + 1e9/ahz/2
}

// account settles one sample: exit records go to the processes they belong
// to, and each group's CPU grows by what its processes used.
func (s *Sampler) account(recs []*exitRec) {
	if s.n == 0 {
		s.setGroups()
		s.roll()
		return
	}
	s.indexGone()
	unseen, reapers := s.matchRecords(recs)
	unseen = s.settleWaiting(recs, unseen)
	recByPid := s.rereadReapers(unseen, reapers)
	s.setGroups()
	s.attachUnseen(unseen, recByPid)
	s.addCPU()
	s.roll()
}

// matchRecords sorts this sample's exit records. Exit records are of
// processes we saw exit (or will: zombies), or of processes we never saw,
// whose reapers are read again now that the record says they exited
// (reaped before the check below, so before that read). It returns the
// records of processes never seen and the processes to read again.
func (s *Sampler) matchRecords(recs []*exitRec) (unseen []*exitRec, reapers []*proc) {
	for _, e := range recs {
		if g := s.byPid[e.pid]; g != nil && g.rec == nil {
			g.rec = e
			continue
		}
		if p := s.procs[e.pid]; p != nil {
			// Seen, and not seen gone yet: a zombie, or it exited since
			// its read. Read it again: gone now, it is settled with its
			// record below.
			s.wait[e.pid] = e
			reapers = append(reapers, p)
			continue
		}
		if s.zombie(e.pid) {
			s.wait[e.pid] = e // not reaped yet: its reaper's kids grow later
			continue
		}
		unseen = append(unseen, e)
	}
	return unseen, reapers
}

// settleWaiting gives the records waiting for their process to leave /proc
// to it once it has, or to unseen when it was never seen; it drops those
// that waited too long.
func (s *Sampler) settleWaiting(recs, unseen []*exitRec) []*exitRec {
	for pid, e := range s.wait {
		if e.since == 0 {
			e.since = s.n
		}
		if s.n-e.since > waitSamples {
			delete(s.wait, pid) // a zombie nobody reaps, or its pid is another process's now
			continue
		}
		if s.procs[pid] != nil || s.zombie(pid) {
			continue
		}
		delete(s.wait, pid)
		if g := s.byPid[pid]; g != nil && g.rec == nil {
			g.rec = e
		} else if !slices.Contains(recs, e) {
			unseen = append(unseen, e)
		}
	}
	return unseen
}

// rereadReapers reads again the processes that reaped what the records
// name, so their children's CPU is counted now; records of processes that
// left with that read go to them. It returns the unseen records by pid.
func (s *Sampler) rereadReapers(unseen []*exitRec, reapers []*proc) map[int]*exitRec {
	recByPid := make(map[int]*exitRec, len(unseen))
	for _, e := range unseen {
		recByPid[e.pid] = e
	}
	for _, e := range unseen {
		if r := s.recReaper(e, recByPid); r != nil {
			reapers = append(reapers, r)
		}
	}
	if len(reapers) > 0 {
		s.reconcile(reapers)
		s.indexGone()
		for pid, e := range s.wait {
			if g := s.byPid[pid]; g != nil && g.rec == nil {
				g.rec = e
				delete(s.wait, pid)
			}
		}
	}
	return recByPid
}

// attachUnseen hangs never-seen exited processes under their parents and
// counts the exits of those rooted in a group.
func (s *Sampler) attachUnseen(unseen []*exitRec, recByPid map[int]*exitRec) {
	for _, e := range unseen {
		switch {
		case s.procs[e.ppid] != nil:
			p := s.procs[e.ppid]
			p.recs = append(p.recs, e)
			e.attached = true
		case s.byPid[e.ppid] != nil:
			g := s.byPid[e.ppid]
			g.recs = append(g.recs, e)
			e.attached = true
		case recByPid[e.ppid] != nil && recByPid[e.ppid] != e:
			e.parentRec = recByPid[e.ppid]
			e.parentRec.kids = append(e.parentRec.kids, e)
		}
	}
	for _, e := range unseen {
		if s.recGroup(e, 0) >= 0 && s.recRooted(e, 0) {
			s.exits[e.group]++
		}
	}
}

// addCPU adds each process's own CPU to its group, then settles exited
// processes children before parents: each settles what it reaped, then
// goes to its reaper.
func (s *Sampler) addCPU() {
	for _, p := range s.procs {
		s.cum[p.group] += sub(p.cpu, p.prevCPU)
	}
	for _, g := range s.gone {
		s.cum[g.group] += sub(g.cpu, g.prevCPU)
		s.exits[g.group]++
	}
	for _, g := range s.gone {
		g.depth = s.depthOf(g)
	}
	slices.SortStableFunc(s.gone, func(a, b *proc) int { return b.depth - a.depth })
	for _, g := range s.gone {
		s.settle(g)
		g.counted = g.cpu + g.kids + g.debt
		s.absorb(g)
	}
	for _, p := range s.procs {
		if p.kids != p.prevKids || p.taken > 0 || len(p.recs) > 0 {
			s.settle(p)
		}
	}
}

// indexGone maps this sample's gone processes by pid.
func (s *Sampler) indexGone() {
	clear(s.byPid)
	if s.byPid == nil {
		s.byPid = map[int]*proc{}
	}
	for _, g := range s.gone {
		s.byPid[g.key.pid] = g
	}
}

// recReaper is the live process whose kids hold (or will) a never-seen
// exited process's CPU: its parent, or up through exited ones.
func (s *Sampler) recReaper(e *exitRec, recs map[int]*exitRec) *proc {
	pid := e.ppid
	for hops := 0; pid > 0 && hops < 64; hops++ {
		if p := s.procs[pid]; p != nil {
			return p
		}
		if g := s.byPid[pid]; g != nil {
			return s.liveAncestor(g.ppid)
		}
		r := recs[pid]
		if r == nil {
			return nil
		}
		pid = r.ppid
	}
	return nil
}

// zombie says whether pid is a process that exited and is not reaped yet.
func (s *Sampler) zombie(pid int) bool {
	fd, err := rawOpen(s.cfg.Proc+"/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer rawClose(fd)
	b, err := s.pread(fd)
	if err != nil {
		return false
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' {
			return i+2 < len(b) && b[i+2] == 'Z'
		}
	}
	return false
}

// setGroups gives every live process its group (its own, else its nearest
// claimed ancestor's, else Other), and every exited one the group it had
// (or its own, if it exec'd into one before exiting).
func (s *Sampler) setGroups() {
	for _, p := range s.procs {
		g := p.own
		for pp, hops := p.ppid, 0; g < 0 && !p.foreign && pp > 1 && hops < 64; hops++ {
			a := s.procs[pp]
			if a == nil || a.foreign {
				break
			}
			g, pp = a.own, a.ppid
		}
		if g < 0 {
			g = s.other
		}
		p.group = g
	}
	for _, g := range s.gone {
		switch {
		case g.foreign:
			g.group = s.other
		case g.own >= 0:
			g.group = g.own
		case g.group >= 0:
		case s.procs[g.ppid] != nil:
			g.group = s.procs[g.ppid].group
		default:
			g.group = s.other
		}
	}
}

// foreignParent says whether a never-seen process was forked by a
// process srvstat saw in another pid namespace (foreignPid), or by one
// that was (its parent's record, up the records).
func (s *Sampler) foreignParent(e *exitRec, depth int) bool {
	switch {
	case !e.attached:
		return e.parentRec != nil && depth < 64 && s.foreignParent(e.parentRec, depth+1)
	case s.procs[e.ppid] != nil:
		return s.procs[e.ppid].foreign
	case s.byPid[e.ppid] != nil:
		return s.byPid[e.ppid].foreign
	}
	return false
}

// recGroup is a never-seen process's group: its own, else its parent's.
func (s *Sampler) recGroup(e *exitRec, depth int) int {
	if e.groupSet {
		return e.group
	}
	if s.foreignParent(e, depth) {
		// Forked in another machine's namespace: Other's, whatever its name.
		e.group, e.groupSet = s.other, true
		return s.other
	}
	g := s.classifyExit(e)
	if g < 0 {
		switch {
		case s.procs[e.ppid] != nil && e.attached:
			g = s.procs[e.ppid].group
		case s.byPid[e.ppid] != nil && e.attached:
			g = s.byPid[e.ppid].group
		case e.parentRec != nil && depth < 64:
			g = s.recGroup(e.parentRec, depth+1)
		default:
			g = s.other
		}
	}
	e.group, e.groupSet = g, true
	return g
}

// recRooted says whether a never-seen process hangs under a tracked one.
func (s *Sampler) recRooted(e *exitRec, depth int) bool {
	for ; depth < 64; depth++ {
		if e.attached {
			return true
		}
		if e.parentRec == nil {
			return false
		}
		e = e.parentRec
	}
	return false
}

// depthOf counts g's ancestors among this sample's processes.
func (s *Sampler) depthOf(g *proc) int {
	d, pid := 0, g.ppid
	for ; pid > 0 && d < 64; d++ {
		if p := s.procs[pid]; p != nil {
			pid = p.ppid
		} else if q := s.byPid[pid]; q != nil && q != g {
			pid = q.ppid
		} else {
			break
		}
	}
	return d
}

// room is how much more of exited children r's kids growth can hold.
func room(r *proc) int64 {
	return int64(r.kids) - int64(r.prevKids) - int64(r.taken) - int64(r.debt) + slack
}

// absorb finds g's reaper and hands it g.
func (s *Sampler) absorb(g *proc) {
	pid := g.ppid
	if g.rec != nil && g.rec.ppid > 0 {
		pid = g.rec.ppid
	}
	for hops := 0; pid > 0 && hops < 64; hops++ {
		r := s.procs[pid]
		if r == nil {
			r = s.byPid[pid]
		}
		if r == nil || r == g {
			break
		}
		if r.key.start <= g.key.start && room(r) >= int64(g.counted) {
			r.absorbed = append(r.absorbed, g)
			r.taken += g.counted
			return
		}
		pid = r.ppid
	}
	s.lost++
}

// settle counts what r's kids grew by beyond the exited children it took.
func (s *Sampler) settle(r *proc) {
	rem := int64(r.kids) - int64(r.prevKids) - int64(r.taken) - int64(r.debt)
	if rem <= 0 {
		r.debt = uint64(-rem)
		return
	}
	r.debt = 0
	w := make(map[int]float64, 2)
	s.weigh(r, w, 0)
	total := 0.0
	for _, v := range w {
		total += v
	}
	if total <= 0 {
		// No records to go by: the largest exited child's group, else the
		// first never-seen one's, else the reaper's.
		g, most := r.group, uint64(0)
		for _, a := range r.absorbed {
			if a.counted >= most {
				g, most = a.group, a.counted
			}
		}
		if len(r.absorbed) == 0 && len(r.recs) > 0 {
			g = s.recGroup(r.recs[0], 0)
		}
		s.cum[g] += uint64(rem)
		return
	}
	left, top, topW := uint64(rem), r.group, -1.0
	for g, v := range w {
		share := uint64(float64(rem) * v / total)
		s.cum[g] += share
		left -= share
		if v > topW {
			top, topW = g, v
		}
	}
	s.cum[top] += left
}

// weigh adds up, per group, the exit records' CPU of what r reaped this
// sample, beyond what was counted of each.
func (s *Sampler) weigh(r *proc, w map[int]float64, depth int) {
	if depth > 8 {
		return
	}
	for _, e := range r.recs {
		s.weighRec(e, w, depth)
	}
	for _, a := range r.absorbed {
		if a.rec != nil {
			if v := float64(recWeight(a.rec.cpu)) - float64(a.cpu); v > 0 {
				w[a.group] += v
			}
		}
		s.weigh(a, w, depth+1)
	}
}

func (s *Sampler) weighRec(e *exitRec, w map[int]float64, depth int) {
	if depth > 64 {
		return
	}
	w[s.recGroup(e, 0)] += float64(recWeight(e.cpu))
	for _, k := range e.kids {
		s.weighRec(k, w, depth+1)
	}
}

// roll makes this sample's readings the next one's reference.
func (s *Sampler) roll() {
	for _, p := range s.procs {
		p.prevCPU, p.prevKids, p.prevCflt = p.cpu, p.kids, p.cflt
		p.absorbed, p.recs, p.taken = p.absorbed[:0], nil, 0
	}
	for i := range s.gone {
		s.gone[i] = nil
	}
	s.gone = s.gone[:0]
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// String describes a process, for test failures.
func (p *proc) String() string {
	return fmt.Sprintf("%d(%s) ppid %d cpu %d kids %d (prev %d/%d) debt %d", p.key.pid, p.comm, p.ppid, p.cpu, p.kids, p.prevCPU, p.prevKids, p.debt)
}

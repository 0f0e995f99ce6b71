package cloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/wptest/wptest/internal/jsonstyle"
	"github.com/wptest/wptest/internal/safefile"
)

// Journal receives an event before and after every cloud mutation, so that a
// crash between the API call and the next line still leaves a trace (and the
// labels let down/gc find the resource).
type Journal interface {
	Append(e Event) error
}

// Event is one journal line.
type Event struct {
	Seq    int               `json:"seq"`
	Time   string            `json:"time,omitempty"` // RFC 3339, UTC
	Phase  string            `json:"phase"`          // before | after | failed
	Op     string            `json:"op"`             // create | delete
	Kind   string            `json:"kind"`           // server, firewall, placement_group, ssh_key
	Name   string            `json:"name,omitempty"`
	ID     string            `json:"id,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	Error  string            `json:"error,omitempty"`
}

// Journal phases.
const (
	PhaseBefore = "before"
	PhaseAfter  = "after"
	PhaseFailed = "failed"
	// PhaseGone marks a teardown that listed the run's label and found
	// nothing: whatever the journal left open before it is settled.
	PhaseGone = "gone"
)

// GoneEvent is the journal line a teardown writes once the provider lists
// nothing under the run's label.
func GoneEvent(run string) Event {
	return Event{Phase: PhaseGone, Op: "sweep", Kind: "run", Name: run}
}

// FileJournal appends JSON lines to a file and fsyncs each one before
// Append returns.
type FileJournal struct {
	mu  sync.Mutex
	f   *os.File
	now func() time.Time
	seq int
}

// OpenJournal opens (or creates) path for appending, as a run directory's
// files are opened (a regular file, never through a link: safefile). now
// stamps events; nil leaves Time empty.
func OpenJournal(path string, now func() time.Time) (*FileJournal, error) {
	seq := 0
	if old, err := ReadJournal(path); err == nil && len(old) > 0 {
		seq = old[len(old)-1].Seq
	}
	f, err := safefile.Append(path, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	return &FileJournal{f: f, now: now, seq: seq}, nil
}

// Append writes e as one line and syncs it to disk.
func (j *FileJournal) Append(e Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.Seq = j.seq
	if j.now != nil {
		e.Time = j.now().UTC().Format(time.RFC3339)
	}
	jsonstyle.Lists(&e)
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal %s: %w", j.f.Name(), err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: sync: %w", j.f.Name(), err)
	}
	return nil
}

// Close closes the file.
func (j *FileJournal) Close() error { return j.f.Close() }

// maxJournal bounds what is read of a journal: a run journals a few lines
// per machine, firewall and key it makes or removes (a few KB).
const maxJournal = 16 << 20

// ReadJournal reads every complete line of a journal (a regular file of at
// most maxJournal bytes). A torn last line (a crash mid-write) is ignored.
func ReadJournal(path string) ([]Event, error) {
	b, err := safefile.ReadFile(path, maxJournal)
	if err != nil {
		return nil, err
	}
	var evs []Event
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e Event
		if err := json.Unmarshal(l, &e); err != nil {
			continue
		}
		evs = append(evs, e)
	}
	return evs, nil
}

// Unfinished returns the "before" events that have no matching "after" or
// "failed" event (same op, kind and name): mutations whose outcome the
// journal does not know. A "gone" event (a teardown confirmed by label that
// nothing is left) settles everything before it.
func Unfinished(evs []Event) []Event {
	type key struct{ op, kind, name string }
	open := map[key]int{}
	var order []key
	for _, e := range evs {
		k := key{e.Op, e.Kind, e.Name}
		switch e.Phase {
		case PhaseGone:
			clear(open)
			order = nil
		case PhaseBefore:
			if _, ok := open[k]; !ok {
				order = append(order, k)
			}
			open[k]++
		case PhaseAfter, PhaseFailed:
			open[k]--
		}
	}
	var out []Event
	for _, k := range order {
		if open[k] > 0 {
			out = append(out, Event{Phase: PhaseBefore, Op: k.op, Kind: k.kind, Name: k.name})
		}
	}
	return out
}

// NopJournal discards events (for callers with no run directory).
var NopJournal Journal = nopJournal{}

type nopJournal struct{}

func (nopJournal) Append(Event) error { return nil }

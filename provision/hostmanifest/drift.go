package hostmanifest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/hostrecord"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/jsonstyle"
)

// Record is the drift record: what the last apply left of every path the
// live profile writes or watches, and whether the site's database login
// worked then. It lives at DriftPath (root's, 0600), bound by the host
// manifest's Drift (its SHA-256).
type Record struct {
	Schema   int      `json:"schema"`
	Entries  []Entry  `json:"entries"`
	Database *DBLogin `json:"database,omitempty"`
}

// Entry is one path as a scan found it.
type Entry struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // KindFile, KindDir, ...
	// Watch is the watch block the path is (or is an entry of); "": a file
	// the profile writes.
	Watch string `json:"watch,omitempty"`
	// In is the watched directory the path is an entry of ("": the path
	// is written or watched itself).
	In     string `json:"in,omitempty"`
	SHA256 string `json:"sha256,omitempty"` // a file's; "-": larger than MaxHash
	Size   int64  `json:"size,omitempty"`
	Target string `json:"target,omitempty"` // a link's
	Detail string `json:"detail,omitempty"` // an other's type, why unsafe
	// Holder is who besides root holds its directories ("root": nobody):
	// the user it is read as.
	Holder string `json:"holder,omitempty"`
	// Sensitive: its content came from a sensitive value (no copy, no
	// lines shown).
	Sensitive bool `json:"sensitive,omitempty"`
	// Copied: DriftDir/files/SHA256 holds its content.
	Copied bool `json:"copied,omitempty"`
}

// DBLogin is whether the site's database user could log in with the
// credentials the profile made (Site.Database, never recorded).
type DBLogin struct {
	Credentials string `json:"credentials"` // the file they are in
	OK          bool   `json:"ok"`
	Error       string `json:"error,omitempty"`
}

// DriftRef binds the drift record to the host manifest (hostrecord).
type DriftRef = hostrecord.DriftRef

// RecordSchema is the drift record's format version.
const RecordSchema = 1

// MarshalRecord is the record's file form: indented JSON, entries by path.
func MarshalRecord(r *Record) ([]byte, error) {
	jsonstyle.Lists(r)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// RecordDrift scans what m's profile writes and watches on h, keeps the
// copies and the record in DriftDir and binds it in m (m.Drift). Called
// after every apply, before the host manifest is written; it returns the
// record (nil: nothing to record).
func RecordDrift(ctx context.Context, h host.Host, m *Manifest) (*Record, error) {
	return recordDrift(ctx, h, m, DriftDir)
}

// recordDrift is RecordDrift into dir (tests: a temporary one).
func recordDrift(ctx context.Context, h host.Host, m *Manifest, dir string) (*Record, error) {
	if len(m.Written) == 0 && len(m.Watch) == 0 && (m.Site == nil || m.Site.Database == "") {
		m.Drift = nil
		return nil, nil
	}
	entries, db, err := scan(ctx, h, m, true, dir)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		e := &entries[i]
		e.Copied = copyable(*e)
	}
	rec := &Record{Schema: RecordSchema, Entries: entries, Database: db}
	b, err := MarshalRecord(rec)
	if err != nil {
		return nil, fmt.Errorf("drift record: %w", err)
	}
	p := path.Join(dir, "record.json")
	if err := h.Put(ctx, p, bytes.NewReader(b), host.PutOptions{Mode: 0o600}); err != nil {
		return nil, fmt.Errorf("write drift record %s on %s: %w", p, h.Name(), err)
	}
	sum := sha256.Sum256(b)
	m.Drift = &DriftRef{Path: p, SHA256: hex.EncodeToString(sum[:]), Entries: len(entries)}
	return rec, nil
}

// maxRecord bounds the record read back (root's, but bounded all the same).
const maxRecord = 16 << 20

// ReadRecord reads the drift record m binds (nil, nil: m binds none).
func ReadRecord(ctx context.Context, h host.Host, m *Manifest) (*Record, error) {
	return readRecord(ctx, h, m, DriftDir)
}

func readRecord(ctx context.Context, h host.Host, m *Manifest, dir string) (*Record, error) {
	if m == nil || m.Drift == nil {
		return nil, nil
	}
	DriftPath := path.Join(dir, "record.json")
	b, err := host.ReadFileAs(ctx, h, "", "", DriftPath, maxRecord)
	if err != nil {
		return nil, fmt.Errorf("drift record: %w", err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != m.Drift.SHA256 {
		return nil, fmt.Errorf("drift record %s on %s has sha256 %.16s, the host manifest binds %.16s: changed since the last apply", DriftPath, h.Name(), got, m.Drift.SHA256)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("drift record %s on %s: %w", DriftPath, h.Name(), err)
	}
	if r.Schema != RecordSchema {
		return nil, fmt.Errorf("drift record %s on %s has schema %d; this wptest reads %d", DriftPath, h.Name(), r.Schema, RecordSchema)
	}
	return &r, nil
}

// Drift is one way the host differs from what the last apply left.
type Drift struct {
	Path string `json:"path,omitempty"`
	// What says it in words: "/etc/apache2/apache2.conf changed since up".
	What string `json:"what"`
	// Lines are the changed lines of a text file: "MaxRequestWorkers 150 → 400".
	Lines []string `json:"lines,omitempty"`
	// diff: a file's content changed; its lines are worth reading.
	diff bool
	// login: the site's database login fails.
	login bool
	// Down: the database server did not answer the login at all (stopped,
	// not changed): a state of the server, not an edit. A run does not
	// refuse a server for it (the apply starts the database again) nor
	// drop a point for it (the point's failed requests mark it).
	Down bool `json:"down,omitempty"`
}

// dbDown says whether a login's error is the client's failing to reach
// any server (mariadb's CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR) while no
// database server ran on the host: stopped. With one running, the login
// went elsewhere (DB_HOST changed by hand): an edit.
func dbDown(msg string) bool {
	return strings.HasPrefix(msg, dbNotRunning) && (strings.Contains(msg, "ERROR 2002") || strings.Contains(msg, "ERROR 2003"))
}

// Edits are drifts but those of a server's state (Down).
func Edits(ds []Drift) []Drift {
	var out []Drift
	for _, d := range ds {
		if !d.Down {
			out = append(out, d)
		}
	}
	return out
}

// String is the drift in one line.
func (d Drift) String() string {
	if len(d.Lines) == 0 {
		return d.What
	}
	return d.What + ": " + strings.Join(d.Lines, "; ")
}

// CheckDrift compares the live host with the drift record m binds and
// names each difference, with the changed lines of a text file the record
// kept a copy of; it returns the record too. None when m binds no record
// (a manifest of an older wptest).
func CheckDrift(ctx context.Context, h host.Host, m *Manifest) ([]Drift, *Record, error) {
	return checkDrift(ctx, h, m, DriftDir)
}

func checkDrift(ctx context.Context, h host.Host, m *Manifest, dir string) ([]Drift, *Record, error) {
	rec, err := readRecord(ctx, h, m, dir)
	if err != nil || rec == nil {
		return nil, nil, err
	}
	live, db, err := scan(ctx, h, m, false, dir)
	if err != nil {
		return nil, nil, err
	}
	drifts := Compare(rec, &Record{Schema: RecordSchema, Entries: live, Database: db})
	for i := range drifts {
		d := &drifts[i]
		if !d.diff {
			continue
		}
		d.Lines = changedLines(ctx, h, dir, entryOf(rec, d.Path), entryOf(&Record{Entries: live}, d.Path))
	}
	return drifts, rec, nil
}

// What an apply did with a drift found before it (Reset).
const (
	DriftReset = "reset" // put back as the last apply left it
	DriftKept  = "kept"  // still there: the applied profile watches it, does not write it
	DriftLeft  = "left"  // the applied profile neither writes nor watches it
)

// Reset says what an apply did with a drift found before it, from the
// record before (old) and after (cur) it: reset when the new record holds
// the path as the old one did (an entry added to a watched directory: not
// at all), or the database login works again; left when the new record
// has no such path (another profile's); kept otherwise.
func Reset(old, cur *Record, d Drift) string {
	if old == nil || cur == nil {
		return DriftKept
	}
	if d.Path == "" {
		if d.login && cur.Database != nil && cur.Database.OK {
			return DriftReset
		}
		return DriftKept
	}
	o, n := entryOf(old, d.Path), entryOf(cur, d.Path)
	switch {
	case o == nil && (n == nil || n.Kind == KindAbsent):
		return DriftReset
	case n == nil:
		return DriftLeft
	case o != nil && o.Kind == n.Kind && o.SHA256 == n.SHA256 && o.Size == n.Size && o.Target == n.Target && o.Detail == n.Detail:
		return DriftReset
	}
	return DriftKept
}

func entryOf(r *Record, p string) *Entry {
	for i := range r.Entries {
		if r.Entries[i].Path == p {
			return &r.Entries[i]
		}
	}
	return nil
}

// changedLines reads the recorded copy and the live file (as the holder
// the scan found, no link followed, bounded) and diffs their lines; nil
// when either is not there, not text, or the content is sensitive.
func changedLines(ctx context.Context, h host.Host, dir string, was, now *Entry) []string {
	if was == nil || now == nil || !was.Copied || now.Kind != KindFile || now.Sensitive || now.Size > MaxCopy {
		return nil
	}
	old, err := host.ReadFileAs(ctx, h, "", "", path.Join(dir, "files", was.SHA256), MaxCopy)
	if err != nil {
		return nil
	}
	user := now.Holder
	if user == "root" {
		user = ""
	}
	cur, err := host.ReadFileAs(ctx, h, user, "", now.Path, MaxCopy)
	if err != nil {
		return nil
	}
	return LineDiff(old, cur)
}

// Compare names each difference between what the last apply recorded and
// a scan of the live host, in path order, the database login last.
func Compare(rec, live *Record) []Drift {
	was, now := byPath(rec.Entries), byPath(live.Entries)
	var paths []string
	for p := range was {
		paths = append(paths, p)
	}
	for p := range now {
		if _, ok := was[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out []Drift
	for _, p := range paths {
		if d, ok := compareOne(was[p], now[p]); ok {
			out = append(out, d)
		}
	}
	if db := live.Database; db != nil && !db.OK {
		what := "database login for the site fails"
		if rec.Database != nil && !rec.Database.OK {
			what += " (it failed at up too)"
		}
		d := Drift{What: what, login: true}
		if dbDown(db.Error) {
			d.What, d.Down = "the database server is not running (stopped, not changed)", true
		}
		if db.Error != "" {
			d.Lines = []string{db.Error}
		}
		out = append(out, d)
	}
	return out
}

func byPath(es []Entry) map[string]*Entry {
	m := map[string]*Entry{}
	for i := range es {
		m[es[i].Path] = &es[i]
	}
	return m
}

// WriteDrift prints the drifts for people (wptest status): "none" when
// there are none; recorded says whether the host manifest binds a record.
func WriteDrift(w io.Writer, drifts []Drift, recorded bool) {
	switch {
	case !recorded:
		fmt.Fprintln(w, "drift:    not recorded (the last apply kept no drift record; wptest up keeps one)")
	case len(drifts) == 0:
		fmt.Fprintln(w, "drift:    none since up")
	default:
		fmt.Fprintf(w, "drift:    %d change%s since up (a run measures this server only with --accept-drift; wptest up resets it)\n", len(drifts), plural(len(drifts)))
		for _, d := range drifts {
			fmt.Fprintf(w, "  - %s\n", d)
		}
	}
}

package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wptest/wptest/internal/jsonstyle"
	"github.com/wptest/wptest/internal/redact"
	"github.com/wptest/wptest/internal/safefile"
)

// WriteFileSync writes path atomically and durably: a new file in its
// directory, fsynced, renamed over path. A run directory is a file anyone
// can send, so nothing is written through a link planted at path or at
// any temporary name (safefile.Write).
func WriteFileSync(path string, b []byte, mode os.FileMode) error {
	return safefile.Write(path, b, mode)
}

// Bounds of what is read back from a run directory, far above what a run
// writes and small enough to hold in memory: a record is a few KB (a
// crowd's, with every newcomer, some 100 KB), and a run has hundreds of
// points at most, so results.jsonl stays under a few MB; the manifest
// holds a host manifest per column and each session's keys, well under
// 1 MB. A file over its bound (or a link to /dev/zero, which is refused
// as a link first) is an error naming it, not a process out of memory.
const (
	MaxResultsBytes  = 64 << 20
	MaxManifestBytes = 16 << 20
)

// Store appends records to results.jsonl, one fsynced line per point.
type Store struct {
	f    *os.File
	done map[string]bool
}

// OpenStore opens dir's results.jsonl for appending and returns the
// records already there. A last line without its newline (the process
// died while writing it) is cut off: that point was not complete and is
// measured again.
func OpenStore(dir string) (*Store, []Record, error) {
	path := filepath.Join(dir, ResultsFile)
	f, err := safefile.Open(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	s, recs, err := openStore(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return s, recs, nil
}

// openStore reads f's records and places its end after the last complete
// one.
func openStore(f *os.File, path string) (*Store, []Record, error) {
	b, err := safefile.ReadAll(f, MaxResultsBytes)
	if err != nil {
		return nil, nil, err
	}
	recs, good, err := parseRecords(path, b)
	if err != nil {
		return nil, nil, err
	}
	if err := f.Truncate(good); err != nil {
		return nil, nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		return nil, nil, err
	}
	s := &Store{f: f, done: map[string]bool{}}
	for _, r := range recs {
		s.done[r.Key] = true
	}
	return s, recs, nil
}

// Append writes r as the next line and syncs it to disk.
func (s *Store) Append(r Record) error {
	jsonstyle.Lists(&r) // a list none is [], never null
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = redact.URLsJSON(b) // a URL measured or probed, an error quoting one
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	s.done[r.Key] = true
	return nil
}

// Done says whether the point key has its record.
func (s *Store) Done(key string) bool { return s.done[key] }

// Len is how many points have their record.
func (s *Store) Len() int { return len(s.done) }

// Close closes the file.
func (s *Store) Close() error { return s.f.Close() }

// ReadResults reads results.jsonl; an unterminated last line is ignored.
func ReadResults(dir string) ([]Record, error) {
	path := filepath.Join(dir, ResultsFile)
	b, err := safefile.ReadFile(path, MaxResultsBytes)
	if err != nil {
		return nil, err
	}
	recs, _, err := parseRecords(path, b)
	return recs, err
}

// parseRecords returns the complete records of path's bytes and the byte length they span.
// A line ends at its '\n' (a '\r' before it is JSON whitespace, so a file
// an editor saved with CRLF reads the same), and the length counts every
// byte of it, so what --resume appends starts right after the last
// complete line. Blank lines carry no record and are skipped.
func parseRecords(path string, b []byte) ([]Record, int64, error) {
	var recs []Record
	var good int64
	for n := 1; int(good) < len(b); n++ {
		i := bytes.IndexByte(b[good:], '\n')
		if i < 0 { // no newline after it: cut off mid-write
			break
		}
		line := b[good : int(good)+i]
		if len(bytes.TrimSpace(line)) > 0 {
			var r Record
			if err := json.Unmarshal(line, &r); err != nil {
				return nil, 0, fmt.Errorf("%s: line %d: %w", path, n, err)
			}
			if r.Column == "" { // written before columns had ids: one per profile
				r.Column = r.Profile
			}
			recs = append(recs, r)
		}
		good += int64(i) + 1
	}
	return recs, good, nil
}

package testenv

import (
	"bytes"
	"sync"
)

// SyncBuffer is a log sink several goroutines write to (a host's step log,
// an experiment's progress) that a test reads when they are done.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

package cloud

import (
	"bytes"
	"io"
	"sort"
	"strings"
	"sync"
)

// Redactor holds the secrets of one process (the API token, private keys,
// passwords) and wraps writers so none of them is ever printed (Tailscale's
// sanitizeWriter, applied to every output, log and the hcloud-go debug dump).
// Add secrets before anything may print them; the zero value is ready.
type Redactor struct {
	mu      sync.Mutex
	secrets []string // longest first, so a secret containing another is replaced whole
}

// Mask replaces each secret.
const Mask = "[REDACTED]"

// minPiece is the shortest line of a multi-line secret that is redacted on
// its own (PEM bodies reappear line by line inside JSON or YAML).
const minPiece = 16

// Add registers secrets. A multi-line secret (a PEM key) is registered whole
// and line by line, since it reappears split or re-indented (cloud-init YAML
// inside a JSON request body).
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		r.secrets = append(r.secrets, s)
		if strings.Contains(s, "\n") {
			for _, line := range strings.Split(s, "\n") {
				line = strings.TrimSpace(line)
				if len(line) >= minPiece && !strings.HasPrefix(line, "-----") {
					r.secrets = append(r.secrets, line)
				}
			}
		}
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// String returns s with every secret masked.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, Mask)
	}
	return s
}

// Writer returns a writer that masks secrets before they reach w. It holds
// back an incomplete last line so a secret split over two Writes is still
// caught; Flush (or a newline) releases it.
func (r *Redactor) Writer(w io.Writer) *RedactWriter {
	return &RedactWriter{r: r, w: w}
}

// RedactWriter is a line-buffered, secret-masking writer.
type RedactWriter struct {
	mu  sync.Mutex
	r   *Redactor
	w   io.Writer
	buf bytes.Buffer
}

// Write buffers p and writes every complete line, masked.
func (rw *RedactWriter) Write(p []byte) (int, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.buf.Write(p)
	data := rw.buf.Bytes()
	i := bytes.LastIndexByte(data, '\n')
	if i < 0 {
		// No newline yet; bound memory for writers that never send one.
		if rw.buf.Len() < 1<<20 {
			return len(p), nil
		}
		i = len(data) - 1
	}
	out := rw.r.String(string(data[:i+1]))
	rest := append([]byte(nil), data[i+1:]...)
	rw.buf.Reset()
	rw.buf.Write(rest)
	if _, err := io.WriteString(rw.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is buffered (an unterminated last line), masked.
func (rw *RedactWriter) Flush() error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.buf.Len() == 0 {
		return nil
	}
	out := rw.r.String(rw.buf.String())
	rw.buf.Reset()
	_, err := io.WriteString(rw.w, out)
	return err
}

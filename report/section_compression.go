package report

import (
	"fmt"
	"github.com/wptest/wptest/results"
)

// The compression kind: who compresses, and what it costs.
var compressionReport = reportKind{Section: compressionSection, perRequest: true,
	charts: func(r *Report, sc results.Scenario, add AddChart) error {
		m := fig(sc.Kind, "wire_bytes")
		p, err := r.bars(sc, m.Label, m.Value)
		if err := add("compression-"+sc.Name, "Bytes on the wire per response (Accept-Encoding: gzip), median", p, err); err != nil {
			return err
		}
		p, err = r.bars(sc, "server CPU per request (ms)", r.ServerCPUPerReq) // the tables name the figure
		return add("compression-cpu-"+sc.Name, "Server CPU per response, median", p, err)
	}}

func compressionSection(r *Report, sc results.Scenario) Section {
	ps := r.ColumnsOf(sc)
	s := Section{ID: "compression-" + sc.Name, Title: fmt.Sprintf("Compression (%s: %s)", sc.Name, sc.Path),
		Text: []string{"The file as a browser asks for it (Accept-Encoding: gzip). Bytes are counted at the connection: headers and body as received."}}
	t := Table{Caption: "Compressed or not, and what it costs", Head: r.Head("", ps)}
	for _, st := range sc.Steps() {
		enc := []string{st + ": Content-Encoding"}
		for _, p := range ps {
			enc = append(enc, r.Encoding(p, sc.Name, st))
		}
		t.Rows = append(t.Rows, enc)
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "body_bytes")...)
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "wire_bytes", "rps")...)
		t.Rows = append(t.Rows, r.CPURows(st+": ", "request", ps, sc.Name, st)...)
	}
	s.Tables = append(s.Tables, t)
	if t, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	s.Charts = []string{"compression-" + sc.Name, "compression-cpu-" + sc.Name}
	return s
}

package experiment

import (
	"github.com/wptest/wptest/experiment/stage"
	"maps"
	"slices"
)

// localFiles reads every local file (local+file:///PATH, stage.LocalFile)
// an enabled column's variables name, once, when the file loads: the
// variable becomes the file's place on the server, where the profile's
// own SHA-256 check reads it, and the run uploads the bytes read here
// (Spec.Uploads) before each apply. A file that cannot be read stops the
// load (exit 2), naming the variable and path.
func (l *loader) localFiles() {
	seen := map[string]bool{}
	for i, c := range l.sp.Columns {
		if !c.Enabled {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(c.Vars)) {
			if !stage.IsLocalFile(c.Vars[k]) {
				continue
			}
			f, err := stage.ReadLocalFile(k, c.Vars[k])
			if err != nil {
				l.bad(attrRange(l.f, l.colTyp[c.ID], c.ID, "vars"), "Unreadable local file", err.Error())
				continue
			}
			l.sp.Columns[i].Vars[k] = f.URL()
			if !seen[f.Remote()] {
				seen[f.Remote()] = true
				l.sp.Uploads = append(l.sp.Uploads, f)
			}
		}
	}
}

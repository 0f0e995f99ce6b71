package result

// Set is what one measurement of a scenario kind holds: the field of its
// kind is set, the others are nil. It is the one union of the kinds'
// results; a record of results.jsonl, a load generator's job result and
// `wptest bench -o json` embed it (encoding/json inlines its fields, so
// each reads as "run", "crowd", "kit", ... beside the embedder's own).
type Set struct {
	Run    *Run    `json:"run,omitempty"`
	Crowd  *Crowd  `json:"crowd,omitempty"`
	Kit    *Kit    `json:"kit,omitempty"`
	Browse *Browse `json:"browse,omitempty"`
}

package benchgen

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A browse job crosses to a load generator as JSON, splits its visitors
// between load generators, and its shares join exactly: page views,
// outcomes, bytes and connections add, and the page-view times come from
// the merged histograms (their counts are the shares' together). Its
// window moves to another clock whole.
func TestBrowseJobSplitsAndJoins(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	s := startBrowseSite(t, wpLikePage, siteOpts{h2: true})
	base := Config{Name: "c=3", URL: s.URL + "/", Proto: "h2", Insecure: true, Timeout: 20 * time.Second}
	j, err := NewBrowseJob(BrowseConfig{Base: base, Visitors: 3, Duration: 300 * time.Millisecond, Warmup: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var back Job
	if err := json.Unmarshal(b, &back); err != nil || specOf[BrowseJob](back) == nil || specOf[BrowseJob](back).Visitors != 3 || specOf[BrowseJob](back).Warmup != 50*time.Millisecond {
		t.Fatalf("job back from JSON: %+v (%v)\n%s", back, err, b)
	}
	v, _, _, split := back.Load()
	if v != 3 || !split {
		t.Fatalf("load: %d visitors, split %v", v, split)
	}
	sh := []Share{{Visitors: 2}, {Visitors: 1}}
	parts := make([]JobResult, len(sh))
	for i := range sh {
		p := back.Share(i, len(sh), sh[i])
		p.Config.Raw = true
		if parts[i], err = p.Do(context.Background(), JobOptions{}); err != nil {
			t.Fatal(err)
		}
		if !p.Check(parts[i]) || parts[i].Browse.Visitors != sh[i].Visitors || parts[i].Browse.Raw == nil {
			t.Fatalf("share %d: %+v", i, parts[i])
		}
		checkBrowse(t, *parts[i].Browse)
	}
	if specOf[BrowseJob](back).Visitors != 3 {
		t.Fatal("a share changed the job it was cut from")
	}
	joined, err := back.Join(parts)
	if err != nil {
		t.Fatal(err)
	}
	jb, p0, p1 := joined.Browse, parts[0].Browse, parts[1].Browse
	checkBrowse(t, *jb)
	if jb.Raw != nil {
		t.Fatal("the joined result keeps histograms: they are stored in the shares")
	}
	if jb.Visitors != 3 || jb.PageViews != p0.PageViews+p1.PageViews || jb.PageViewsOK != p0.PageViewsOK+p1.PageViewsOK ||
		jb.Bytes.WireIn != p0.Bytes.WireIn+p1.Bytes.WireIn || jb.Connections != p0.Connections+p1.Connections ||
		jb.AssetOutcomes.Sum() != p0.AssetOutcomes.Sum()+p1.AssetOutcomes.Sum() || jb.Negotiated["h2"] != p0.Negotiated["h2"]+p1.Negotiated["h2"] {
		t.Fatalf("joined %+v\nof %+v\nand %+v", jb, p0, p1)
	}
	if jb.PageView.Count != p0.PageView.Count+p1.PageView.Count || jb.WireIn.Count != p0.WireIn.Count+p1.WireIn.Count {
		t.Fatalf("merged histograms: page view %d of %d + %d, wire in %d of %d + %d", jb.PageView.Count, p0.PageView.Count, p1.PageView.Count,
			jb.WireIn.Count, p0.WireIn.Count, p1.WireIn.Count)
	}
	lo, hi := min(p0.PageView.Min, p1.PageView.Min), max(p0.PageView.Max, p1.PageView.Max)
	if jb.PageView.P50 < lo || jb.PageView.P50 > hi || jb.PageView.Min != lo || jb.PageView.Max != hi {
		t.Fatalf("page view %+v outside the shares' %v..%v", jb.PageView, lo, hi)
	}

	w := back.Window(joined)
	if w.OK != jb.PageViewsOK || !w.To.After(w.From) || w.Warmup != 50*time.Millisecond {
		t.Fatalf("window %+v of %+v", w, jb)
	}
	later := func(t time.Time) time.Time { return t.Add(time.Hour) }
	back.OnClock(&joined, later)
	if w2 := back.Window(joined); !w2.From.Equal(w.From.Add(time.Hour)) || !w2.To.Equal(w.To.Add(time.Hour)) {
		t.Fatalf("window on the other clock %+v, was %+v", w2, w)
	}

	// A share without its histograms cannot be joined exactly: refused.
	parts[1].Browse.Raw = nil
	if _, err := back.Join(parts); err == nil || !strings.Contains(err.Error(), "share 2") {
		t.Fatalf("join without histograms: %v", err)
	}
	if (Job{Kind: JobBrowse}).Check(JobResult{Kind: JobBrowse}) {
		t.Fatal("a browse result without its browse run passed the check")
	}
}

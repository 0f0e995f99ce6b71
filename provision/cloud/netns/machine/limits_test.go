package machine

import (
	"slices"
	"strings"
	"testing"
)

// The default split of this host's CPUs: on 2 cores one each, on more
// the upper half (rounded down) for the server, the rest shared by the
// load generators; one core cannot be split.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		cpus         string
		server, load string
		shared       bool
	}{
		{"0", "0", "0", true},
		{"0-1", "1", "0", false},
		{"0-2", "2", "0-1", false},
		{"0-3", "2-3", "0-1", false},
		{"0-7", "4-7", "0-3", false},
		{"2,5,9-10", "9-10", "2,5", false}, // a host whose wptest may use some CPUs only
	} {
		cpus, err := ParseCPUs(c.cpus)
		if err != nil {
			t.Fatal(err)
		}
		srv, load, shared := Split(cpus)
		if FormatCPUs(srv) != c.server || FormatCPUs(load) != c.load || shared != c.shared {
			t.Errorf("Split(%s) = %s, %s, shared %v; want %s, %s, %v", c.cpus, FormatCPUs(srv), FormatCPUs(load), shared, c.server, c.load, c.shared)
		}
	}
}

func TestSplitMemory(t *testing.T) {
	for _, c := range []struct {
		server, load    []int
		loadgens        int
		wantSrv, wantLG int64
	}{
		{[]int{1}, []int{0}, 1, 8 << 30, 8 << 30},
		{[]int{2, 3}, []int{0, 1}, 2, 8 << 30, 4 << 30},
		{[]int{3}, []int{0, 1, 2}, 3, 4 << 30, 4 << 30},
		{[]int{0}, []int{0}, 1, 8 << 30, 8 << 30}, // one core, shared: half each
	} {
		srv, each := SplitMemory(16<<30, c.server, c.load, c.loadgens)
		if srv != c.wantSrv || each != c.wantLG {
			t.Errorf("SplitMemory(16G, %v, %v, %d) = %s, %s; want %s, %s", c.server, c.load, c.loadgens, FormatSize(srv), FormatSize(each), FormatSize(c.wantSrv), FormatSize(c.wantLG))
		}
	}
}

func TestParseCPUs(t *testing.T) {
	for in, want := range map[string][]int{"1": {1}, "0-3": {0, 1, 2, 3}, "4,0-1,1": {0, 1, 4}, " 2 ": {2}} {
		if got, err := ParseCPUs(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCPUs(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "1-", "3-1", "-1", "1,,2", "01", "1024", "0x1", "1;2", "1 2"} {
		if got, err := ParseCPUs(bad); err == nil || !strings.Contains(err.Error(), "want CPU numbers") {
			t.Errorf("ParseCPUs(%q) = %v, %v; want an error saying what it wants", bad, got, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512M": 512 << 20, "4G": 4 << 30, "4GiB": 4 << 30, "4gb": 4 << 30, "1T": 1 << 40, "67108864": 64 << 20, "65536K": 64 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for bad, msg := range map[string]string{"": "want a size", "4X": "want a size", "-1G": "want a size", "1.5G": "want a size", "iB": "want a size",
		"1M": "at least 64M", "99999999999T": "too large", "4G; rm": "want a size"} {
		if got, err := ParseSize(bad); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseSize(%q) = %d, %v; want an error saying %q", bad, got, err, msg)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{4 << 30: "4G", 1 << 40: "1T", 512 << 20: "512M", 12641 << 20: "12.3G", 64<<20 + 1<<10: "65537K"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

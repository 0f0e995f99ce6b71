package hetzner

import (
	"testing"

	"github.com/wptest/wptest/provision/cloud"
)

// A list price is a published one, with its source and date, or none:
// the driver says which type has none rather than guess a figure.
func TestListPrice(t *testing.T) {
	for st, p := range listPrices {
		if p.ServerType != st || p.HourlyGross == "" || p.Currency == "" || p.Source == "" || len(p.Date) != len("2026-12-07") {
			t.Errorf("list price of %s lacks its figure, currency, source or date: %+v", st, p)
		}
	}
	d, err := cloud.Lookup(Name)
	if err != nil || d.ListPrice == nil {
		t.Fatalf("the driver registers no list price: %v", err)
	}
	m := cloud.Machines{}.With("server_type", "ccx23")
	if _, ok := listPrices["ccx23"]; !ok {
		if _, err := d.ListPrice(m); err == nil || err.Error() != "no list price known for ccx23 without a token" {
			t.Errorf("ccx23 without a list price: %v", err)
		}
	}
	want := cloud.ListPrice{ServerType: "cx99", HourlyGross: "0.0100", Currency: "EUR", Source: "https://example.com/prices", Date: "2026-12-07"}
	listPrices["cx99"] = want
	defer delete(listPrices, "cx99")
	if got, err := d.ListPrice(m.With("server_type", "cx99")); err != nil || got != want {
		t.Errorf("cx99: %+v, %v; want %+v", got, err, want)
	}
}

package hetzner

import (
	"fmt"

	"github.com/wptest/wptest/provision/cloud"
)

// listPrices are Hetzner's published list prices by server type, the one
// place wptest keeps them: what an estimate made without a token (no API
// to ask) prices machines at, each with the page it was published on and
// the day it was read there. A type is here only with such a source.
//
// None is yet: a search of public pages and documentation (2026-12-07)
// found no page of Hetzner's own stating the price of ccx23, the post's
// type, or of another type an experiment here names; third-party pages
// quote older prices, and Hetzner changed its prices on 2026-04-01 and
// for new servers from 2026-06-15. So the estimate says the price is not
// known rather than guess one; with a token the API states the price.
var listPrices = map[string]cloud.ListPrice{}

// listPrice is the list price of a machine of m (its server_type), or why
// there is none.
func listPrice(m cloud.Machines) (cloud.ListPrice, error) {
	st := m.Attr("server_type")
	if st == "" {
		st = DefaultServerType
	}
	if p, ok := listPrices[st]; ok {
		return p, nil
	}
	return cloud.ListPrice{}, fmt.Errorf("no list price known for %s without a token", st)
}

// Package hcloudfake is a stateful fake of the part of the Hetzner Cloud API
// wptest uses, for tests. hcloud-go's exp/mockutil answers a fixed script of
// requests; this fake keeps the project's resources (SSH keys, placement
// groups, firewalls, servers, actions) so a test can stop a client at any
// request, lose an answer, and then ask what is left.
//
// Faults are injected per request by Hook: Drop performs the request and
// then closes the connection without an answer (the server exists, the
// client never learns its ID), Fail answers an API error and changes
// nothing. A firewall or placement group still used by a server answers
// resource_in_use, as the real API does.
package hcloudfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// Call is one request as the hook sees it.
type Call struct {
	Method string
	Path   string // without the query: "/servers", "/firewalls/3"
	Query  url.Values
	Body   []byte
	// N counts calls of this Method and Path pattern (IDs replaced by
	// "{id}"), from 1: the second server create is POST /servers N=2.
	N int
}

// Pattern is Method and Path with IDs as {id}: "DELETE /servers/{id}".
func (c Call) Pattern() string { return c.Method + " " + idRe.ReplaceAllString(c.Path, "/{id}") }

var idRe = regexp.MustCompile(`/[0-9]+`)

// Fault is what the fake does with a call instead of a plain answer.
type Fault struct {
	// Drop: perform the call, then close the connection unanswered.
	Drop bool
	// Fail: answer this status and error code, and change nothing.
	Status int
	Code   string
}

// Fake is the API. Create it with New.
type Fake struct {
	URL string
	// Hook, if set, is called for every request before it is handled
	// (outside the fake's lock: it may signal a process). Its Fault, if not
	// zero, replaces the plain answer.
	Hook func(Call) Fault
	// ServerIP gives a new server its public IPv4 (default 203.0.113.<id>).
	ServerIP func(id int64, name string) string
	// Currency is what /pricing states (default EUR).
	Currency string
	// ActionsDone answers every action as finished already, so the client
	// never polls (and never waits its backoff); otherwise an action is
	// "running" in the answer and finished at the first poll.
	ActionsDone bool

	mu        sync.Mutex
	nextID    int64
	counts    map[string]int
	calls     []string
	keys      map[int64]*schema.SSHKey
	pgs       map[int64]*schema.PlacementGroup
	firewalls map[int64]*schema.Firewall
	servers   map[int64]*server
	actions   map[int64]*schema.Action
	ruleSets  map[string][][]schema.FirewallRule // by firewall name: every rule set it had, in order
	creates   []schema.ServerCreateRequest
}

type server struct {
	s         schema.Server
	firewalls []int64
}

// New starts a fake that closes with the test.
func New(t testing.TB) *Fake {
	f := &Fake{nextID: 1, counts: map[string]int{}, keys: map[int64]*schema.SSHKey{}, pgs: map[int64]*schema.PlacementGroup{},
		firewalls: map[int64]*schema.Firewall{}, servers: map[int64]*server{}, actions: map[int64]*schema.Action{},
		ruleSets: map[string][][]schema.FirewallRule{}, Currency: "EUR"}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Left names every resource that exists ("server wptest-t1-server #4"),
// sorted: what a test wants to be empty after a cleanup.
func (f *Fake) Left() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for id, k := range f.keys {
		out = append(out, fmt.Sprintf("ssh_key %s #%d", k.Name, id))
	}
	for id, p := range f.pgs {
		out = append(out, fmt.Sprintf("placement_group %s #%d", p.Name, id))
	}
	for id, fw := range f.firewalls {
		out = append(out, fmt.Sprintf("firewall %s #%d", fw.Name, id))
	}
	for id, s := range f.servers {
		out = append(out, fmt.Sprintf("server %s #%d", s.s.Name, id))
	}
	sort.Strings(out)
	return out
}

// Calls is every request so far as its pattern ("POST /servers").
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Count is how many requests matched pattern ("DELETE /firewalls/{id}").
func (f *Fake) Count(pattern string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[pattern]
}

// RuleSets returns every rule set the firewall named name had, in order
// (also after it was deleted): the one it was created with, then each
// set_rules.
func (f *Fake) RuleSets(name string) [][]schema.FirewallRule {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]schema.FirewallRule(nil), f.ruleSets[name]...)
}

// ServerCreates returns every server create request received.
func (f *Fake) ServerCreates() []schema.ServerCreateRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]schema.ServerCreateRequest(nil), f.creates...)
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: body}
	f.mu.Lock()
	f.counts[c.Pattern()]++
	c.N = f.counts[c.Pattern()]
	f.calls = append(f.calls, c.Pattern())
	f.mu.Unlock()
	var fault Fault
	if f.Hook != nil {
		fault = f.Hook(c)
	}
	if fault.Status != 0 {
		writeErr(w, fault.Status, fault.Code)
		return
	}
	f.mu.Lock()
	status, resp := f.handle(c)
	f.mu.Unlock()
	if fault.Drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic("hcloudfake: cannot drop the connection")
	}
	if resp == nil {
		w.WriteHeader(status)
		return
	}
	if e, ok := resp.(apiErr); ok {
		writeErr(w, status, e.code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}

type apiErr struct{ code string }

func writeErr(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(schema.ErrorResponse{Error: schema.Error{Code: code, Message: "hcloudfake: " + code}})
}

var epoch = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func (f *Fake) id() int64 { f.nextID++; return f.nextID - 1 }

func (f *Fake) action(command string) schema.Action {
	a := schema.Action{ID: f.id(), Status: "running", Command: command, Started: epoch}
	done := a
	done.Status, done.Progress = "success", 100
	f.actions[a.ID] = &done // the first poll finds it finished
	if f.ActionsDone {
		return done
	}
	return a
}

// handle performs c on the state (the lock is held): the route's resource,
// its first path segment, picks the handler.
func (f *Fake) handle(c Call) (int, any) {
	seg := strings.Split(strings.Trim(c.Path, "/"), "/")
	var rid int64
	if len(seg) > 1 {
		rid, _ = strconv.ParseInt(seg[1], 10, 64)
	}
	route := strings.Replace(c.Pattern(), " /", " ", 1)
	switch seg[0] {
	case "ssh_keys":
		return f.handleSSHKeys(route, c, rid)
	case "placement_groups":
		return f.handlePlacementGroups(route, c, rid)
	case "firewalls":
		return f.handleFirewalls(route, c, rid)
	case "servers":
		return f.handleServers(route, c, rid)
	}
	return f.handleCatalog(route, c)
}

func notImplemented(c Call) (int, any) {
	return 400, apiErr{"hcloudfake: not implemented: " + c.Pattern()}
}

// handleCatalog answers what the fake offers (locations, server types,
// images, prices) and the actions' progress.
func (f *Fake) handleCatalog(route string, c Call) (int, any) {
	switch route {
	case "GET locations":
		return 200, schema.LocationListResponse{Locations: filterName(c, []schema.Location{{ID: 1, Name: "fsn1", NetworkZone: "eu-central"}, {ID: 2, Name: "nbg1", NetworkZone: "eu-central"}}, func(l schema.Location) string { return l.Name })}
	case "GET server_types":
		price := schema.PricingServerTypePrice{Location: "fsn1", PriceHourly: schema.Price{Net: "0.0400", Gross: "0.0476"}, PriceMonthly: schema.Price{Net: "24.49", Gross: "29.14"}}
		st := schema.ServerType{ID: 98, Name: "ccx23", Cores: 4, Memory: 16, Disk: 160, CPUType: "dedicated", Architecture: "x86",
			Prices:    []schema.PricingServerTypePrice{price},
			Locations: []schema.ServerTypeLocation{{ID: 1, Name: "fsn1", Available: true}}}
		return 200, schema.ServerTypeListResponse{ServerTypes: filterName(c, []schema.ServerType{st}, func(s schema.ServerType) string { return s.Name })}
	case "GET images":
		return 200, schema.ImageListResponse{Images: filterName(c, []schema.Image{
			{ID: 114690387, Name: ptr("alma-9"), Type: "system", Architecture: "x86", OSFlavor: "alma", OSVersion: ptr("9")},
			{ID: 310557660, Name: ptr("debian-13"), Type: "system", Architecture: "x86", OSFlavor: "debian", OSVersion: ptr("13")},
		}, func(i schema.Image) string { return *i.Name })}
	case "GET pricing":
		return 200, schema.PricingGetResponse{Pricing: schema.Pricing{Currency: f.Currency, VATRate: "19.00"}}
	case "GET actions":
		var out []schema.Action
		for _, v := range c.Query["id"] {
			n, _ := strconv.ParseInt(v, 10, 64)
			if a, ok := f.actions[n]; ok {
				out = append(out, *a)
			}
		}
		return 200, schema.ActionListResponse{Actions: orEmpty(out)}
	}
	return notImplemented(c)
}

func (f *Fake) handleSSHKeys(route string, c Call, rid int64) (int, any) {
	switch route {
	case "POST ssh_keys":
		req := decode[schema.SSHKeyCreateRequest](c)
		for _, k := range f.keys {
			if k.Name == req.Name {
				return 409, apiErr{"uniqueness_error"}
			}
		}
		k := &schema.SSHKey{ID: f.id(), Name: req.Name, Fingerprint: "fa:ke", PublicKey: req.PublicKey, Labels: deref(req.Labels), Created: epoch}
		f.keys[k.ID] = k
		return 201, schema.SSHKeyCreateResponse{SSHKey: *k}
	case "GET ssh_keys":
		return 200, schema.SSHKeyListResponse{SSHKeys: vals(selectLabels(c, f.keys, func(k *schema.SSHKey) map[string]string { return k.Labels }))}
	case "DELETE ssh_keys/{id}":
		return remove(f.keys, rid, nil, nil)
	}
	return notImplemented(c)
}

func (f *Fake) handlePlacementGroups(route string, c Call, rid int64) (int, any) {
	switch route {
	case "POST placement_groups":
		req := decode[schema.PlacementGroupCreateRequest](c)
		p := &schema.PlacementGroup{ID: f.id(), Name: req.Name, Type: req.Type, Labels: deref(req.Labels), Servers: []int64{}, Created: epoch}
		f.pgs[p.ID] = p
		return 201, schema.PlacementGroupCreateResponse{PlacementGroup: *p}
	case "GET placement_groups":
		return 200, schema.PlacementGroupListResponse{PlacementGroups: vals(selectLabels(c, f.pgs, func(p *schema.PlacementGroup) map[string]string { return p.Labels }))}
	case "DELETE placement_groups/{id}":
		return remove(f.pgs, rid, f.servers, func(s *server) bool { return s.s.PlacementGroup != nil && s.s.PlacementGroup.ID == rid })
	}
	return notImplemented(c)
}

// handleFirewalls keeps every rule set a firewall was given, in f.ruleSets.
func (f *Fake) handleFirewalls(route string, c Call, rid int64) (int, any) {
	switch route {
	case "POST firewalls":
		req := decode[schema.FirewallCreateRequest](c)
		fw := &schema.Firewall{ID: f.id(), Name: req.Name, Labels: deref(req.Labels), Created: epoch, Rules: rules(req.Rules), AppliedTo: []schema.FirewallResource{}}
		f.firewalls[fw.ID] = fw
		f.ruleSets[fw.Name] = append(f.ruleSets[fw.Name], fw.Rules)
		return 201, schema.FirewallCreateResponse{Firewall: *fw, Actions: []schema.Action{}}
	case "GET firewalls":
		return 200, schema.FirewallListResponse{Firewalls: vals(selectLabels(c, f.firewalls, func(fw *schema.Firewall) map[string]string { return fw.Labels }))}
	case "POST firewalls/{id}/actions/set_rules":
		fw, ok := f.firewalls[rid]
		if !ok {
			return 404, apiErr{"not_found"}
		}
		fw.Rules = rules(decode[schema.FirewallActionSetRulesRequest](c).Rules)
		f.ruleSets[fw.Name] = append(f.ruleSets[fw.Name], fw.Rules)
		return 201, schema.FirewallActionSetRulesResponse{Actions: []schema.Action{f.action("set_firewall_rules")}}
	case "DELETE firewalls/{id}":
		return remove(f.firewalls, rid, f.servers, func(s *server) bool { return slices.Contains(s.firewalls, rid) })
	}
	return notImplemented(c)
}

func (f *Fake) handleServers(route string, c Call, rid int64) (int, any) {
	switch route {
	case "POST servers":
		return f.createServer(c)
	case "GET servers":
		var all []schema.Server
		for _, s := range selectLabels(c, f.servers, func(s *server) map[string]string { return s.s.Labels }) {
			all = append(all, s.s)
		}
		return 200, schema.ServerListResponse{Servers: orEmpty(all)}
	case "GET servers/{id}":
		s, ok := f.servers[rid]
		if !ok {
			return 404, apiErr{"not_found"}
		}
		return 200, schema.ServerGetResponse{Server: s.s}
	case "DELETE servers/{id}":
		if _, ok := f.servers[rid]; !ok {
			return 404, apiErr{"not_found"}
		}
		// Gone as soon as the delete is accepted; its action is then done.
		delete(f.servers, rid)
		return 200, schema.ServerDeleteResponse{Action: f.action("delete_server")}
	}
	return notImplemented(c)
}

// createServer records every create request (f.creates), even refused ones.
func (f *Fake) createServer(c Call) (int, any) {
	req := decode[schema.ServerCreateRequest](c)
	f.creates = append(f.creates, req)
	for _, s := range f.servers {
		if s.s.Name == req.Name {
			return 409, apiErr{"uniqueness_error"}
		}
	}
	id := f.id()
	ip := fmt.Sprintf("203.0.113.%d", id)
	if f.ServerIP != nil {
		ip = f.ServerIP(id, req.Name)
	}
	s := &server{s: schema.Server{ID: id, Name: req.Name, Status: "initializing", Created: epoch, Labels: deref(req.Labels),
		PublicNet:  schema.ServerPublicNet{IPv4: schema.ServerPublicNetIPv4{IP: ip}, IPv6: schema.ServerPublicNetIPv6{IP: fmt.Sprintf("2001:db8:0:%x::/64", id)}},
		ServerType: schema.ServerType{ID: 98, Name: "ccx23"}, Location: schema.Location{ID: 1, Name: "fsn1"}}}
	if req.PlacementGroup != 0 {
		if p, ok := f.pgs[req.PlacementGroup]; ok {
			s.s.PlacementGroup = p
		}
	}
	for _, fc := range req.Firewalls {
		if _, ok := f.firewalls[fc.Firewall]; !ok {
			return 404, apiErr{"not_found"}
		}
		s.firewalls = append(s.firewalls, fc.Firewall)
		s.s.PublicNet.Firewalls = append(s.s.PublicNet.Firewalls, schema.ServerFirewall{ID: fc.Firewall, Status: "applied"})
	}
	f.servers[id] = s
	return 201, schema.ServerCreateResponse{Server: s.s, Action: f.action("create_server"), NextActions: []schema.Action{f.action("start_server")}}
}

// decode is the call's JSON body; a body that is not JSON leaves it zero
// (the fake checks no request's shape).
func decode[T any](c Call) T {
	var req T
	json.Unmarshal(c.Body, &req)
	return req
}

// remove deletes m[id]: not_found if there is none, resource_in_use while
// one of servers uses it.
func remove[T any](m map[int64]T, id int64, servers map[int64]*server, uses func(*server) bool) (int, any) {
	if _, ok := m[id]; !ok {
		return 404, apiErr{"not_found"}
	}
	for _, s := range servers {
		if uses(s) {
			return 422, apiErr{"resource_in_use"}
		}
	}
	delete(m, id)
	return 204, nil
}

func rules(in []schema.FirewallRuleRequest) []schema.FirewallRule {
	out := []schema.FirewallRule{}
	for _, r := range in {
		out = append(out, schema.FirewallRule{Direction: r.Direction, SourceIPs: orEmpty(r.SourceIPs), DestinationIPs: orEmpty(r.DestinationIPs),
			Protocol: r.Protocol, Port: r.Port, Description: r.Description})
	}
	return out
}

func filterName[T any](c Call, xs []T, name func(T) string) []T {
	want := c.Query.Get("name")
	out := []T{}
	for _, x := range xs {
		if want == "" || name(x) == want {
			out = append(out, x)
		}
	}
	return out
}

// selectLabels applies a label selector of "k=v" and "k" (exists) terms,
// in ID order.
func selectLabels[T any](c Call, m map[int64]T, labels func(T) map[string]string) []T {
	var ids []int64
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	terms := strings.Split(c.Query.Get("label_selector"), ",")
	var out []T
	for _, id := range ids {
		l := labels(m[id])
		ok := true
		for _, t := range terms {
			if t == "" {
				continue
			}
			k, v, eq := strings.Cut(t, "=")
			got, has := l[k]
			if !has || (eq && got != v) {
				ok = false
			}
		}
		if ok {
			out = append(out, m[id])
		}
	}
	return out
}

func vals[T any](xs []*T) []T {
	out := []T{}
	for _, x := range xs {
		out = append(out, *x)
	}
	return out
}

func deref(m *map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return *m
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

func ptr[T any](v T) *T { return &v }

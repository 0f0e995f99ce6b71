package hetzner

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/wptest/wptest/provision/cloud"
)

// Name is the driver's name: the label of machines "hetzner" {}.
const Name = "hetzner"

// Defaults, from the cPanel vs corehttpd post: two identical CCX23 in one location.
const (
	DefaultServerType = "ccx23"
	DefaultImage      = "alma-9"
	DefaultLocation   = "fsn1"
)

func init() {
	cloud.Register(cloud.Driver{
		Name:    Name,
		Summary: "Hetzner Cloud: creates one server and the load generators, with a per-run key, spread placement group and firewall",
		Attributes: []cloud.Attribute{
			{Name: "server_type", Default: DefaultServerType, Doc: "server type, checked available in the location at plan time"},
			{Name: "image", Default: DefaultImage, Doc: "image name; its ID is resolved and recorded"},
			{Name: "location", Default: DefaultLocation, Doc: "location; never silently changed"},
		},
		Credentials: []cloud.Credential{
			{Env: "HCLOUD_TOKEN", Secret: true, Doc: "API token (read & write); else the active context of the hcloud CLI config"},
			{Env: "HCLOUD_ENDPOINT", Doc: "API endpoint (default: the public API)"},
			{Env: "HCLOUD_CONTEXT", Doc: "hcloud CLI context to use instead of the active one"},
			{Env: "HCLOUD_CONFIG", Doc: "hcloud CLI config file (default ~/.config/hcloud/cli.toml)"},
		},
		Capabilities: cloud.Capabilities{Creates: true, Labels: true, Prices: true},
		DefaultCloud: true,
		Open:         open,
		ListPrice:    listPrice,
	})
}

// open reads the credentials as the hcloud CLI does and opens the driver.
func open(o cloud.OpenOptions) (cloud.Cloud, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	creds, err := ResolveCredentials(getenv, ConfigPath(getenv))
	if err != nil {
		return nil, err
	}
	if o.Redactor != nil {
		o.Redactor.Add(creds.Token)
	}
	opt := Options{Credentials: creds, Redactor: o.Redactor, Log: o.Log, Debug: o.Debug, Version: o.Version}
	if o.Backoff != nil {
		opt.Backoff = hcloud.BackoffFunc(o.Backoff)
	}
	return New(opt)
}

package hetzner

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wptest/wptest/provision/cloud"
)

// Credentials are what the driver needs to talk to the API. Token
// is a secret: it comes from HCLOUD_TOKEN or the hcloud CLI config file,
// never from a flag (it would show in ps and shell history).
type Credentials struct {
	Token    string
	Endpoint string // "" = the public API
	Source   string // where the token came from, for messages ("HCLOUD_TOKEN", "<file> context <name>")
}

// ResolveCredentials picks the token as the hcloud CLI does: HCLOUD_TOKEN
// (with HCLOUD_ENDPOINT) from getenv first, else the active context of the
// hcloud CLI config file at configPath (~/.config/hcloud/cli.toml, or
// HCLOUD_CONFIG), whose context may be overridden by HCLOUD_CONTEXT. The
// caller (the CLI, through cloud.OpenOptions) supplies getenv; nothing here
// reads the environment.
func ResolveCredentials(getenv func(string) string, configPath string) (Credentials, error) {
	c := Credentials{Endpoint: getenv("HCLOUD_ENDPOINT")}
	if t := getenv("HCLOUD_TOKEN"); t != "" {
		c.Token, c.Source = t, "HCLOUD_TOKEN"
		return c, nil
	}
	if configPath == "" {
		return c, noToken("")
	}
	f, err := os.Open(configPath)
	if os.IsNotExist(err) {
		return c, noToken(configPath)
	}
	if err != nil {
		return c, cloud.ConfigErr(fmt.Errorf("hcloud config: %w", err))
	}
	defer f.Close()
	cfg, err := parseHcloudConfig(bufio.NewScanner(f))
	if err != nil {
		return c, cloud.ConfigErr(fmt.Errorf("hcloud config %s: %w", configPath, err))
	}
	name := getenv("HCLOUD_CONTEXT")
	if name == "" {
		name = cfg.active
	}
	if name == "" {
		return c, noToken(configPath)
	}
	for _, ctx := range cfg.contexts {
		if ctx["name"] == name {
			if ctx["token"] == "" {
				return c, cloud.ConfigErr(fmt.Errorf("hcloud config %s: context %q has no token", configPath, name))
			}
			c.Token, c.Source = ctx["token"], fmt.Sprintf("%s context %s", configPath, name)
			if c.Endpoint == "" {
				c.Endpoint = ctx["endpoint"]
			}
			return c, nil
		}
	}
	return c, cloud.ConfigErr(fmt.Errorf("hcloud config %s: no context named %q", configPath, name))
}

func noToken(path string) error {
	where := "HCLOUD_TOKEN is not set"
	if path != "" {
		where += " and " + path + " has no active context"
	}
	return cloud.ConfigErr(fmt.Errorf("no Hetzner API token: %s; export HCLOUD_TOKEN (Cloud Console > project > Security > API tokens, read & write) or run `hcloud context create NAME`", where))
}

type hcloudConfig struct {
	active   string
	contexts []map[string]string
}

// parseHcloudConfig reads the subset of TOML the hcloud CLI writes:
// top-level active_context, [[contexts]] tables with name/token/endpoint.
// Other tables ([contexts.preferences], [preferences]) are skipped.
func parseHcloudConfig(sc *bufio.Scanner) (hcloudConfig, error) {
	var cfg hcloudConfig
	section := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[] ")
			if line == "[[contexts]]" {
				cfg.contexts = append(cfg.contexts, map[string]string{})
			}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return cfg, fmt.Errorf("line %d: want key = value", n)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		switch {
		case section == "" && k == "active_context":
			cfg.active = v
		case section == "contexts" && len(cfg.contexts) > 0:
			cfg.contexts[len(cfg.contexts)-1][k] = v
		}
	}
	return cfg, sc.Err()
}

// ConfigPath is where the hcloud CLI keeps its contexts: HCLOUD_CONFIG,
// else ~/.config/hcloud/cli.toml.
func ConfigPath(getenv func(string) string) string {
	if p := getenv("HCLOUD_CONFIG"); p != "" {
		return p
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "hcloud", "cli.toml")
	}
	return ""
}

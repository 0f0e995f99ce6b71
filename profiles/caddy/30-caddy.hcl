# 30-caddy.hcl: the server itself, then the checks that prove it is what the
# profile's name says.

# The caddy user reads the FPM socket and the TLS key through the web
# servers' group (the package creates the user; this adds the group).
user "caddy" {
  name   = "caddy"
  system = true
  home   = "/var/lib/caddy"
  shell  = "/usr/sbin/nologin"
  groups = [platform.values.web_group]
}

# Ports below 1024 without root: systemd grants the capability (the unit's
# AmbientCapabilities); without systemd the binary carries it.
command "caddy_bind_capability" {
  when   = var.http_port < 1024 || var.https_port < 1024
  unless = "getcap $(readlink -f ${platform.paths.caddy_bin}) | grep -q cap_net_bind_service"
  run    = "setcap cap_net_bind_service=+ep $(readlink -f ${platform.paths.caddy_bin})"
}

directory "caddy_conf_dir" {
  path = "/etc/caddy"
  mode = "0755"
}

directory "caddy_log_dir" {
  path  = "/var/log/caddy"
  mode  = "0755"
  owner = "caddy"
  group = "caddy"
}

file "caddyfile" {
  path     = "/etc/caddy/Caddyfile"
  template = "templates/Caddyfile"
}

# One process serves everything; PHP runs in the fpm part's pool.
process_group "web" {
  exe = ["caddy"]
}

# What wptest needs to know of the server (host manifest): another
# profile's apply stops service.caddy; no status page with worker counts.
server {
  services  = ["caddy"]
  protocols = ["h1", "h2", "h2c", "h3"]
  ports     = { http = var.http_port, https = var.https_port }
  shows     = ["caddy_version", "php_fpm_version"]
}

service "caddy" {
  name       = platform.services.caddy
  state      = "running"
  enabled    = true
  on_notify  = "restart"
  restart_on = ["file.caddyfile", "package.server", "user.caddy", "command.caddy_bind_capability"]
  start      = "${local.svc} ${platform.services.caddy} start"
  stop       = "${local.svc} ${platform.services.caddy} stop"
  restart    = "${local.svc} ${platform.services.caddy} restart"
  reload     = "${local.svc} ${platform.services.caddy} restart"
  status     = "${local.svc} ${platform.services.caddy} status"
  ready      = "curl -fsS -o /dev/null http://127.0.0.1:${var.http_port}/wptest-probe.css"
}

# ---- checks: the profile is what its name says ----

check "server_header" {
  http {
    url           = "http://127.0.0.1:${var.http_port}/wptest-probe.css"
    expect_header = { "Server" = "^Caddy$" }
  }
}

check "h2_alpn" {
  http {
    url               = "https://127.0.0.1:${var.https_port}/wptest-info.php"
    protocol          = "h2"
    insecure          = true
    server_name       = "localhost"
    expect_protocol   = "HTTP/2.0"
    expect_body_regex = "\"protocol\":\"HTTP/2.0\",\"https\":true"
  }
}

check "h2c" {
  http {
    url             = "http://127.0.0.1:${var.http_port}/wptest-probe.css"
    protocol        = "h2c"
    expect_protocol = "HTTP/2.0"
  }
}

# HTTP/3 needs UDP, which the SSH connection does not carry: the request is
# made on the host by wptest's own quic-go client, trusting only the host's
# certificate. It is the wptest binary `wptest up` installs there, never a
# variable's: what a check runs as root is the profile's choice alone.
check "h3" {
  timeout = "20s"
  command {
    run          = "${local.lib_dir}/wptest h3probe --server-name localhost --ca-file ${local.tls_cert} --body --expect-body '\"protocol\":\"HTTP/3.0\"' https://127.0.0.1:${var.https_port}/wptest-info.php"
    expect_regex = "^HTTP/3.0 200"
  }
}

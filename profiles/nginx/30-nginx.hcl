# 30-nginx.hcl: the server itself, then the checks that prove it is what the
# profile's name says.

# On almalinux-9 the FPM socket and the TLS key belong to the web group
# ("apache", made by the fpm part's packages); nginx's workers run as the
# package's own user.
user "nginx" {
  when   = platform.package_manager == "dnf"
  name   = "nginx"
  system = true
  home   = "/var/lib/nginx"
  shell  = "/sbin/nologin"
  groups = [platform.values.web_group]
}

# The whole nginx.conf: no distribution default site, no optional modules
# (gzip_static and http_v2 are built in).
file "nginx_conf" {
  path     = platform.paths.nginx_conf
  template = "templates/nginx.conf"
}

# The master (root) and its workers; PHP runs in the fpm part's pool.
process_group "web" {
  exe = ["nginx"]
}

# The distribution's own service: systemctl under systemd, else Debian's
# init script (`service nginx ...`, whose stop waits until nginx is gone).
service "nginx" {
  name       = platform.services.nginx
  state      = "running"
  enabled    = true
  on_notify  = "restart"
  restart_on = ["file.nginx_conf", "package.server", "user.nginx"]
  ready      = "curl -fsS -o /dev/null http://127.0.0.1:${var.http_port}/wptest-probe.css"
}

# What wptest needs to know of the server (host manifest): another
# profile's apply stops service.nginx; no status page with worker counts
# (stub_status counts connections, not workers).
server {
  services  = ["nginx"]
  protocols = ["h1", "h2"]
  ports     = { http = var.http_port, https = var.https_port }
  shows     = ["nginx_version", "php_fpm_version"]
}

fact "nginx_version" {
  run = "if command -v nginx >/dev/null; then nginx -v 2>&1; else echo not installed; fi"
}

# ---- checks: the profile is what its name says ----

check "server_header" {
  http {
    url           = "http://127.0.0.1:${var.http_port}/wptest-probe.css"
    expect_header = { "Server" = "^nginx$" }
  }
}

# Without gzip in Accept-Encoding: the file itself, uncompressed.
check "css_identity" {
  http {
    url              = "http://127.0.0.1:${var.http_port}/wptest-probe.css"
    expect_no_header = ["Content-Encoding"]
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

check "tls_http11" {
  http {
    url               = "https://127.0.0.1:${var.https_port}/wptest-info.php"
    insecure          = true
    server_name       = "localhost"
    expect_protocol   = "HTTP/1.1"
    expect_body_regex = "\"protocol\":\"HTTP/1.1\",\"https\":true"
  }
}

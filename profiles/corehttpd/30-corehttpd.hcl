# 30-corehttpd.hcl: the server itself, then the checks that prove it is what
# the profile's name says.

# corehttpd's configuration format is not public. This file states the
# settings the cPanel vs corehttpd post names (ports, docroot, certificate, the shared
# PHP-FPM socket, precompressed static files, h1/h2/h3) in
# templates/corehttpd.conf; check it against the package's documentation.
directory "corehttpd_conf_dir" {
  path = "/etc/corehttpd"
  mode = "0755"
}

file "corehttpd_conf" {
  path     = "/etc/corehttpd/wptest.conf"
  template = "templates/corehttpd.conf"
}

# The web server's processes; PHP runs in the fpm part's pool.
process_group "web" {
  exe = ["corehttpd"]
}

# What wptest needs to know of the server (host manifest): another
# profile's apply stops service.corehttpd.
server {
  services  = ["corehttpd"]
  protocols = ["h1", "h2", "h3"]
  ports     = { http = var.http_port, https = var.https_port }
  shows     = ["corehttpd_version", "php_fpm_version"]
}

service "corehttpd" {
  name       = platform.services.corehttpd
  state      = "running"
  enabled    = true
  on_notify  = "restart"
  restart_on = ["file.corehttpd_conf", "command.install_corehttpd"]
  start      = "${local.svc} ${platform.services.corehttpd} start"
  stop       = "${local.svc} ${platform.services.corehttpd} stop"
  restart    = "${local.svc} ${platform.services.corehttpd} restart"
  reload     = "${local.svc} ${platform.services.corehttpd} restart"
  status     = "${local.svc} ${platform.services.corehttpd} status"
  ready      = "curl -fsS -o /dev/null http://127.0.0.1:${var.http_port}/wptest-probe.css"
}

fact "corehttpd_version" {
  run = "${platform.values.pkg_query} 2>/dev/null || echo not installed"
}

# ---- checks: the profile is what its name says ----

check "h2_alpn" {
  http {
    url             = "https://127.0.0.1:${var.https_port}/wptest-info.php"
    protocol        = "h2"
    insecure        = true
    server_name     = "localhost"
    expect_protocol = "HTTP/2.0"
  }
}

# HTTP/3: the wptest binary `wptest up` installs on the host, never a
# variable's: what a check runs as root is the profile's choice alone.
check "h3" {
  timeout = "20s"
  command {
    run          = "${local.lib_dir}/wptest h3probe --server-name localhost --ca-file ${local.tls_cert} --body --expect-body '\"protocol\":\"HTTP/3.0\"' https://127.0.0.1:${var.https_port}/wptest-info.php"
    expect_regex = "^HTTP/3.0 200"
  }
}

# 30-tuned-apache.hcl: the server itself, then the checks that prove it is
# what the profile's name says.

file "httpd_conf" {
  path     = platform.paths.apache_conf
  template = "templates/httpd.conf"
}

# The web server's processes; PHP runs in the fpm part's pool.
process_group "web" {
  exe = [platform.services.apache]
}

# What wptest needs to know of the server (host manifest): mod_status at
# cPanel's path (check.server_status) and MaxRequestWorkers for the kit's
# worker usage; another profile's apply stops service.apache.
server {
  services     = ["apache"]
  worker_limit = var.max_request_workers
  protocols    = ["h1", "h2", "h2c"]
  ports        = { http = var.http_port, https = var.https_port }
  shows        = ["apache_mpm", "apache_version", "php_fpm_version"]
  status {
    url    = "http://127.0.0.1:${var.http_port}/whm-server-status?auto"
    format = "apache"
  }
}

service "apache" {
  name       = platform.services.apache
  state      = "running"
  enabled    = true
  on_notify  = "restart"
  restart_on = ["file.httpd_conf"]
  start      = "${local.svc} ${platform.services.apache} start"
  stop       = "${local.svc} ${platform.services.apache} stop"
  restart    = "${local.svc} ${platform.services.apache} restart"
  reload     = "${local.svc} ${platform.services.apache} reload"
  status     = "${local.svc} ${platform.services.apache} status"
  ready      = "curl -fsS -o /dev/null http://127.0.0.1:${var.http_port}/wptest-probe.css"
}

fact "apache_mpm" {
  run = "${platform.values.apachectl} -V 2>/dev/null | sed -n 's/^Server MPM: *//p'"
}

fact "apache_modules" {
  run = "${platform.values.apachectl} -M 2>/dev/null | sed -n 's/^ *\\([a-z0-9_]*\\) (.*/\\1/p' | sort | tr '\\n' ' '"
}

# ---- checks: the profile is what its name says ----

check "server_header" {
  http {
    url           = "http://127.0.0.1:${var.http_port}/wptest-probe.css"
    expect_header = { "Server" = "^Apache$" }
  }
}

check "mpm_event" {
  command {
    run          = "${platform.values.apachectl} -V"
    expect_regex = "Server MPM:\\s+event"
  }
}

check "css_gzip" {
  http {
    url           = "http://127.0.0.1:${var.http_port}/wptest-probe.css"
    headers       = { "Accept-Encoding" = "gzip" }
    expect_header = { "Content-Encoding" = "^gzip$" }
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
    url               = "http://127.0.0.1:${var.http_port}/wptest-info.php"
    protocol          = "h2c"
    expect_protocol   = "HTTP/2.0"
    expect_body_regex = "\"protocol\":\"HTTP/2.0\""
  }
}

# mod_status answers loopback at cPanel's path with the worker counts wptest
# samples (not WordPress's index.php: see templates/httpd.conf).
check "server_status" {
  http {
    url               = "http://127.0.0.1:${var.http_port}/whm-server-status?auto"
    expect_body_regex = "(?m)^BusyWorkers: [0-9]+$(?s:.*)^IdleWorkers: [0-9]+$(?s:.*)^Scoreboard: [_SRWKDCLGI.]+$"
  }
}

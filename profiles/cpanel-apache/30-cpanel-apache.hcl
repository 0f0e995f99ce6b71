# 30-cpanel-apache.hcl: the server itself, then the checks that prove it is
# what the profile's name says.

# mod_ruid2 0.9.8, built with apxs as cPanel's ea-apache24-mod_ruid2 is
# (apxs -l cap -c mod_ruid2.c), from the file named by variables, checked
# against its SHA-256 before anything is compiled. Rebuilt when the checksum
# or Apache's own version changes. Part of a machine image of the profile
# (bake): a machine made from one finds it built.
command "build_ruid2" {
  bake    = true
  unless  = "test \"$(cat ${platform.paths.module_dir}/mod_ruid2.so.built 2>/dev/null)\" = \"${var.ruid2_source_sha256} $(${platform.values.apachectl} -v | head -n1)\" && test -f ${platform.paths.module_dir}/mod_ruid2.so"
  timeout = "10m"
  run     = <<-EOT
    set -eu
    url=${shellquote(var.ruid2_source_url)}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # A URL may hold a user and password (before its host): it reaches
    # curl in a config on stdin, never in an argv (ps shows those to every
    # user), and messages name it without its user part.
    shown=$(printf '%s\n' "$url" | sed 's,^\([a-z]*://\)[^/]*@,\1,')
    printf 'url = "%s"\n' "$(printf '%s' "$url" | sed 's/[\\"]/\\&/g')" | curl -fsSL --retry 3 -K - -o "$tmp/mod_ruid2.c"
    got=$(sha256sum "$tmp/mod_ruid2.c" | cut -d' ' -f1)
    if [ "$got" != '${var.ruid2_source_sha256}' ]; then
      echo "mod_ruid2 source $shown: sha256 $got, want ${var.ruid2_source_sha256}" >&2
      exit 1
    fi
    cd "$tmp"
    ${platform.paths.apxs} -l cap -c mod_ruid2.c >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
    install -m 0755 .libs/mod_ruid2.so ${platform.paths.module_dir}/mod_ruid2.so
    echo "${var.ruid2_source_sha256} $(${platform.values.apachectl} -v | head -n1)" >${platform.paths.module_dir}/mod_ruid2.so.built
  EOT
}

# cPanel's cgi handler: /cgi-sys/${platform.values.php_handler}, a link to
# php-cgi, the same on every platform (no wrapper: one exec per request).
# It has no OPcache: php-cgi reads the ini files of ${local.lib_dir}/php-cgi.d
# (httpd.conf sets PHP_INI_SCAN_DIR for it), every one of the platform's but
# OPcache's, so the extension is not loaded at all, as with cPanel's
# ea-phpNN. PHP-FPM's OPcache (its own ini) is untouched.
file "cgi_ini_dir_script" {
  path   = "${local.lib_dir}/wptest-cgi-ini-dir"
  source = "templates/wptest-cgi-ini-dir"
  mode   = "0755"
}

command "cgi_ini_dir" {
  unless = "${local.lib_dir}/wptest-cgi-ini-dir --check ${platform.paths.php_scan_dir} ${local.cgi_ini_dir}"
  run    = "${local.lib_dir}/wptest-cgi-ini-dir ${platform.paths.php_scan_dir} ${local.cgi_ini_dir}"
}

locals {
  cgi_ini_dir = "${local.lib_dir}/php-cgi.d"
}

directory "cgi_sys" {
  path = "${local.lib_dir}/cgi-sys"
  mode = "0755"
}

link "cgi_php" {
  path   = "${local.lib_dir}/cgi-sys/${platform.values.php_handler}"
  target = platform.paths.php_cgi
}

# cPanel writes each account's logs under domlogs (vhost.default).
directory "domlogs" {
  path = "${platform.paths.log_dir}/domlogs"
  mode = "0750"
}

file "httpd_conf" {
  path     = platform.paths.apache_conf
  template = "templates/httpd.conf"
}

service "apache" {
  name       = platform.services.apache
  state      = "running"
  enabled    = true
  on_notify  = "restart"
  restart_on = ["file.httpd_conf", "command.build_ruid2", "link.cgi_php", "package.server"]
  start      = "${local.svc} ${platform.services.apache} start"
  stop       = "${local.svc} ${platform.services.apache} stop"
  restart    = "${local.svc} ${platform.services.apache} restart"
  reload     = "${local.svc} ${platform.services.apache} reload"
  status     = "${local.svc} ${platform.services.apache} status"
  ready      = "curl -fsS -o /dev/null http://127.0.0.1:${var.http_port}/wptest-probe.css"
}

# Apache's processes (the root parent and its prefork children as the web
# user) and the PHP that answers: a CGI process per request, named like
# cPanel's handler and run as the site user by mod_ruid2.
process_group "web" {
  exe = [platform.services.apache]
}

process_group "php" {
  exe   = [platform.values.php_handler, platform.values.php_cgi_exe]
  users = [var.site_user]
}

# What wptest needs to know of the server (host manifest): mod_status at
# cPanel's path (check.server_status) and MaxRequestWorkers for the kit's
# worker usage; another profile's apply stops service.apache.
server {
  services     = ["apache"]
  worker_limit = var.max_request_workers
  protocols    = ["h1"]
  ports        = { http = var.http_port, https = var.https_port }
  shows        = ["apache_mpm", "apache_version", "php_cgi_version"]
  status {
    url    = "http://127.0.0.1:${var.http_port}/whm-server-status?auto"
    format = "apache"
  }
}

# What shapes php-cgi without being written here: its php.ini, the ini
# directory it is linked from and the one it reads (a hand edit to any is
# drift: `wptest status` names it, a run refuses to measure it).
watch "php-cgi" {
  paths = [platform.paths.php_cgi_ini, platform.paths.php_scan_dir, local.cgi_ini_dir]
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

check "mpm_prefork" {
  command {
    run          = "${platform.values.apachectl} -V"
    expect_regex = "Server MPM:\\s+prefork"
  }
}

check "php_cgi_no_opcache_site_user" {
  http {
    url               = "http://127.0.0.1:${var.http_port}/wptest-info.php"
    expect_body_regex = "\"sapi\":\"cgi-fcgi\".*\"user\":\"${var.site_user}\",\"opcache\":false"
  }
}

# php-cgi as the handler runs it has no OPcache extension at all (not
# loaded but off: not loaded).
check "php_cgi_no_opcache_loaded" {
  command {
    run          = "if PHP_INI_SCAN_DIR=${local.cgi_ini_dir} ${platform.paths.php_cgi} -m | grep -qi opcache; then echo 'php-cgi loads OPcache'; else echo 'php-cgi without OPcache'; fi"
    expect_regex = "(?m)^php-cgi without OPcache$"
  }
}

# A new php-cgi per request: three requests, three PIDs, none still alive
# afterwards (a persistent PHP worker would answer twice, or live on).
check "php_process_per_request" {
  timeout = "20s"
  command {
    run          = <<-EOT
      set -eu
      pids=""
      for i in 1 2 3; do
        p=$(curl -fsS http://127.0.0.1:${var.http_port}/wptest-info.php | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
        [ -n "$p" ] || { echo "no pid in wptest-info.php output" >&2; exit 1; }
        pids="$pids $p"
      done
      echo "pids:$pids"
      [ "$(echo $pids | tr ' ' '\n' | sort -u | wc -l)" -eq 3 ] || { echo "a PHP process answered twice" >&2; exit 1; }
      sleep 0.2
      for p in $pids; do
        if kill -0 "$p" 2>/dev/null && grep -q php "/proc/$p/comm" 2>/dev/null; then echo "php process $p outlived its request" >&2; exit 1; fi
      done
      echo "one php-cgi per request"
    EOT
    expect_regex = "one php-cgi per request"
  }
}

check "css_not_compressed" {
  http {
    url              = "http://127.0.0.1:${var.http_port}/wptest-probe.css"
    headers          = { "Accept-Encoding" = "gzip, deflate, br" }
    expect_no_header = ["Content-Encoding"]
  }
}

check "tls_http11" {
  http {
    url               = "https://127.0.0.1:${var.https_port}/wptest-info.php"
    insecure          = true
    server_name       = "localhost"
    expect_header     = { "Server" = "^Apache$" }
    expect_protocol   = "HTTP/1.1"
    expect_body_regex = "\"protocol\":\"HTTP/1.1\",\"https\":true"
  }
}

# HTTP/1.1 only: an h2c upgrade is ignored, prior-knowledge h2c is refused,
# and TLS offers no h2 by ALPN.
check "no_http2" {
  command {
    run          = <<-EOT
      up=$(curl -sS --http2 -o /dev/null -w '%%{http_version}' http://127.0.0.1:${var.http_port}/wptest-probe.css)
      alpn=$(curl -sSk --http2 -o /dev/null -w '%%{http_version}' https://127.0.0.1:${var.https_port}/wptest-probe.css)
      if curl -fsS --http2-prior-knowledge -o /dev/null --max-time 5 http://127.0.0.1:${var.http_port}/wptest-probe.css 2>/dev/null; then pk=answered; else pk=refused; fi
      echo "upgrade=$up alpn=$alpn prior_knowledge=$pk"
    EOT
    expect_regex = "upgrade=1\\.1 alpn=1\\.1 prior_knowledge=refused"
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

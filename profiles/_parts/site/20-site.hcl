# The site part: what every wptest server profile shares, written once
# (profile.uses = ["site", ...]). The cPanel vs corehttpd post swapped only
# the web server: the same site user and docroot, the same database, the
# same WordPress, the same certificate and probe files. Swapping profiles
# leaves all of this alone. After a profile with this part is applied to a
# bare host, `wptest seed` and `wptest run` need nothing else: the database
# runs (21-mariadb.hcl), PHP has every extension WordPress needs and core is
# in place (26-wordpress.hcl), and a check loads a WordPress page through
# the profile's web server.

platform "debian-12" {
  packages = {
    openssl   = "openssl"
    tar       = "tar"
    php_cli   = "php${var.php_version}-cli"
    php_posix = "php${var.php_version}-common" # posix_geteuid() for the probe
  }
  values = {
    web_user    = "www-data"
    web_group   = "www-data"
    php_cgi_exe = "php-cgi${var.php_version}"
    php_fpm_exe = "php-fpm${var.php_version}"
  }
}

platform "debian-13" {
  packages = {
    openssl   = "openssl"
    tar       = "tar"
    php_cli   = "php${var.php_version}-cli"
    php_posix = "php${var.php_version}-common" # posix_geteuid() for the probe
  }
  values = {
    web_user    = "www-data"
    web_group   = "www-data"
    php_cgi_exe = "php-cgi${var.php_version}"
    php_fpm_exe = "php-fpm${var.php_version}"
  }
}

platform "almalinux-9" {
  packages = {
    openssl   = "openssl"
    tar       = "tar" # core's unpacking and the seeder; minimal EL9 images can lack it
    php_cli   = "php-cli" # php-fpm needs only php-common: seeding needs the CLI
    php_posix = "php-process"
  }
  values = {
    web_user    = "apache"
    web_group   = "apache"
    php_cgi_exe = "php-cgi"
    php_fpm_exe = "php-fpm"
  }
}

variable "http_port" {
  type        = number
  default     = 80
  description = "Port for plain HTTP (h1, and h2c where the profile speaks it)."
  validation {
    condition     = var.http_port >= 1 && var.http_port <= 65535 && floor(var.http_port) == var.http_port
    error_message = "http_port must be a whole number between 1 and 65535."
  }
}

variable "https_port" {
  type        = number
  default     = 443
  description = "Port for TLS (h1, h2 where the profile speaks it, and h3 over UDP where it speaks that)."
  validation {
    condition     = var.https_port >= 1 && var.https_port <= 65535 && floor(var.https_port) == var.https_port
    error_message = "https_port must be a whole number between 1 and 65535."
  }
}

variable "server_name" {
  type        = string
  default     = "localhost"
  description = "Host name the site answers to and the certificate names (besides localhost, 127.0.0.1 and ::1)."
  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$", var.server_name))
    error_message = "server_name must be a host name of lower-case letters, digits, dots and dashes."
  }
}

variable "site_user" {
  type        = string
  default     = "wpsite"
  description = "The site's account (cPanel-style: PHP runs as this user, the docroot is ~/public_html)."
  validation {
    condition     = can(regex("^[a-z_][a-z0-9_-]{0,30}$", var.site_user))
    error_message = "site_user must be a valid user name: a lower-case letter or _, then up to 30 of a-z, 0-9, _ and -."
  }
  # PHP runs as this user and it owns the docroot; root's home, shell and
  # files would be the site's (the user op also refuses any other system
  # account that exists on the host).
  validation {
    condition     = var.site_user != "root"
    error_message = "site_user must not be root: PHP runs as the site's user and it owns the docroot."
  }
}

locals {
  home     = "/home/${var.site_user}"
  docroot  = "/home/${var.site_user}/public_html"
  lib_dir  = "/usr/local/lib/wptest"
  svc      = "/usr/local/lib/wptest/wptest-svc"
  tls_dir  = "/etc/wptest/tls"
  tls_cert = "/etc/wptest/tls/cert.pem"
  tls_key  = "/etc/wptest/tls/key.pem"
  # The site database's credentials (shell assignments, root only): made
  # once on the host by 21-mariadb.hcl, read by `wptest seed`.
  db_env = "/etc/wptest/site-db.env"
}

precondition {
  condition     = var.http_port != var.https_port
  error_message = "http_port and https_port must differ."
}

package "shared" {
  names = [platform.packages.openssl, platform.packages.tar]
}

# curl (the profiles' checks and mod_ruid2's download) by name on Debian;
# on almalinux-9 only when no curl is there: EL9 cloud images have
# curl-minimal, which conflicts with the curl package.
package "curl" {
  when  = platform.package_manager == "apt"
  names = ["curl"]
}

command "curl" {
  when   = platform.package_manager == "dnf"
  bake   = true # a package install, as the package op's
  unless = "command -v curl >/dev/null"
  run    = "dnf install -y curl-minimal"
}

user "site" {
  name  = var.site_user
  home  = local.home
  shell = "/usr/sbin/nologin"
}

# 0711: the web server's users may pass through the home directory to
# public_html but not list it (cPanel's account layout).
directory "home" {
  path  = local.home
  mode  = "0711"
  owner = var.site_user
  group = var.site_user
}

directory "docroot" {
  path  = local.docroot
  mode  = "0755"
  owner = var.site_user
  group = var.site_user
}

# The probe checks read: SAPI, euid, OPcache, PID, protocol as JSON.
file "info_php" {
  path   = "${local.docroot}/wptest-info.php"
  source = "templates/shared/wptest-info.php"
  owner  = var.site_user
  group  = var.site_user
}

# Rasmus's ab test's two documents, as his message shows them: a static
# HTML file of exactly 1,024 bytes (a title, a heading, 24 lines of one
# letter repeated) and its PHP twin, which prints the same 1,024 bytes with
# one <?= ?> line; ab's "HTML transferred" is then requests × 1,024.
file "ab_1k_html" {
  path   = "${local.docroot}/wptest-1k.html"
  source = "templates/shared/wptest-1k.html"
  owner  = var.site_user
  group  = var.site_user
}

file "ab_1k_php" {
  path   = "${local.docroot}/wptest-1k.php"
  source = "templates/shared/wptest-1k.php"
  owner  = var.site_user
  group  = var.site_user
}

# The Apache kit's large.bin: a 1 MB static file (1,048,576 bytes, 16,384
# numbered lines of 64), what the kit's transfer rate and the transfer
# scenario kind download by default. A file, not a content expression: one
# that builds a megabyte makes every load of a profile ten times slower.
file "transfer_1m" {
  path   = "${local.docroot}/wptest-1m.bin"
  source = "templates/shared/wptest-1m.bin"
  owner  = var.site_user
  group  = var.site_user
}

# The image the cPanel vs corehttpd post left out of its tests, by its
# size: 105 KB (107,520 bytes, 1,680 numbered lines of 64), for the
# transfer scenario kind (experiments/corehttpd-vs-cpanel-image.hcl).
file "transfer_105k" {
  path   = "${local.docroot}/wptest-105k.bin"
  source = "templates/shared/wptest-105k.bin"
  owner  = var.site_user
  group  = var.site_user
}

# Static files for the compression checks (15 KB of CSS, 6.5 KB of JS).
file "probe_css" {
  path   = "${local.docroot}/wptest-probe.css"
  source = "templates/shared/wptest-probe.css"
  owner  = var.site_user
  group  = var.site_user
}

file "probe_js" {
  path   = "${local.docroot}/wptest-probe.js"
  source = "templates/shared/wptest-probe.js"
  owner  = var.site_user
  group  = var.site_user
}

# Shared by the certificate (28-tls.hcl) and the site database's
# credentials file (21-mariadb.hcl, itself 0600).
directory "etc" {
  path = "/etc/wptest"
  mode = "0755"
}

directory "lib" {
  path = local.lib_dir
  mode = "0755"
}

# Start/stop/status for every web server and PHP-FPM, with or without
# systemd; stop waits until the processes are gone (the next server must be
# able to bind the ports).
file "svc" {
  path   = local.svc
  source = "templates/shared/wptest-svc"
  mode   = "0755"
}

file "precompress" {
  path   = "${local.lib_dir}/wptest-precompress"
  source = "templates/shared/wptest-precompress"
  mode   = "0755"
}

file "tls_cert_script" {
  path   = "${local.lib_dir}/wptest-tls-cert"
  source = "templates/shared/wptest-tls-cert"
  mode   = "0755"
}

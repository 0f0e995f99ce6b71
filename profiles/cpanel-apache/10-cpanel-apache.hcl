# cpanel-apache: Apache as cPanel's EasyApache 4 "Default" profile ships it
# (research/fixture-anchors.md §4): MPM prefork with per-vhost user switching
# by mod_ruid2, PHP through cPanel's "cgi" handler (mod_cgi + Action: a new
# php-cgi process for every request, no OPcache), mod_deflate loaded with no
# filter (no compression), HTTP/1.1 only, and the Global Configuration values
# MaxRequestWorkers 150, KeepAlive On, KeepAliveTimeout 5,
# MaxKeepAliveRequests 100, Timeout 300.

profile {
  description = "Apache as cPanel ships it: prefork + mod_ruid2, PHP as CGI without OPcache, no compression, HTTP/1.1"
  platforms   = ["debian-12", "debian-13", "almalinux-9"]
  uses        = ["site", "unconfined-apache"]
  aliases     = ["cpanel"]
}

variable "ruid2_source_url" {
  type          = string
  operator_only = true
  default       = "https://raw.githubusercontent.com/mind04/mod-ruid2/90af81cca03c149e5cf54488a43cc1b021d2cb98/mod_ruid2.c"
  description   = "mod_ruid2.c of mod_ruid2 0.9.8 (the version cPanel ships), built with apxs on the host. The default is upstream's file at the release's commit; any https://, http:// or file:// URL curl reads will do (file:// for a copy already on the host)."
  validation {
    condition     = can(regex("^(https?|file)://[[:graph:]]+$", var.ruid2_source_url))
    error_message = "ruid2_source_url must be an https://, http:// or file:// URL without spaces or control characters (percent-encode them)."
  }
}

variable "ruid2_source_sha256" {
  type          = string
  operator_only = true
  default       = "37f5c38fc6b5d685f9d464ff74b0663d5c4e296ff12eea404837fd53f6399e80"
  description   = "SHA-256 of mod_ruid2.c: the build refuses any other file. The default is upstream's 0.9.8 mod_ruid2.c (tag mod_ruid2-0.9.8, commit 90af81c)."
  validation {
    condition     = can(regex("^[0-9a-f]{64}$", var.ruid2_source_sha256))
    error_message = "ruid2_source_sha256 must be 64 lower-case hex digits."
  }
}

variable "max_request_workers" {
  type        = number
  default     = 150
  description = "MaxRequestWorkers (cPanel's value: 150). At most 256 (ServerLimit)."
  validation {
    condition     = var.max_request_workers >= 1 && var.max_request_workers <= 256
    error_message = "max_request_workers must be between 1 and 256 (prefork ServerLimit)."
  }
}

platform "debian-12" {
  package_manager = "apt"
  packages = {
    apache     = "apache2"
    apache_ssl = "apache2"
    php_cgi    = "php${var.php_version}-cgi"
    apxs       = "apache2-dev"
    libcap     = "libcap-dev"
    cc         = "gcc"
  }
  paths = {
    apache_conf  = "/etc/apache2/apache2.conf"
    server_root  = "/etc/apache2"
    module_dir   = "/usr/lib/apache2/modules"
    run_dir      = "/run/apache2"
    pid_file     = "/run/apache2/apache2.pid"
    log_dir      = "/var/log/apache2"
    php_cgi      = "/usr/bin/php-cgi${var.php_version}"
    php_scan_dir = "/etc/php/${var.php_version}/cgi/conf.d" # php-cgi's own ini files
    php_cgi_ini  = "/etc/php/${var.php_version}/cgi/php.ini"
    apxs         = "/usr/bin/apxs"
  }
  services = {
    apache = "apache2"
  }
  values = {
    apachectl   = "apache2ctl"
    php_handler = "ea-php${replace(var.php_version, ".", "")}"
  }
  deviations = []
}

platform "debian-13" {
  package_manager = "apt"
  packages = {
    apache     = "apache2"
    apache_ssl = "apache2"
    php_cgi    = "php${var.php_version}-cgi"
    apxs       = "apache2-dev"
    libcap     = "libcap-dev"
    cc         = "gcc"
  }
  paths = {
    apache_conf  = "/etc/apache2/apache2.conf"
    server_root  = "/etc/apache2"
    module_dir   = "/usr/lib/apache2/modules"
    run_dir      = "/run/apache2"
    pid_file     = "/run/apache2/apache2.pid"
    log_dir      = "/var/log/apache2"
    php_cgi      = "/usr/bin/php-cgi${var.php_version}"
    php_scan_dir = "/etc/php/${var.php_version}/cgi/conf.d" # php-cgi's own ini files
    php_cgi_ini  = "/etc/php/${var.php_version}/cgi/php.ini"
    apxs         = "/usr/bin/apxs"
  }
  services = {
    apache = "apache2"
  }
  values = {
    apachectl   = "apache2ctl"
    php_handler = "ea-php${replace(var.php_version, ".", "")}"
  }
  deviations = []
}

platform "almalinux-9" {
  package_manager = "dnf"
  packages = {
    apache     = "httpd"
    apache_ssl = "mod_ssl"
    php_cgi    = "php-cli" # php-cgi is part of php-cli on EL9
    apxs       = "httpd-devel"
    libcap     = "libcap-devel"
    cc         = "gcc"
  }
  paths = {
    apache_conf  = "/etc/httpd/conf/httpd.conf"
    server_root  = "/etc/httpd"
    module_dir   = "/usr/lib64/httpd/modules"
    run_dir      = "/run/httpd"
    pid_file     = "/run/httpd/httpd.pid"
    log_dir      = "/var/log/httpd"
    php_cgi      = "/usr/bin/php-cgi"
    php_scan_dir = "/etc/php.d" # every SAPI's ini files, OPcache's too
    php_cgi_ini  = "/etc/php.ini"
    apxs         = "/usr/bin/apxs"
  }
  services = {
    apache = "httpd"
  }
  values = {
    apachectl   = "apachectl"
    php_handler = "ea-php${replace(var.php_version, ".", "")}"
  }
  deviations = []
}

# Packages first: later files need their users and groups (28-tls.hcl).
package "server" {
  names = distinct([
    platform.packages.apache,
    platform.packages.apache_ssl,
    platform.packages.php_cgi,
    platform.packages.php_cli,
    platform.packages.php_posix,
  ])
}

package "ruid2_build" {
  names = [platform.packages.apxs, platform.packages.libcap, platform.packages.cc]
}

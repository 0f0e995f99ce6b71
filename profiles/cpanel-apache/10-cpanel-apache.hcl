# cpanel-apache: Apache as cPanel's EasyApache 4 "Default" profile ships it
# (research/fixture-anchors.md §4): MPM prefork with per-vhost user switching
# by mod_ruid2, PHP through cPanel's "cgi" handler (mod_cgi + Action: a new
# php-cgi process for every request, no OPcache), mod_deflate loaded with no
# filter (no compression), HTTP/1.1 only, and the Global Configuration values
# MaxRequestWorkers 150, KeepAlive On, KeepAliveTimeout 5,
# MaxKeepAliveRequests 100, Timeout 300.

profile {
  description = "Apache as cPanel ships it: prefork + mod_ruid2, PHP as CGI without OPcache, no compression, HTTP/1.1"
  platforms   = ["debian-12", "almalinux-9"]
  aliases     = ["cpanel"]
}

variable "uid_switch" {
  type        = string
  default     = "auto"
  description = "How PHP runs as the site user: ruid2 (mod_ruid2 built with apxs, as cPanel), itk (mpm-itk, Debian's package), or auto: ruid2 on almalinux-9, itk on debian-12 (no mod_ruid2 package, no source reachable offline). Anything but ruid2 is recorded as a deviation."
  validation {
    condition     = contains(["auto", "ruid2", "itk"], var.uid_switch)
    error_message = "uid_switch must be \"auto\", \"ruid2\" or \"itk\"."
  }
}

variable "ruid2_source_url" {
  type        = string
  default     = "https://downloads.sourceforge.net/project/mod-ruid/mod_ruid2/mod_ruid2-0.9.8.tar.bz2"
  description = "mod_ruid2 source archive (.tar.bz2), built with apxs when uid_switch is ruid2. The default is the upstream 0.9.8 release, the version cPanel ships."
}

variable "ruid2_source_sha256" {
  type        = string
  default     = ""
  description = "SHA-256 of the archive at ruid2_source_url. Required to build mod_ruid2: wptest ships no checksum for the upstream release because none could be verified when this profile was written (sha256sum the archive you trust and pass it)."
  validation {
    condition     = var.ruid2_source_sha256 == "" || can(regex("^[0-9a-f]{64}$", var.ruid2_source_sha256))
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
    openssl = "openssl"
    curl    = "curl"
    apache     = "apache2"
    apache_ssl = "apache2"
    itk        = "libapache2-mpm-itk"
    php_cgi    = "php8.2-cgi"
    php_cli    = "php8.2-cli"
    php_posix  = "php8.2-common"
    apxs    = "apache2-dev"
    libcap  = "libcap-dev"
    cc      = "gcc"
    bzip2   = "bzip2"
  }
  paths = {
    apache_conf = "/etc/apache2/apache2.conf"
    server_root = "/etc/apache2"
    module_dir  = "/usr/lib/apache2/modules"
    run_dir     = "/run/apache2"
    pid_file    = "/run/apache2/apache2.pid"
    log_dir     = "/var/log/apache2"
    php_cgi     = "/usr/bin/php-cgi8.2"
    apxs        = "/usr/bin/apxs"
  }
  services = {
    apache    = "apache2"
    caddy     = "caddy"
    corehttpd = "corehttpd"
  }
  values = {
    web_user    = "www-data"
    web_group   = "www-data"
    apachectl   = "apache2ctl"
    php_handler = "ea-php82"
    uid_switch  = var.uid_switch == "auto" ? "itk" : var.uid_switch
  }
  deviations = var.uid_switch == "ruid2" ? [] : [
    "uid switching: mpm-itk (AssignUserID) instead of mod_ruid2: Debian 12 has no mod_ruid2 package and no source for it can be fetched offline; pass -var uid_switch=ruid2 -var ruid2_source_sha256=... to build mod_ruid2 with apxs",
  ]
}

platform "almalinux-9" {
  package_manager = "dnf"
  packages = {
    openssl = "openssl"
    curl    = "curl"
    apache     = "httpd"
    apache_ssl = "mod_ssl"
    itk        = "httpd" # no mpm-itk in AppStream: uid_switch=itk is refused below
    php_cgi    = "php-cli" # php-cgi is part of php-cli on EL9
    php_cli    = "php-cli"
    php_posix  = "php-process"
    apxs    = "httpd-devel"
    libcap  = "libcap-devel"
    cc      = "gcc"
    bzip2   = "bzip2"
  }
  paths = {
    apache_conf = "/etc/httpd/conf/httpd.conf"
    server_root = "/etc/httpd"
    module_dir  = "/usr/lib64/httpd/modules"
    run_dir     = "/run/httpd"
    pid_file    = "/run/httpd/httpd.pid"
    log_dir     = "/var/log/httpd"
    php_cgi     = "/usr/bin/php-cgi"
    apxs        = "/usr/bin/apxs"
  }
  services = {
    apache    = "httpd"
    caddy     = "caddy"
    corehttpd = "corehttpd"
  }
  values = {
    web_user    = "apache"
    web_group   = "apache"
    apachectl   = "apachectl"
    php_handler = "ea-php"
    uid_switch  = var.uid_switch == "auto" ? "ruid2" : var.uid_switch
  }
  deviations = [
    "php-cgi: the OPcache extension is loaded but off (php-cgi -d opcache.enable=0 in the cgi-sys wrapper): AlmaLinux has one /etc/php.d for every SAPI and PHP-FPM needs OPcache; cPanel's cgi handler has no OPcache package at all",
  ]
}

precondition {
  condition     = !(platform.name == "almalinux-9" && var.uid_switch == "itk")
  error_message = "uid_switch = \"itk\" is not available on almalinux-9 (no mpm-itk package in AppStream); use ruid2 (the default there)."
}

precondition {
  condition     = platform.values.uid_switch != "ruid2" || var.ruid2_source_sha256 != ""
  error_message = "mod_ruid2 is built from source on this platform and needs its checksum: pass -var ruid2_source_sha256=<sha256 of ${var.ruid2_source_url}> (wptest ships none: it could not be verified offline when this profile was written), or on debian-12 -var uid_switch=itk."
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

package "itk" {
  when  = platform.values.uid_switch == "itk"
  names = [platform.packages.itk]
}

package "ruid2_build" {
  when  = platform.values.uid_switch == "ruid2"
  names = [platform.packages.apxs, platform.packages.libcap, platform.packages.cc, platform.packages.bzip2]
}

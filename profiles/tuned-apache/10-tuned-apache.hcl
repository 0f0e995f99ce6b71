# tuned-apache: Apache with every performance switch WHM offers turned on, the
# control of the cPanel vs corehttpd post: MPM event, PHP-FPM with OPcache (the shared pool)
# through mod_proxy_fcgi, mod_deflate compressing all content (cPanel's
# Optimize Website > Compress All Content), mod_http2 (h2 on TLS by ALPN, h2c
# on plain HTTP), and the same MaxRequestWorkers and KeepAlive values as
# cpanel-apache.

profile {
  description = "Apache tuned in WHM: event MPM, PHP-FPM + OPcache, mod_deflate on all content, HTTP/2"
  platforms   = ["debian-12", "debian-13", "almalinux-9"]
  uses        = ["site", "fpm", "unconfined-apache"]
  aliases     = ["tuned"]
}

variable "max_request_workers" {
  type        = number
  default     = 150
  description = "MaxRequestWorkers (cPanel's value: 150): threads over all event-MPM children, 25 per child."
  validation {
    condition     = var.max_request_workers >= 25 && var.max_request_workers <= 1600 && var.max_request_workers % 25 == 0
    error_message = "max_request_workers must be a multiple of 25 (ThreadsPerChild) between 25 and 1600."
  }
}

platform "debian-12" {
  package_manager = "apt"
  packages = {
    apache      = "apache2"
    apache_ssl  = "apache2"
    http2       = "apache2"
  }
  paths = {
    apache_conf     = "/etc/apache2/apache2.conf"
    server_root     = "/etc/apache2"
    module_dir      = "/usr/lib/apache2/modules"
    run_dir         = "/run/apache2"
    pid_file        = "/run/apache2/apache2.pid"
    log_dir         = "/var/log/apache2"
  }
  services = {
    apache = "apache2"
  }
  values = {
    apachectl = "apache2ctl"
  }
  deviations = []
}

platform "debian-13" {
  package_manager = "apt"
  packages = {
    apache      = "apache2"
    apache_ssl  = "apache2"
    http2       = "apache2"
  }
  paths = {
    apache_conf     = "/etc/apache2/apache2.conf"
    server_root     = "/etc/apache2"
    module_dir      = "/usr/lib/apache2/modules"
    run_dir         = "/run/apache2"
    pid_file        = "/run/apache2/apache2.pid"
    log_dir         = "/var/log/apache2"
  }
  services = {
    apache = "apache2"
  }
  values = {
    apachectl = "apache2ctl"
  }
  deviations = []
}

platform "almalinux-9" {
  package_manager = "dnf"
  packages = {
    apache      = "httpd"
    apache_ssl  = "mod_ssl"
    http2       = "mod_http2"
  }
  paths = {
    apache_conf     = "/etc/httpd/conf/httpd.conf"
    server_root     = "/etc/httpd"
    module_dir      = "/usr/lib64/httpd/modules"
    run_dir         = "/run/httpd"
    pid_file        = "/run/httpd/httpd.pid"
    log_dir         = "/var/log/httpd"
  }
  services = {
    apache = "httpd"
  }
  values = {
    apachectl = "apachectl"
  }
  deviations = []
}

# Packages first: later files need their users and groups (28-tls.hcl).
package "server" {
  names = distinct([
    platform.packages.apache,
    platform.packages.apache_ssl,
    platform.packages.http2,
    platform.packages.php_cli,
  ])
}

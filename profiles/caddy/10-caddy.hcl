# caddy: the open event-driven peer of corehttpd that anyone can run. One
# process; PHP through php_fastcgi to the PHP-FPM pool every FPM profile
# shares; compressible static files compressed once (gzip -9, written by the
# profile next to each file) and served as stored ("precompressed gzip"),
# dynamic responses gzipped on the fly; HTTP/1.1, HTTP/2 (h2 by ALPN, h2c on
# plain HTTP) and HTTP/3 on the TLS port.

profile {
  description = "Caddy: one event-driven process, PHP-FPM + OPcache, precompressed static files, HTTP/1.1, HTTP/2, HTTP/3"
  platforms   = ["debian-12", "almalinux-9"]
}

variable "caddy_url" {
  type        = string
  default     = "https://github.com/caddyserver/caddy/releases/download/v2.6.2/caddy_2.6.2_linux_amd64.tar.gz"
  description = "almalinux-9 only: the official static Caddy release archive (.tar.gz holding the caddy binary). Default: 2.6.2, the version Debian 12 packages, so both platforms run the same Caddy."
}

variable "caddy_sha256" {
  type        = string
  default     = ""
  description = "almalinux-9 only: SHA-256 of the archive at caddy_url. Required there: wptest ships no checksum for it because none could be verified offline when this profile was written (take it from the release's checksums file)."
  validation {
    condition     = var.caddy_sha256 == "" || can(regex("^[0-9a-f]{64}$", var.caddy_sha256))
    error_message = "caddy_sha256 must be 64 lower-case hex digits."
  }
}

variable "h3probe" {
  type        = string
  default     = "/usr/local/lib/wptest/wptest h3probe"
  description = "Command that makes one HTTP/3 request on the host (wptest's quic-go client; `wptest up` installs the binary there)."
}

platform "debian-12" {
  package_manager = "apt"
  packages = {
    openssl     = "openssl"
    curl        = "curl"
    caddy       = "caddy"
    setcap      = "libcap2-bin"
    php_cli     = "php8.2-cli"
    php_fpm     = "php8.2-fpm"
    php_opcache = "php8.2-opcache"
  }
  paths = {
    caddy_bin       = "/usr/bin/caddy"
    fpm_pool_dir    = "/etc/php/8.2/fpm/pool.d"
    fpm_socket      = "/run/php/php-fpm-wptest.sock"
    fpm_opcache_ini = "/etc/php/8.2/fpm/conf.d/99-wptest-opcache.ini"
  }
  services = {
    caddy     = "caddy"
    apache    = "apache2"
    php_fpm   = "php8.2-fpm"
    corehttpd = "corehttpd"
  }
  values = {
    web_user  = "www-data"
    web_group = "www-data"
  }
  deviations = []
}

platform "almalinux-9" {
  package_manager = "dnf"
  packages = {
    openssl     = "openssl"
    curl        = "curl"
    caddy       = "tar" # Caddy itself is the release binary (caddy_url), not a package
    setcap      = "libcap"
    php_cli     = "php-process" # posix_geteuid() for the probe (php-cli comes with php-fpm)
    php_fpm     = "php-fpm"
    php_opcache = "php-opcache"
  }
  paths = {
    caddy_bin       = "/usr/local/bin/caddy"
    fpm_pool_dir    = "/etc/php-fpm.d"
    fpm_socket      = "/run/php-fpm/php-fpm-wptest.sock"
    fpm_opcache_ini = "/etc/php.d/99-wptest-opcache.ini"
  }
  services = {
    caddy     = "caddy"
    apache    = "httpd"
    php_fpm   = "php-fpm"
    corehttpd = "corehttpd"
  }
  values = {
    web_user  = "apache"
    web_group = "apache"
  }
  deviations = []
}

precondition {
  condition     = platform.name != "almalinux-9" || var.caddy_sha256 != ""
  error_message = "Caddy is installed from its release archive on almalinux-9 and needs its checksum: pass -var caddy_sha256=<sha256 of ${var.caddy_url}> (wptest ships none: it could not be verified offline when this profile was written)."
}

# Packages first: later files need their users and groups (28-tls.hcl).
package "server" {
  names = distinct([platform.packages.caddy, platform.packages.php_cli])
}

package "setcap" {
  when  = var.http_port < 1024 || var.https_port < 1024
  names = [platform.packages.setcap]
}

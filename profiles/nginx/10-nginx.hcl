# nginx: the other open event-driven peer of corehttpd. Debian's (and
# AlmaLinux's AppStream) nginx: a root master and event-driven workers; PHP
# through fastcgi_pass to the PHP-FPM pool every FPM profile shares;
# compressible static files compressed once (gzip -9, written by the profile
# next to each file) and served as stored (gzip_static), other text
# responses gzipped on the fly; HTTP/1.1 on both ports and HTTP/2 on the TLS
# port (by ALPN). No HTTP/3 (Debian 12's nginx 1.22 has none: one protocol
# set on every platform) and no h2c: nginx serves
# h2c only on a port that then speaks nothing else.

profile {
  description = "nginx: event-driven workers, PHP-FPM + OPcache, precompressed static files (gzip_static), HTTP/1.1, HTTP/2"
  platforms   = ["debian-12", "debian-13", "almalinux-9"]
  uses        = ["site", "fpm", "precompressed"]
}

platform "debian-12" {
  package_manager = "apt"
  packages = {
    nginx = "nginx" # 1.22: gzip_static and http_v2 built in (nginx-light is a transitional name for it)
  }
  paths = {
    nginx_conf = "/etc/nginx/nginx.conf"
  }
  services = {
    nginx = "nginx"
  }
  values = {
    nginx_user = "www-data" # the web user: it owns the FPM socket
  }
  deviations = []
}

platform "debian-13" {
  package_manager = "apt"
  packages = {
    nginx = "nginx" # 1.26: gzip_static and http_v2 built in
  }
  paths = {
    nginx_conf = "/etc/nginx/nginx.conf"
  }
  services = {
    nginx = "nginx"
  }
  values = {
    nginx_user = "www-data" # the web user: it owns the FPM socket
  }
  deviations = []
}

platform "almalinux-9" {
  package_manager = "dnf"
  packages = {
    nginx = "nginx" # AppStream's default stream (1.20): gzip_static and http_v2 built in
  }
  paths = {
    nginx_conf = "/etc/nginx/nginx.conf"
  }
  services = {
    nginx = "nginx"
  }
  values = {
    nginx_user = "nginx" # the package's user, in the web group for the FPM socket and the TLS key
  }
  deviations = []
}

# Packages first: later files need their users and groups (28-tls.hcl).
package "server" {
  names = [platform.packages.nginx]
}

# caddy: the open event-driven peer of corehttpd that anyone can run. One
# process; PHP through php_fastcgi to the PHP-FPM pool every FPM profile
# shares; compressible static files compressed once (gzip -9, written by the
# profile next to each file) and served as stored ("precompressed gzip"),
# dynamic responses gzipped on the fly; HTTP/1.1, HTTP/2 (h2 by ALPN, h2c on
# plain HTTP) and HTTP/3 on the TLS port.

profile {
  description = "Caddy: one event-driven process, PHP-FPM + OPcache, precompressed static files, HTTP/1.1, HTTP/2, HTTP/3"
  platforms   = ["debian-12", "debian-13", "almalinux-9"]
  uses        = ["site", "fpm", "precompressed"]
}

platform "debian-12" {
  package_manager = "apt"
  packages = {
    caddy  = "caddy"
    setcap = "libcap2-bin"
  }
  paths = {
    caddy_bin = "/usr/bin/caddy"
  }
  services = {
    caddy = "caddy"
  }
  values = {
  }
  deviations = []
}

platform "debian-13" {
  package_manager = "apt"
  packages = {
    caddy  = "caddy"
    setcap = "libcap2-bin"
  }
  paths = {
    caddy_bin = "/usr/bin/caddy"
  }
  services = {
    caddy = "caddy"
  }
  values = {
  }
  deviations = []
}

platform "almalinux-9" {
  package_manager = "dnf"
  packages = {
    caddy  = "caddy" # EPEL's package (05-repos.hcl enables EPEL)
    setcap = "libcap"
  }
  paths = {
    caddy_bin = "/usr/bin/caddy"
  }
  services = {
    caddy = "caddy"
  }
  values = {
  }
  deviations = []
}

# Packages first: later files need their users and groups (28-tls.hcl).
package "server" {
  names = [platform.packages.caddy]
}

package "setcap" {
  when  = var.http_port < 1024 || var.https_port < 1024
  names = [platform.packages.setcap]
}

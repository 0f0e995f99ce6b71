# corehttpd: the event-driven web server of the cPanel vs corehttpd post (the one CorePanel
# ships): one process, PHP-FPM with OPcache through the pool every FPM
# profile shares, compressible static files compressed once per version and
# served precompressed, HTTP/1.1, HTTP/2 and HTTP/3.
#
# corehttpd is not publicly available. This profile installs it from a
# package source you give (package_source); without one it stops before
# touching the host and names the caddy profile, the open event-driven peer
# anyone can run.

profile {
  description = "corehttpd (not public: needs -var package_source): event-driven, one process, PHP-FPM + OPcache, precompressed static files, HTTP/1.1, HTTP/2, HTTP/3"
  platforms   = ["debian-12", "debian-13", "almalinux-9"]
  uses        = ["site", "fpm", "precompressed"]
  aliases     = ["core"]
}

variable "package_source" {
  type          = string
  operator_only = true
  default       = ""
  description   = "Where to install corehttpd from: an https:// or file:// URL or an absolute path on the host of the package file (.deb on debian-12 and debian-13, .rpm on almalinux-9); local+file:///PATH names a file on the machine wptest runs on, uploaded first. corehttpd is not public; there is no default."
  validation {
    condition     = var.package_source == "" || can(regex("^(https://[[:graph:]]+|file:///[^%[:space:][:cntrl:]]+|/[^[:cntrl:]]+)$", var.package_source))
    error_message = "package_source must be an https:// URL (without spaces), a file:/// URL (without spaces or percent signs), an absolute path on the host without control characters, or local+file:///PATH for a file on this machine."
  }
}

variable "package_sha256" {
  type          = string
  operator_only = true
  default       = ""
  description   = "SHA-256 of the package file at package_source (checked before it is installed)."
  validation {
    condition     = var.package_sha256 == "" || can(regex("^[0-9a-f]{64}$", var.package_sha256))
    error_message = "package_sha256 must be 64 lower-case hex digits."
  }
}

precondition {
  condition     = var.package_source != ""
  error_message = "corehttpd is not publicly available, so wptest cannot install it by itself: pass -var package_source=<https:// or file:// URL, absolute path on the host, or local+file:///PATH on this machine, of the corehttpd package (.deb for debian-12 and debian-13, .rpm for almalinux-9)> and -var package_sha256=<its SHA-256>. To run the open event-driven peer instead, use --profile caddy."
}

precondition {
  condition     = var.package_source == "" || var.package_sha256 != ""
  error_message = "package_sha256 is required with package_source: wptest installs no package it cannot check."
}

platform "debian-12" {
  package_manager = "apt"
  packages = {
  }
  paths = {
  }
  services = {
    corehttpd = "corehttpd"
  }
  values = {
    pkg_ext     = "deb"
    pkg_install = "apt-get install -y -o DPkg::Lock::Timeout=600"
    pkg_query   = "dpkg-query -W -f '$${Version}' corehttpd"
  }
  deviations = []
}

platform "debian-13" {
  package_manager = "apt"
  packages = {
  }
  paths = {
  }
  services = {
    corehttpd = "corehttpd"
  }
  values = {
    pkg_ext     = "deb"
    pkg_install = "apt-get install -y -o DPkg::Lock::Timeout=600"
    pkg_query   = "dpkg-query -W -f '$${Version}' corehttpd"
  }
  deviations = []
}

platform "almalinux-9" {
  package_manager = "dnf"
  packages = {
  }
  paths = {
  }
  services = {
    corehttpd = "corehttpd"
  }
  values = {
    pkg_ext     = "rpm"
    pkg_install = "dnf install -y"
    pkg_query   = "rpm -q --qf '%%{VERSION}-%%{RELEASE}' corehttpd"
  }
  deviations = []
}

# Packages first: later files need their users and groups (28-tls.hcl).
package "server" {
  names = [platform.packages.php_cli]
}

# The package from the given source, checked against its SHA-256 first.
command "install_corehttpd" {
  unless  = "test \"$(cat /var/lib/wptest/corehttpd.sha256 2>/dev/null)\" = '${var.package_sha256}' && ${platform.values.pkg_query} >/dev/null 2>&1"
  timeout = "10m"
  run     = <<-EOT
    set -eu
    src=${shellquote(var.package_source)}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    pkg="$tmp/corehttpd.${platform.values.pkg_ext}"
    # A URL may hold a user and password (before its host): it reaches
    # curl in a config on stdin, never in an argv (ps shows those to every
    # user), and messages name it without its user part.
    shown=$(printf '%s\n' "$src" | sed 's,^\([a-z]*://\)[^/]*@,\1,')
    case "$src" in
      https://*) printf 'url = "%s"\n' "$(printf '%s' "$src" | sed 's/[\\"]/\\&/g')" | curl -fsSL --proto =https --retry 3 -K - -o "$pkg" ;;
      file://*) cp -- "$${src#file://}" "$pkg" ;;
      *) cp -- "$src" "$pkg" ;;
    esac
    got=$(sha256sum "$pkg" | cut -d' ' -f1)
    if [ "$got" != '${var.package_sha256}' ]; then
      echo "corehttpd package $shown: sha256 $got, want ${var.package_sha256}" >&2
      exit 1
    fi
    chmod 0644 "$pkg"; chmod 0755 "$tmp"
    ${platform.values.pkg_install} "$pkg"
    install -d -m 0755 /var/lib/wptest
    echo '${var.package_sha256}' >/var/lib/wptest/corehttpd.sha256
  EOT
}
